"""Writing the report never loses a result: hostile answers, caps, full disks, Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from helpers import RunRequest, execute, settled, sigint_as_default

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, RunScope
from conformance.reporting.stream import read_report

STAGES = len(DEFAULT_STAGES)  # a case's stages, every API's included


def writer(stream) -> reports.ReportWriter:
    head = reports.header({"name": "x", "version": "1"}, {},
                          CorpusIdentity("c", "0", 1, "ab" * 32), RunScope())
    return reports.ReportWriter(stream, head)



# Up to ~300 levels the comparison copes, and the writer keeps the value whole (orjson stops at
# 254; jsonio goes on to the 1,024 levels it reads); deeper, the comparison gives up (a harness
# error, another module's business): either way the result is in the report and the worker
# goes on.
@pytest.mark.parametrize(("depth", "status"), [(255, "fail"), (300, "fail"), (990, None)])
def test_a_deeply_nested_answer_keeps_its_result_and_the_worker(corpus, fake, tmp_path, depth,
                                                                 status):
    path = tmp_path / "deep.jsonl"
    outcome = execute(RunRequest(corpus=corpus, report_path=path, impl_spec=fake(
        "deep", "--on", "small.alpha", "--depth", str(depth))))
    report = read_report(path)
    assert len(report.results) == len(outcome.report.results) == 4 * STAGES  # none lost
    assert not [r for r in report.results if r.error_kind == "not-run"]  # the worker lived
    deep = next(r for r in report.results if (r.case, r.stage) == ("small.alpha", "context"))
    if status is not None:
        assert deep.status == status
        (difference,) = deep.differences
        assert difference.path == "$.deep"
        kept, levels = difference.actual, 0  # kept whole: the writer goes as deep as reads go
        while isinstance(kept, list):
            kept, levels = kept[0], levels + 1
        assert (kept, levels) == ("bottom", depth)
    others = [r for r in report.results if (r.case, r.stage) != ("small.alpha", "context")]
    assert {r.status for r in others} == {"pass"}


def test_a_result_that_cannot_be_written_becomes_a_stated_error(tmp_path):
    class Unwritable:  # a value no JSON writer knows: the last line of defence
        pass

    buffer = tmp_path / "r.jsonl"
    with buffer.open("wb") as stream:
        w = writer(stream)
        written = w.add(StageResult("a.case", "context", "fail", "x",
                                    [Difference("$", "changed", 1, 2)],
                                    expected_kind=Unwritable()))  # type: ignore[arg-type]
        w.close()
    assert written.status == "error" and written.error_kind == "harness"
    assert "could not write this result (fail)" in written.message
    assert read_report(buffer).results == (written,)


def test_result_lines_are_capped_and_say_what_they_left_out(tmp_path):
    big = "x" * (reports.MAX_VALUE_BYTES * 4)
    many = [Difference(f"$.a[{i}]", "changed", big, i) for i in range(reports.MAX_DIFFERENCES + 50)]
    path = tmp_path / "r.jsonl"
    with path.open("wb") as stream:
        w = writer(stream)
        w.add(StageResult("a.case", "context", "fail", "m" * (reports.MAX_MESSAGE_CHARS + 10),
                          many))
        w.close()
    line = path.read_bytes().splitlines()[1]
    assert len(line) <= reports.MAX_LINE_BYTES
    (result,) = read_report(path).results
    assert 0 < len(result.differences) < len(many)
    assert result.differences[0].expected.startswith(f"<truncated: {len(big) + 2} bytes of JSON")
    assert result.differences[0].actual == 0
    assert f"the report keeps the first {len(result.differences)} of {len(many)} differences" \
        in result.message
    assert f"keeps the first {reports.MAX_MESSAGE_CHARS} of " in result.message


def test_the_writer_streams_and_keeps_no_line_in_memory(tmp_path):
    message = "y" * 50_000
    with (tmp_path / "r.jsonl").open("wb") as stream:
        w = writer(stream)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(300):  # 15 MB of messages
            w.add(StageResult(f"case.{i}", "context", "error", message, error_kind="crash"))
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        footer = w.close()
    assert grown < 1_000_000, grown
    assert footer.results == 300 and footer.counts["error"] == 300


def test_a_report_on_a_full_disk_is_one_line_and_exit_2(corpus, fake):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    result = CliRunner().invoke(main, ["run", "--impl", fake("correct"), "--corpus",
                                       str(corpus.root), "--report", "/dev/full", "-q"])
    assert result.exit_code == 2, result.output
    assert "/dev/full: cannot write the report: No space left on device" in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_report_that_fills_the_disk_mid_run_is_an_error_after_the_run(tmp_path):
    class FillsUp:
        def __init__(self):
            self.writes = 0

        def write(self, data):
            self.writes += 1
            if self.writes > 2:
                raise OSError(28, "No space left on device")

        def flush(self):
            pass

    w = writer(FillsUp())
    w.add(StageResult("a.case", "entries", "pass"))
    w.add(StageResult("a.case", "context", "pass"))  # fails, but nothing is raised here
    assert w.failure is not None
    with pytest.raises(reports.ReportError, match="cannot write the report: No space left"):
        w.raise_failure()


@pytest.mark.slow
def test_sigint_writes_an_interrupted_footer_and_the_renderings(corpus, fake, tmp_path):
    report, html, junit = (tmp_path / "run.jsonl", tmp_path / "run.html",
                           tmp_path / "junit.xml")
    command = [sys.executable, "-m", "conformance.cli.main", "run", "--impl",
               fake("hanging", "--on", "small.beta"), "--corpus", str(corpus.root),
               "--report", str(report), "--html", str(html), "--junit", str(junit), "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
                                    "FAKE_HANGING": str(tmp_path / "hanging")},
                               preexec_fn=sigint_as_default)
    settled(lambda: not (tmp_path / "hanging").exists())  # small.alpha answered, small.beta hangs
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert b"Traceback" not in err
    lines = [orjson.loads(raw) for raw in report.read_bytes().splitlines()]
    assert lines[-1]["type"] == "footer" and lines[-1]["verdict"] == "interrupted"
    assert read_report(report).interrupted
    assert b"INTERRUPTED" in out
    assert "INTERRUPTED" in html.read_text() and 'type="interrupted"' in junit.read_text()
    rendered = CliRunner().invoke(main, ["render", str(report)])
    assert rendered.exit_code == 1 and "INTERRUPTED" in rendered.output
    assert "PASSED" not in rendered.output
    written = CliRunner().invoke(main, ["baseline", "--write", str(report)])
    assert written.exit_code == 0 and "interrupted" in written.output


def test_a_result_with_a_control_character_message_round_trips(tmp_path):
    path = tmp_path / "r.jsonl"
    with path.open("wb") as stream:
        w = writer(stream)
        w.add(StageResult("a.case", "context", "error", "\x1b[2J\x00", error_kind="crash"))
        w.close()
    assert read_report(path).results[0].message == "\x1b[2J\x00"


def test_an_implementation_that_says_too_much_gets_a_bounded_report(corpus, fake, tmp_path):
    path = tmp_path / "bulky.jsonl"
    outcome = execute(RunRequest(corpus=corpus, report_path=path, impl_spec=fake(
        "bulky", "--megabytes", "0.2"), cases=("small.alpha",)))
    assert len(outcome.report.results) == STAGES
    for raw in path.read_bytes().splitlines():
        assert len(raw) < 4 * reports.MAX_VALUE_BYTES  # 200 KB said, a few KB written
    values = [d.actual for r in outcome.report.results for d in r.differences
              if d.path == "$.text"]
    assert values and all(v.startswith("<truncated: 209717") for v in values)
