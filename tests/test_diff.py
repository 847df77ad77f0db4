"""``pi-conformance diff A B``: new failures, fixes, cases and stages added or removed."""

from __future__ import annotations

import json

import jsonschema
import report_fixtures
from click.testing import CliRunner

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.cli.main import main
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.reporting.rundiff import compare, text

BEFORE = [
    StageResult("a.case", "entries", "pass"),
    StageResult("a.case", "context", "fail", "1 difference(s)",
                [Difference("$.x", "changed", 1, 2)]),
    StageResult("a.case", "stats", "error", "crashed"),
    StageResult("b.case", "context", "pass"),
    StageResult("b.case", "llm", "pass"),
    StageResult("gone.case", "context", "pass"),
]
AFTER = [
    StageResult("a.case", "entries", "fail", "1 difference(s)"),      # new failure
    StageResult("a.case", "context", "pass"),                           # fixed
    StageResult("a.case", "stats", "fail", "1 difference(s)"),          # still failing, differently
    StageResult("b.case", "context", "skip", "stage not claimed"),     # other change
    StageResult("b.case", "prompt", "pass"),                            # stage added (llm removed)
    StageResult("new.case", "context", "error", "timeout"),             # case added, failing
]


def reports():
    return report_fixtures.build(BEFORE)[0], report_fixtures.build(AFTER)[0]


def keys(entries):
    return [(e["case"], e["stage"]) for e in entries]


def test_every_kind_of_change_is_sorted_into_its_place():
    result = compare(*reports())
    assert keys(result["new_failures"]) == [("a.case", "entries"), ("new.case", "context")]
    assert keys(result["fixed"]) == [("a.case", "context")]
    assert keys(result["changed_failures"]) == [("a.case", "stats")]
    assert keys(result["other_changes"]) == [("b.case", "context")]
    assert result["cases_added"] == ["new.case"] and result["cases_removed"] == ["gone.case"]
    assert keys(result["stages_added"]) == [("b.case", "prompt")]
    assert keys(result["stages_removed"]) == [("b.case", "llm")]
    assert result["counts"] == {"a": {"results": 6, "failing": 2},
                                "b": {"results": 6, "failing": 3}}
    assert result["new_failures"][0] == {"case": "a.case", "stage": "entries", "before": "pass",
                                         "after": "fail", "message": "1 difference(s)"}
    assert result["verdict"] == "regressed"


def test_same_runs_have_no_changes():
    a, _ = reports()
    result = compare(a, a)
    assert not any(result[k] for k in ("new_failures", "fixed", "changed_failures",
                                       "other_changes", "cases_added", "cases_removed",
                                       "stages_added", "stages_removed"))
    assert result["verdict"] == "no new failures"


def test_a_failure_listed_in_the_baseline_is_still_a_new_failure():
    a = report_fixtures.build([StageResult("a.case", "context", "pass")])[0]
    b = report_fixtures.build([StageResult("a.case", "context", "fail")], known={
        ("a.case", "context"): {"state": "known", "reason": "r", "issue": ""}})[0]
    assert keys(compare(a, b)["new_failures"]) == [("a.case", "context")]


def test_the_text_form_lists_sections_and_a_total():
    out = text(compare(*reports()))
    assert out.startswith("A: demo-port 2.1.0, corpus 0.1.0 (abababababab, 3 cases)")
    assert "new failures (2):\n  a.case [entries] pass -> fail: 1 difference(s)\n" \
           "  new.case [context] - -> error: timeout\n" in out
    assert "fixed (1):\n  a.case [context] fail -> pass: 1 difference(s)\n" in out
    assert "cases removed (1):\n  gone.case\n" in out
    assert out.endswith("2 new failure(s), 1 fixed; failing 2/6 -> 3/6\n")


def test_the_command_exits_1_on_new_failures_and_0_otherwise(tmp_path):
    a = report_fixtures.write(tmp_path / "a.jsonl", result_list=BEFORE)
    b = report_fixtures.write(tmp_path / "b.jsonl", result_list=AFTER)
    runner = CliRunner()
    regressed = runner.invoke(main, ["diff", str(a), str(b), "--format", "json"])
    assert regressed.exit_code == 1, regressed.output
    data = json.loads(regressed.output)
    jsonschema.validate(data, jsonio.read_json(SCHEMA_DIR / "diff.schema.json"))
    assert len(data["new_failures"]) == 2
    improved = runner.invoke(main, ["diff", str(b), str(a)])
    assert improved.exit_code == 1  # b -> a re-breaks a.case context
    same = runner.invoke(main, ["diff", str(a), str(a)])
    assert same.exit_code == 0 and "0 new failure(s), 0 fixed" in same.output


def test_the_command_refuses_a_truncated_report_without_a_traceback(tmp_path):
    a = report_fixtures.write(tmp_path / "a.jsonl", result_list=BEFORE)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(a.read_bytes().splitlines(keepends=True)[:-1]))
    result = CliRunner().invoke(main, ["diff", str(a), str(cut)])
    assert result.exit_code == 2
    assert "cut.jsonl: truncated: no footer" in result.output
    assert "Traceback" not in result.output


def test_a_failure_now_as_documented_is_fixed_and_an_interrupted_run_is_named(tmp_path):
    a = report_fixtures.build([StageResult("a.case", "context", "fail")])[0]
    b = report_fixtures.build([StageResult("a.case", "context", "as-documented")],
                              interrupted=True)[0]
    result = compare(a, b)
    assert keys(result["fixed"]) == [("a.case", "context")]
    assert result["b"]["interrupted"] and not result["a"]["interrupted"]
    jsonschema.validate(json.loads(json.dumps(result)),
                        jsonio.read_json(SCHEMA_DIR / "diff.schema.json"))
    assert text(result).splitlines()[1].endswith("(INTERRUPTED: the run did not finish)")
