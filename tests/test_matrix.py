"""The matrix: tables by implementation, stage and feature, and every failure with its diff."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import pytest
import report_fixtures

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus.cases import Corpus
from conformance.errors import ConformanceError
from conformance.execution.matrix import column_of, run_matrix, select_entries
from conformance.execution.plan import RunPlan
from conformance.implementations.known import lookup
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.reporting import matrix
from conformance.reporting.closest_release import closest_releases

CASE = "traps.two-timestamps"


def result(stage: str, status: str, **extra) -> StageResult:
    return StageResult(CASE, stage, status, **extra)


def column(spec: str, results: list[StageResult], stages: list[str]) -> matrix.Column:
    made = column_of(lookup(spec))
    made.report = report_fixtures.report(results, name=spec, stages=stages)
    return made


FAILING = result("stats", "fail", message="1 difference(s)", differences=[
    Difference("$.tokens.input", "changed", 10, 11)])


def sample() -> dict:
    corpus = Corpus()
    columns = [
        column("pi@1.6.0", [result("stats", "pass"), result("entries", "pass")],
               ["entries", "stats"]),
        column("ccusage-pi", [FAILING, result("entries", "skip")], ["stats"]),
        replace(column_of(lookup("pi-ai-python")), unavailable="could not install: pip failed"),
    ]
    return matrix.matrix_data(corpus, columns)


def test_the_matrix_json_matches_its_schema():
    schema = jsonio.read_json(SCHEMA_DIR / "matrix.schema.json")
    jsonschema.Draft202012Validator(schema).validate(json.loads(jsonio.dumps_pretty(sample())))


def test_cells_count_passed_over_judged_and_mark_unclaimed_stages():
    data = sample()
    reference, ccusage, _ = data["implementations"]
    assert matrix.cell_text(reference["stages"]["stats"], True) == "pass 1/1"
    assert matrix.cell_text(ccusage["stages"]["stats"], True) == "FAIL 0/1"
    assert matrix.cell_text(ccusage["stages"].get("entries"), False) == "—"
    assert ccusage["features"]["timestamps"] == {"pass": 0, "fail": 1, "error": 0, "skip": 1,
                                                 "info": 0, "as-documented": 0}


def test_as_documented_results_are_counted_but_not_judged():
    cell = {"pass": 2, "fail": 0, "error": 0, "skip": 0, "info": 0, "as-documented": 3}
    assert matrix.cell_text(cell, True) == "pass 2/2"
    cell = {"pass": 0, "fail": 0, "error": 0, "skip": 0, "info": 0, "as-documented": 1}
    assert matrix.cell_text(cell, True) == "as documented"
    data = matrix.matrix_data(Corpus(), [column("pi@1.6.0", [result("stats", "as-documented")],
                                                ["stats"])])
    assert data["implementations"][0]["counts"]["as-documented"] == 1
    assert data["implementations"][0]["verdict"] == "passed"
    assert "| as documented |" in matrix.markdown(data)


def test_every_failure_is_shown_with_its_readable_diff_in_markdown_and_html():
    data = sample()
    text, page = matrix.markdown(data), matrix.html_page(data)
    pages = matrix.failure_pages(data["implementations"][1])
    assert list(pages) == ["stats"]
    path, failures = pages["stats"]
    assert path == "failures/ccusage-pi@18.0.11/stats.md"
    assert f"[`stats`: 1]({path})" in text
    failure_page = matrix.failure_page(data["implementations"][1], "stats", failures)
    for rendered in (failure_page, page):
        assert "traps.two-timestamps [stats] fail" in rendered
        assert "$.tokens.input (changed)" in rendered
        assert "expected: 10" in rendered and "actual:   11" in rendered
    assert "| stats | pass 1/1 | FAIL 0/1 | n/a |" in text
    assert "Not run: could not install: pip failed" in text
    assert "<table>" in page


def test_failure_pages_are_written_and_old_ones_removed(tmp_path):
    (tmp_path / "failures" / "gone").mkdir(parents=True)
    written = matrix.write_matrix(sample(), tmp_path)
    assert tmp_path / "failures" / "ccusage-pi@18.0.11" / "stats.md" in written
    assert not (tmp_path / "failures" / "gone").exists()


def test_an_unavailable_implementation_has_only_its_reason():
    data = sample()
    item = data["implementations"][2]
    assert item["unavailable"].startswith("could not install")
    assert "counts" not in item


def test_select_entries_keeps_registry_order_and_rejects_unknown_names():
    chosen = select_entries(["ccusage-pi", "reference"])
    assert [e.spec for e in chosen] == ["pi@1.6.0", "ccusage-pi@18.0.11"]
    assert len(select_entries([])) >= 5
    with pytest.raises(ConformanceError, match="not a known implementation"):
        select_entries(["process:./x"])


def test_any_pi_release_named_joins_the_matrix_after_the_registry():
    """Before, a release not wired by hand (pi@1.3.0) was silently dropped from the matrix."""
    chosen = select_entries(["pi@1.5.2", "reference", "pi@1.3.0"])
    assert [e.spec for e in chosen] == ["pi@1.6.0", "pi@1.5.2", "pi@1.3.0"]


@pytest.mark.reference
def test_a_real_matrix_run_writes_reports_matrix_and_drift(tmp_path):
    from conformance.reporting.drift import drift_data, write_drift

    corpus = Corpus()
    cases = corpus.select(["traps.two-timestamps", "stats.*"])[:4]
    columns = run_matrix(corpus, select_entries(["pi@1.0.3", "ccusage-pi"]), tmp_path,
                         RunPlan(implementation=""), cases=cases)
    data = matrix.matrix_data(corpus, columns, cases)
    assert data["corpus"]["cases"] == len(cases) == 4
    written = matrix.write_matrix(data, tmp_path)
    written += write_drift(drift_data(corpus, columns), tmp_path)
    assert all(path.is_file() for path in written)
    assert (tmp_path / "implementations" / "pi@1.0.3.jsonl").is_file()
    # Each implementation's report is the canonical stream, valid line by line.
    validator = jsonschema.Draft202012Validator(jsonio.read_json(SCHEMA_DIR / "report.schema.json"))
    for lines in (tmp_path / "implementations").glob("*.jsonl"):
        for line in lines.read_text().splitlines():
            validator.validate(json.loads(line))
    header = json.loads((tmp_path / "implementations" / "ccusage-pi@18.0.11.jsonl")
                        .read_text().splitlines()[0])
    assert not header["corpus"]["root"].startswith("/")
    stored = json.loads((tmp_path / "matrix.json").read_text())
    assert [i["key"] for i in stored["implementations"]] == ["pi@1.0.3", "ccusage-pi@18.0.11"]
    # Only one Pi release ran: drift has nothing to compare, and says so by having no items.
    assert json.loads((tmp_path / "drift.json").read_text())["items"] == []


def test_a_port_shows_the_release_it_answers_like_most_often():
    """With two releases in the matrix, each port's column names its closest release, in the
    JSON (schema-valid) and in the Markdown's implementations table."""
    corpus = Corpus()
    out = {"output": {"tokens": {"input": 10}}}
    older = column("pi@1.3.0", [result("stats", "pass")], ["stats"])
    newer = column("pi@1.6.0", [result("stats", "pass")], ["stats"])
    port = column("ccusage-pi", [FAILING], ["stats"])
    newer.answers = {CASE: {"stats": {"output": {"tokens": {"input": 11}}}}}
    older.answers = {CASE: {"stats": out}}
    port.answers = {CASE: {"stats": out}}
    columns = [newer, port, older]
    data = matrix.matrix_data(corpus, columns, closest=closest_releases(corpus, columns))
    schema = jsonio.read_json(SCHEMA_DIR / "matrix.schema.json")
    jsonschema.Draft202012Validator(schema).validate(json.loads(jsonio.dumps_pretty(data)))
    item = next(i for i in data["implementations"] if i["key"] == "ccusage-pi@18.0.11")
    assert item["closest_release"]["release"] == "pi@1.3.0"
    assert "| pi@1.3.0 (1/1 equal) |" in matrix.markdown(data)
