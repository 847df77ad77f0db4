"""``compare`` judges a user's file exactly as ``run`` judges the same session as a corpus
case: the same inputs for an implementation given its input, the same volatile paths (found by
asking Pi again, as ``corpus regenerate`` does), the same verdicts (conformance/maintenance/
compare.py over the executor)."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.cases import Corpus
from conformance.corpus.session_generators import GENERATORS
from conformance.reporting.stream import read_report

FAKES = Path(__file__).resolve().parent / "fakes"
REQUEST_LIBRARY = "process:" + shlex.join([sys.executable, str(FAKES / "request_library.py")])


def verdicts(path: Path) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Per stage: the status and every difference (path and kind)."""
    return {r.stage: (r.status, [(d.path, d.kind) for d in r.differences])
            for r in read_report(path).results}


@pytest.mark.reference
def test_a_library_given_its_input_gets_the_verdicts_run_gives_on_the_same_session(tmp_path):
    case = Corpus().select(["traps.two-timestamps"])[0]
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(case.session_path, sessions / "mine.jsonl")
    ran, compared = tmp_path / "run.jsonl", tmp_path / "compare.jsonl"
    runner = CliRunner()
    done = runner.invoke(main, ["run", "--impl", REQUEST_LIBRARY, "-k", case.id, "--api",
                                "anthropic-messages", "--report", str(ran), "-q"])
    assert done.exit_code == 1, done.output
    done = runner.invoke(main, ["compare", "--impl", REQUEST_LIBRARY, str(sessions), "--api",
                                "anthropic-messages", "--report", str(compared),
                                "--format", "json"])
    assert done.exit_code == 1, done.output
    by_run, by_compare = verdicts(ran), verdicts(compared)
    assert set(by_compare) <= set(by_run) and by_compare
    assert {stage: by_run[stage] for stage in by_compare} == by_compare
    assert any(status == "fail" for status, _ in by_compare.values())
    assert all(status != "skip" for status, _ in by_compare.values())


@pytest.mark.reference
def test_pi_agrees_with_itself_on_old_empty_header_only_and_large_files(tmp_path):
    """What Pi invents (a v1 migration's ids, an empty file's header) is volatile, not a
    difference: Pi against itself passes every stage of such files."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    v1 = Corpus().select(["migrate.v1-basic"])[0]
    shutil.copy(v1.session_path, sessions / "old.jsonl")
    (sessions / "empty.jsonl").write_bytes(b"")
    (sessions / "header.jsonl").write_bytes(
        b'{"type":"session","version":3,"id":"s","timestamp":"2024-01-01T00:00:00.000Z",'
        b'"cwd":"/p"}\n')
    large = GENERATORS["branching-session"].build(11, 800)  # about 1 MB, compactions included
    (sessions / "large.jsonl").write_bytes(large)
    report = tmp_path / "report.jsonl"
    done = CliRunner().invoke(main, ["compare", "--impl", "reference", str(sessions),
                                     "--report", str(report), "--format", "json"])
    assert done.exit_code == 0, done.output
    results = read_report(report).results
    assert len({r.case for r in results}) == 4 and len(large) > 500_000
    assert {r.status for r in results} <= {"pass", "info"}
    assert sum(r.status == "pass" for r in results) >= 4 * 6


@pytest.mark.reference
def test_a_file_still_being_written_is_read_once_and_both_sides_get_that_snapshot(
        tmp_path, monkeypatch):
    """A session file that grows while compare runs (a live Pi session) gave Pi one version
    and the implementation another: 14 false failures for a pass-through port. Each file is
    now read once, and the bytes Pi's goldens come from are the bytes the implementation's
    copy holds, however the file changes afterwards."""
    from conformance.execution import reference_goldens, runner

    session = tmp_path / "live.jsonl"
    original = (Corpus().root / "cases" / "traps" / "two-timestamps" / "session.jsonl")
    session.write_bytes(original.read_bytes())
    reads: list[bytes] = []
    given_to_pi: list[bytes] = []
    real_read, real_open = runner.read_regular, reference_goldens.ReferenceGoldens.open

    def read_then_grow(path, limit, name):
        data = real_read(path, limit, name)
        reads.append(data)
        with path.open("ab") as grow:  # the live session appends a line meanwhile
            grow.write(b'{"type":"label","id":"zz","parentId":null,"targetId":"x"}\n')
        return data

    def recording_open(self, case, stages, data, options):
        given_to_pi.append(data)
        return real_open(self, case, stages, data, options)

    monkeypatch.setattr(runner, "read_regular", read_then_grow)
    monkeypatch.setattr(reference_goldens.ReferenceGoldens, "open", recording_open)
    result = CliRunner().invoke(main, ["compare", "--impl", "reference", "--stage", "entries",
                                       "--stage", "context", str(session)])
    assert result.exit_code == 0, result.output
    assert reads == given_to_pi == [original.read_bytes()]
    assert session.read_bytes() != original.read_bytes()  # it did change on disk
