"""Ctrl-C while the implementation is still starting: ``--report`` still gets a report,
saying the run was interrupted (before: ``compare`` and ``run`` wrote none, and CI found no
report to read)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "corpus" / "cases" / "traps" / "two-timestamps" / "session.jsonl"
NEVER_SAYS_HELLO = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(600)"


@pytest.mark.reference  # compare starts Pi beside the implementation
@pytest.mark.parametrize("command", ["run", "compare"])
def test_an_interrupt_before_hello_still_writes_a_report(tmp_path: Path, command: str):
    started, report, script = tmp_path / "started", tmp_path / "r.jsonl", tmp_path / "slow.py"
    script.write_text(NEVER_SAYS_HELLO)
    impl = f"process:{sys.executable} {script} {started}"
    target = ["-k", "traps.two-timestamps"] if command == "run" else [str(SESSION)]
    child = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli.main", command, "--impl", impl, *target,
         "--report", str(report)], env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the command is waiting for the hello by now, even on a loaded machine
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header", "footer"]
    assert lines[0]["implementation"] == {"name": impl, "version": "unknown"}
    assert lines[1]["verdict"] == "interrupted" and lines[1]["results"] == 0
