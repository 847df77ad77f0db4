"""Writing users' and maintainers' files: whole or not at all, and one clear line when the
disk is full, never a traceback.

A full disk is made real, not mocked: the writing process runs under a file-size limit
(``RLIMIT_FSIZE``), so the kernel refuses a write past it (EFBIG) as it refuses one on a
full disk (ENOSPC); standard output to ``/dev/full`` gets ENOSPC itself.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "corpus"


def run_python(code: str, *, file_size_limit: int) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python that cannot write a file past ``file_size_limit`` bytes."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], preexec_fn=limit,
                          env=env, text=True, timeout=120, capture_output=True)


def test_a_golden_too_big_for_the_disk_leaves_the_old_one_whole(tmp_path: Path):
    """``write_golden`` truncated the golden, then wrote it: a full disk left it cut."""
    case = tmp_path / "cases" / "one"
    (case / "expected").mkdir(parents=True)
    old = (CORPUS / "cases" / "traps" / "two-timestamps" / "expected" / "entries.json").read_bytes()
    golden_path = case / "expected" / "entries.json"
    golden_path.write_bytes(old)
    result = run_python(f"""
        from pathlib import Path
        from types import SimpleNamespace
        from conformance.corpus.goldens import Golden, write_golden
        case = SimpleNamespace(expected_path=lambda stage: Path({str(golden_path)!r}))
        golden = Golden("entries", {{"output": ["x" * 100 for _ in range(1000)]}}, {{}}, {{}})
        write_golden(case, golden)
    """, file_size_limit=len(old) // 2)
    assert result.returncode != 0, "the write should have failed: the limit is too high"
    assert "File too large" in result.stderr
    assert golden_path.read_bytes() == old
    assert sorted(p.name for p in golden_path.parent.iterdir()) == ["entries.json"]


@pytest.mark.parametrize("args", [["render"], ["render", "--format", "json"],
                                  ["render", "--format", "markdown"]])
def test_standard_output_on_a_full_disk_is_one_line_and_exit_2(tmp_path: Path,
                                                              args: list[str]):
    report = tmp_path / "report.jsonl"
    made = subprocess.run(
        [sys.executable, "-m", "conformance.cli.main", "run", "--impl",
         f"process:{sys.executable} {REPO / 'tests' / 'fakes' / 'correct.py'} {CORPUS}",
         "-k", "traps.two-timestamps", "--stage", "entries", "--report", str(report)],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        timeout=300)
    assert made.returncode == 0, made.stderr
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "conformance.cli.main", *args, str(report)],
            env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: standard output: cannot write: No space left on device"]


def test_a_fuzz_candidate_that_does_not_fit_leaves_no_half_case(tmp_path: Path):
    """A candidate case is staged beside and renamed into place: a full disk leaves nothing
    a later ``promote`` could mistake for a case, and the error names the candidate."""
    out = tmp_path / "candidates"
    result = run_python(f"""
        from pathlib import Path
        from conformance.maintenance.fuzz import Finding, write_candidate
        finding = Finding(session=b"x" * 100_000, key="k", stages={{"entries": "differs"}})
        try:
            write_candidate(finding, Path({str(out)!r}), "impl", "fuzz", ["entries"])
        except OSError as exc:
            print(exc.filename, exc.strerror)
    """, file_size_limit=50_000)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(str(out / "fuzz-")) and "File too large" in result.stdout
    assert list(out.iterdir()) == []


@pytest.mark.reference
def test_reference_run_writes_lone_surrogates_as_json_escapes(tmp_path: Path):
    """The corpus's own surrogates session crashed ``reference run --format json``."""
    session = CORPUS / "cases" / "content" / "surrogates" / "session.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "conformance.cli.main", "reference", "run", "--stage",
         "context", "--format", "json", str(session)],
        env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    document = json.loads(result.stdout)
    assert "\\ud83d" in result.stdout.decode() and document["files"][0]["file"] == str(session)


@pytest.mark.parametrize("output_format", ["terminal", "json", "markdown", "junit", "html"])
def test_a_report_holding_a_value_nested_1000_deep_renders(tmp_path: Path, output_format: str):
    """A difference's value as deep as the JSON I/O reads (a port's answer can be) is written
    to the report and rendered in every format: no RecursionError anywhere."""
    from conformance.judging.comparison import Difference
    from conformance.judging.results import StageResult
    from tests import report_fixtures

    deep: object = "bottom"
    for _ in range(1000):
        deep = [deep]
    failing = StageResult("traps.two-timestamps", "context", "fail", "1 difference(s)",
                          [Difference("$.messages", "changed", deep, "flat")],
                          expected_kind="output", actual_kind="output")
    path = report_fixtures.write(tmp_path / "report.jsonl", result_list=[failing])
    result = subprocess.run(
        [sys.executable, "-m", "conformance.cli.main", "render", "--format", output_format,
         str(path)], env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
        text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert ('"failed": 1' if output_format == "json" else "two-timestamps") in result.stdout
