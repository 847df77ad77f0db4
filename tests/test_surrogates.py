"""Valid JSON with escaped lone surrogates (which Node writes) is read, compared and written
back escaped by every command path: never a protocol error, never a UnicodeEncodeError."""

from __future__ import annotations

import json

from click.testing import CliRunner

from conformance import jsonio
from conformance.cli.main import main
from conformance.judging.comparison import Difference, differences
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies import drafts
from conformance.maintenance.discrepancies.shrink import shrink
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, RunScope

LONE = b'{"text": "lone \\ud800 high", "low": "\\udc00"}'


def test_jsonio_reads_escaped_lone_surrogates_and_writes_them_escaped():
    value = jsonio.loads(LONE)
    assert value == {"text": "lone \ud800 high", "low": "\udc00"}
    assert jsonio.loads(jsonio.dumps(value)) == value
    assert b"\\ud800" in jsonio.dumps_line(value) and jsonio.dumps_line(value).endswith(b"\n")
    assert "\\udc00" in jsonio.dumps_pretty(value)
    jsonio.dumps_pretty(value).encode("utf-8")  # UTF-8 can hold what it writes


def test_jsonio_still_refuses_what_is_not_json(tmp_path):
    for bad in (b"NaN", b'{"a": "\\ud800",}', b"[1,"):
        try:
            jsonio.loads(bad)
        except jsonio.JSONDecodeError:
            continue
        raise AssertionError(f"accepted {bad!r}")


def test_values_with_lone_surrogates_are_compared():
    found = differences({"text": "a\ud800"}, {"text": "a\udc00"}, frozenset())
    assert [(d.path, d.expected, d.actual) for d in found] == [("$.text", "a\ud800", "a\udc00")]
    assert differences({"text": "a\ud800"}, jsonio.loads(b'{"text": "a\\ud800"}'),
                       frozenset()) == []


def test_an_answer_with_a_lone_surrogate_is_judged_and_reported(corpus_dir, fake, tmp_path):
    report = tmp_path / "run.jsonl"
    result = CliRunner().invoke(main, [
        "run", "--corpus", str(corpus_dir), "-q", "--impl",
        fake("surrogates", "--on", "small.gamma"), "--report", str(report)])
    assert result.exit_code == 1, result.output
    assert "small.gamma [context] fail" in result.stdout
    assert "protocol" not in result.stdout
    lines = [jsonio.loads(line) for line in report.read_bytes().splitlines()]
    failing = [line for line in lines if line.get("status") == "fail"]
    assert failing[0]["differences"][0]["actual"] == "lone \ud800 high"
    for fmt in ("terminal", "markdown", "html", "junit", "json"):
        rendered = CliRunner().invoke(main, ["render", str(report), "--format", fmt])
        assert rendered.exit_code in (0, 1), (fmt, rendered.output)  # 1: it shows a failure
        assert isinstance(rendered.exception, (SystemExit, type(None))), rendered.exception


def test_the_report_writer_escapes_lone_surrogates(tmp_path):
    path = tmp_path / "r.jsonl"
    with path.open("wb") as out:
        writer = reports.ReportWriter(out, reports.header(
            {"name": "port\ud800", "version": "1", "language": "python"}, {"stages": ["context"]},
            CorpusIdentity("corpus", "0", 1, "ab" * 32), RunScope()))
        writer.add(StageResult("a.b", "context", "fail", "x\udc00",
                               [Difference("$.t", "changed", "\ud800", "b")]))
        writer.close()
    report = reports.read_report(path)
    assert report.results[0].differences[0].expected == "\ud800"
    assert report.results[0].status == "fail"


def test_shrinking_a_session_with_lone_surrogates_writes_every_candidate(tmp_path):
    session = ('{"type":"session","version":3,"id":"s"}\n'
               '{"type":"message","id":"a","message":{"content":"x \\ud83d y","n":1}}\n'
               '{"type":"message","id":"b","message":{"content":"z"}}\n')
    scratch = tmp_path / "candidate.jsonl"

    def still_fails(text: str):
        scratch.write_text(text, encoding="utf-8")  # what Oracle does with each candidate
        return frozenset({("$.x", "changed")}) if "\\ud83d" in text else frozenset()

    found = shrink(session, still_fails, ("$.x", "changed"))
    assert "\\ud83d" in found.text and '"id":"b"' not in found.text
    assert json.loads(found.text.splitlines()[1])["message"]["content"] == "x \ud83d y"


def test_a_draft_with_lone_surrogates_can_be_written_as_utf8():
    entry = {"title": "t", "package": {"name": "p", "versions": ["1"]}, "status": "open",
             "stages": ["context"], "cases": ["a.b"], "expected_source": {"version": "1.6.0"},
             "signature": [["$.messages[*].content", "changed"]],
             "differences": [{"path": "$.x", "kind": "changed", "expected": "\ud800",
                              "actual": "b"}],
             "outputs": {"expected": {"output": "\udc00"}},
             "reproducer": {"session": "{}", "lines": 1, "source_case": "a.b", "shrunk": False},
             "commands": ["true"]}
    drafts.failure_draft(entry).encode("utf-8")
