"""Ctrl-C and SIGTERM stop a run at once, keep what it had, and leave nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from helpers import settled, sigint_as_default

from conformance.reporting.stream import read_report


def tagged_processes(tag: str) -> list[int]:
    """Live processes (not zombies) whose environment carries RUN_TAG=tag."""
    needle = f"RUN_TAG={tag}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ and state != "Z":
            found.append(int(entry))
    return found


def start_run(tmp_path: Path, *arguments: str, **env: str) -> tuple[subprocess.Popen, str]:
    tag = uuid.uuid4().hex
    (tmp_path / "tmp").mkdir(exist_ok=True)
    command = [sys.executable, "-m", "conformance.cli.main", "run", *arguments, "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={
        **os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "RUN_TAG": tag,
        "TMPDIR": str(tmp_path / "tmp"), **env}, preexec_fn=sigint_as_default)
    return process, tag


def wait_until(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.1)


def results_in(report: Path) -> int:
    return report.read_bytes().count(b'"type":"result"') if report.exists() else 0


def test_ctrl_c_while_a_worker_waits_for_its_hello_stops_at_once(corpus_dir, fake, tmp_path):
    starts = tmp_path / "starts"
    process, tag = start_run(tmp_path, "--impl", fake("slow_hello"), "--corpus",
                             str(corpus_dir), "-j", "2", FAKE_STARTS=str(starts))
    wait_until(lambda: starts.exists() and len(starts.read_text().split()) == 2)
    time.sleep(0.3)  # the second worker now waits for a hello that never comes (60 s)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=50)
    waited = time.monotonic() - sent
    assert process.returncode == 130, err
    assert waited < 20, waited  # not the 60 s hello timeout
    assert b"Traceback" not in err
    assert settled(lambda: tagged_processes(tag)) == []


def test_sigterm_stops_the_run_like_ctrl_c_and_exits_143(corpus_dir, fake, tmp_path):
    report, html = tmp_path / "run.jsonl", tmp_path / "run.html"
    # small.delta hangs; the fake ignores bye and end of input, and leaves a child behind
    process, tag = start_run(tmp_path, "--impl", fake("hanging", "--on", "small.delta",
                                                      "--linger"),
                             "--corpus", str(corpus_dir), "--report", str(report),
                             "--html", str(html))
    # alpha, beta; then delta (beta's results are held until its next request is answered)
    wait_until(lambda: results_in(report) >= 11)
    time.sleep(0.5)  # small.delta is hanging now, its session copied to the scratch folder
    assert list((tmp_path / "tmp").glob("pi-conformance-run-*"))
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert b"Traceback" not in err
    assert read_report(report).interrupted
    assert {r.case for r in read_report(report).results} >= {"small.alpha", "small.beta"}
    assert "INTERRUPTED" in html.read_text()
    assert settled(lambda: tagged_processes(tag)) == []
    assert not list((tmp_path / "tmp").glob("pi-conformance-run-*"))
