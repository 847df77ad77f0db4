"""Users' directories hold more than session files: each bad one is its own error result,
named, and the others are judged. Before: a non-UTF-8 name crashed ``compare`` (nothing
written), a FIFO or a dangling link was skipped without a word, and the run's own report,
written inside the directory compared, was compared too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "corpus" / "cases" / "traps" / "two-timestamps" / "session.jsonl"


def hostile_directory(root: Path) -> Path:
    files = root / "sessions"
    files.mkdir()
    (files / "good.jsonl").write_bytes(SESSION.read_bytes())
    (files / os.fsdecode(b"bad\xff.jsonl")).write_bytes(SESSION.read_bytes())
    (files / "dir.jsonl").mkdir()
    os.mkfifo(files / "fifo.jsonl")
    (files / "dangling.jsonl").symlink_to(root / "nowhere")
    return files


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance.cli.main", *args],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.reference
def test_compare_judges_the_good_files_and_names_each_bad_one(tmp_path: Path):
    files = hostile_directory(tmp_path)
    report = files / "report.jsonl"  # its own report, inside what it compares
    result = cli("compare", "--impl", "reference", "--stage", "entries", "--stage", "context",
                 str(files), "--report", str(report))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    by_case = {}
    for line in lines[1:-1]:
        by_case.setdefault(line["case"], []).append(line)
    assert lines[-1]["type"] == "footer" and len(by_case) == 4  # not the report, not dir.jsonl
    statuses = {case.split(".")[1].rsplit("-", 1)[0]: {r["status"] for r in results}
                for case, results in by_case.items()}
    assert statuses == {"good-jsonl": {"pass"}, "bad-jsonl": {"pass"},
                        "fifo-jsonl": {"error"}, "dangling-jsonl": {"error"}}
    messages = {r["message"].replace(f"{files}/", "") for results in by_case.values()
                for r in results if r["status"] == "error"}
    assert messages == {"fifo.jsonl: not a regular file: a FIFO (reading it would wait for "
                        "a writer)", "dangling.jsonl: cannot read: No such file or directory"}


@pytest.mark.reference
def test_reference_run_gives_each_bad_file_its_verdict_and_goes_on(tmp_path: Path):
    files = hostile_directory(tmp_path)
    result = cli("reference", "run", "--stage", "entries", "--format", "json", str(files))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    schema = json.loads((REPO / "conformance" / "schemas" / "reference-run.schema.json")
                        .read_text())
    jsonschema.validate(document, schema)
    verdicts = {Path(f["file"]).name: next(iter(f["stages"]["entries"]))
                for f in document["files"]}
    assert verdicts == {"good.jsonl": "output", "bad\udcff.jsonl": "output",
                        "fifo.jsonl": "unreadable", "dangling.jsonl": "unreadable"}


@pytest.mark.slow
@pytest.mark.reference
def test_pi_looping_on_a_users_file_stops_at_the_heap_cap(monkeypatch: pytest.MonkeyPatch):
    """A 679-byte session with a parent cycle made an uncapped Pi grow to gigabytes (2 GB
    for ``context`` alone, then "Invalid array length"; past 4 GB for every stage). Every
    Pi process now has a capped heap (``REFERENCE_HEAP_MB``, set small here): Pi stops there,
    and the file's verdict says Pi misbehaved."""
    from conformance.execution.oracle import ReferenceOracle
    from conformance.implementations import reference as ref

    monkeypatch.setattr(ref, "REFERENCE_HEAP_MB", 160)
    cycle = REPO / "corpus" / "cases" / "branch" / "parent-cycle" / "session.jsonl"
    with ReferenceOracle(["entries", "context"]) as oracle:
        answers = oracle.answer(cycle)
    assert answers.kinds() == {"entries": "output", "context": "misbehaved"}
    assert answers.results["context"]["misbehaved"]["kind"] == "crash"
