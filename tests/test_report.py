"""The canonical report stream: written by real runs, valid against its schemas, and read
back only when whole."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest
import report_fakes
import report_fixtures
from helpers import RunRequest, execute

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus.cases import Corpus
from conformance.corpus.stages import DEFAULT_STAGES
from conformance.reporting import model
from conformance.reporting import stream as reports

STAGES = len(DEFAULT_STAGES)  # a case's stages, every API's included


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = jsonio.read_json(SCHEMA_DIR / name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def assert_valid_stream(path: Path) -> list[dict]:
    lines = [orjson.loads(raw) for raw in path.read_bytes().splitlines()]
    check = validator("report.schema.json")
    for number, line in enumerate(lines, start=1):
        errors = [e.message for e in check.iter_errors(line)]
        assert not errors, f"line {number}: {errors}"
    return lines


@pytest.fixture
def corpus(tmp_path, monkeypatch) -> Corpus:
    root = report_fakes.make_corpus(tmp_path)
    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(root))
    return Corpus(root)


def run(corpus: Corpus, tmp_path: Path, fake: str, **kwargs) -> tuple[Path, model.Report]:
    path = tmp_path / f"{fake}.jsonl"
    outcome = execute(RunRequest(corpus=corpus, impl_spec=str(report_fakes.impl_file(
        tmp_path, fake)), report_path=path, **kwargs))
    return path, outcome.report


def test_a_real_run_writes_a_stream_valid_against_the_report_schema(corpus, tmp_path):
    path, report = run(corpus, tmp_path, "wrong")
    lines = assert_valid_stream(path)
    assert [line["type"] for line in lines] == ["header"] + ["result"] * 2 * STAGES + ["footer"]
    head = lines[0]
    assert head["runner"]["name"] == "pi-conformance"
    assert head["implementation"]["name"] == "fake-port"
    assert head["corpus"]["cases"] == 2 and len(head["corpus"]["sha256"]) == 64
    assert head["corpus"]["reference"] == [
        "@earendil-works/pi-agent-core@1.6.0 @earendil-works/pi-ai@1.6.0 "
        "@earendil-works/pi-coding-agent@1.6.0 node@22.23.3"]
    assert lines[-1]["counts"] == {"pass": 2 * STAGES - 4, "fail": 2, "error": 2, "skip": 0,
                                   "info": 0, "as-documented": 0}
    assert lines[-1]["verdict"] == "failed"
    again = reports.read_report(path)
    assert again.results == report.results and again.footer == report.footer


def test_the_schema_knows_every_status_and_error_kind():
    from conformance.judging.results import ERROR_KINDS, STATUSES

    defs = jsonio.read_json(SCHEMA_DIR / "report.schema.json")["$defs"]
    assert tuple(defs["status"]["enum"]) == STATUSES
    assert tuple(defs["result"]["properties"]["error_kind"]["enum"]) == ERROR_KINDS


def test_the_json_summary_is_valid_against_its_schema(corpus, tmp_path):
    _, report = run(corpus, tmp_path, "wrong")
    summary = model.summary(report)
    assert not list(validator("summary.schema.json").iter_errors(summary))
    assert (summary["passed"], summary["failed"], summary["errored"]) == (2 * STAGES - 4, 2, 2)
    assert summary["stages"]["context"]["failed"] == 2


def test_fixture_reports_with_baseline_states_are_valid_too(tmp_path):
    path = report_fixtures.write(
        tmp_path / "r.jsonl", hostile=True,
        known={("compaction.basic", "context"): {"state": "known", "reason": "r", "issue": ""},
               ("compaction.basic", "branch"): {"state": "stale", "reason": "r", "issue": ""}},
        stale_baseline=[{"case": "gone", "stage": "llm", "reason": "r", "issue": "",
                         "problem": "no such case in the corpus"}])
    assert_valid_stream(path)
    report = reports.read_report(path)
    assert report.failed() and report.footer.known == 1 and report.footer.stale == 1
    assert not list(validator("summary.schema.json").iter_errors(model.summary(report)))


@pytest.mark.slow
@pytest.mark.reference
def test_a_reference_run_is_valid_and_passes(tmp_path):
    from conformance.implementations import reference as ref

    if not ref.default_installation().is_complete():
        pytest.skip("the reference is not installed (pi-conformance reference install)")
    path = tmp_path / "ref.jsonl"
    # Answers of every kind (outputs, rejections) without the cases where Pi hangs for seconds.
    outcome = execute(RunRequest(corpus=Corpus(), impl_spec="reference", report_path=path,
                                 cases=("traps.*", "header.*"), jobs=2))
    lines = assert_valid_stream(path)
    assert {line.get("actual") for line in lines[1:-1]} == {"output", "rejected"}
    assert not outcome.failed


def test_the_stale_baseline_footer_fails_a_run_whose_results_all_pass(tmp_path):
    report, _ = report_fixtures.build(
        [], stale_baseline=[{"case": "x", "stage": "y", "reason": "r", "issue": "",
                             "problem": "no such case in the corpus"}])
    assert report.failed() and model.summary(report)["verdict"] == "failed"


# The reader refuses anything it cannot trust, naming the line.

def stream(tmp_path: Path) -> tuple[Path, list[bytes]]:
    _, raw = report_fixtures.build()
    return tmp_path / "r.jsonl", raw.splitlines(keepends=True)


@pytest.mark.parametrize(("mutate", "problem"), [
    (lambda ls: ls[:-1], "truncated: no footer"),
    (lambda ls: ls[:3], "truncated: no footer"),
    (lambda ls: [*ls[:3], ls[2], *ls[3:]], "duplicate result for traps.two-timestamps context"),
    (lambda ls: [*ls, ls[1]], "content after the footer"),
    (lambda ls: ls[:2] + ls[3:], "footer counts 7 results, the stream has 6"),
    (lambda ls: [ls[0].replace(b"report/1", b"report/9"), *ls[1:]], "must be a"),
    (lambda ls: ls[1:], "must be a"),
    (lambda ls: [ls[0], b'{"type": "result", "case": "a", "stage": "b", "status": "great"}\n',
                 *ls[1:]], "field 'status' is 'great', not one of pass, fail"),
    (lambda ls: [ls[0], b'{"type": "result", "stage": "b", "status": "pass"}\n', *ls[1:]],
     "missing field 'case'"),
    (lambda ls: [*ls[:1], b"{not json\n", *ls[1:]], "not JSON"),
    (lambda ls: [], "empty report"),
])
def test_the_reader_refuses_broken_streams(tmp_path, mutate, problem):
    path, lines = stream(tmp_path)
    path.write_bytes(b"".join(mutate(lines)))
    with pytest.raises(reports.ReportError, match=problem.replace("[", r"\[")) as info:
        reports.read_report(path)
    assert str(path) in str(info.value)


def test_a_footer_whose_status_counts_disagree_is_refused_with_its_line(tmp_path):
    path, lines = stream(tmp_path)
    footer = orjson.loads(lines[-1])
    footer["counts"]["pass"] += 1
    footer["counts"]["fail"] -= 1
    path.write_bytes(b"".join(lines[:-1]) + orjson.dumps(footer) + b"\n")
    with pytest.raises(reports.ReportError, match="footer counts 3 pass results") as info:
        reports.read_report(path)
    assert info.value.line == len(lines)


def test_interrupted_and_as_documented_lines_are_valid_and_read_back(tmp_path):
    from conformance.judging.results import StageResult

    path = report_fixtures.write(tmp_path / "r.jsonl", interrupted=True, result_list=[
        StageResult("a.case", "context", "as-documented", "Pi throws; the docs call it valid"),
        StageResult("a.case", "llm", "pass")])
    lines = assert_valid_stream(path)
    assert lines[-1]["verdict"] == "interrupted"
    assert lines[-1]["counts"]["as-documented"] == 1
    report = reports.read_report(path)
    assert report.interrupted and report.failed() and report.verdict == "interrupted"
    summary = model.summary(report)
    assert summary["as_documented"] == 1 and summary["verdict"] == "interrupted"
    assert not list(validator("summary.schema.json").iter_errors(summary))


def test_a_footer_written_before_as_documented_existed_is_still_read(tmp_path):
    path, lines = stream(tmp_path)
    footer = orjson.loads(lines[-1])
    del footer["counts"]["as-documented"]
    path.write_bytes(b"".join(lines[:-1]) + orjson.dumps(footer) + b"\n")
    assert len(reports.read_report(path).results) == 7


def test_the_model_writes_back_exactly_the_lines_it_read(tmp_path):
    _, raw = report_fixtures.build(hostile=True, known={
        ("compaction.basic", "context"): {"state": "known", "reason": "r", "issue": "i"}})
    path = tmp_path / "r.jsonl"
    path.write_bytes(raw)
    report = reports.read_report(path)
    again = b"".join(orjson.dumps(line.to_json(), option=orjson.OPT_APPEND_NEWLINE)
                     for line in (report.header, *report.results, report.footer))
    assert again == raw
