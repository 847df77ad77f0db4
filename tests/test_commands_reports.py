"""The ``render`` command and ``run``'s ``--junit/--html/--markdown`` files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import report_fakes
import report_fixtures
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES

STAGES = len(DEFAULT_STAGES)  # a case's stages, every API's included


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(("output_format", "start"), [
    ("terminal", "compaction.basic [context] fail"),
    ("markdown", "## pi-conformance: demo-port 2.1.0"),
    ("junit", '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites'),
    ("html", "<!DOCTYPE html>"),
    ("json", "{"),
])
def test_render_writes_each_format_and_exits_1_for_a_failed_run(tmp_path, output_format, start):
    report = report_fixtures.write(tmp_path / "r.jsonl")
    out = tmp_path / "out" / f"report.{output_format}"
    result = cli("render", str(report), "--format", output_format, "-o", str(out))
    assert result.exit_code == 1
    assert out.read_text(encoding="utf-8").startswith(start)
    said = result.stderr.strip().splitlines()
    assert said == [f"wrote the {output_format} rendering of {report} (7 results, failed) "
                    f"to {out}"], said
    printed = cli("render", str(report), "--format", output_format)
    if output_format != "terminal":
        assert printed.output == out.read_text(encoding="utf-8")


def test_render_of_a_passing_run_exits_0(tmp_path):
    from conformance.judging.results import StageResult

    report = report_fixtures.write(tmp_path / "r.jsonl",
                                   result_list=[StageResult("a.b", "context", "pass")])
    result = cli("render", str(report), "--format", "json")
    assert result.exit_code == 0 and json.loads(result.output)["verdict"] == "passed"


def test_render_refuses_a_missing_or_broken_report_with_exit_2(tmp_path):
    missing = CliRunner().invoke(main, ["render", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2 and "none.jsonl: cannot read" in missing.output
    dup = tmp_path / "dup.jsonl"
    lines = report_fixtures.build()[1].splitlines(keepends=True)
    dup.write_bytes(b"".join([*lines[:2], lines[1], *lines[2:]]))
    result = CliRunner().invoke(main, ["render", str(dup)])
    assert result.exit_code == 2 and "dup.jsonl:3: duplicate result" in result.output


def test_one_run_writes_every_format(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(report_fakes.make_corpus(tmp_path)))
    impl = report_fakes.impl_file(tmp_path, "wrong")
    files = {name: tmp_path / "artifacts" / name for name in ("j.xml", "r.html", "s.md")}
    result = cli("run", "--impl", str(impl), "-q", "--report", str(tmp_path / "r.jsonl"),
                 "--junit", str(files["j.xml"]), "--html", str(files["r.html"]),
                 "--markdown", str(files["s.md"]))
    assert result.exit_code == 1
    root = ET.parse(files["j.xml"]).getroot()
    counts = (root.get("tests"), root.get("failures"), root.get("errors"))
    assert counts == (str(2 * STAGES), "2", "2")
    assert "stats: not implemented" in files["r.html"].read_text(encoding="utf-8")
    assert files["s.md"].read_text(encoding="utf-8").startswith(
        "## pi-conformance: fake-port 0.0.1\n\n**FAILED**")
    rendered = cli("render", str(tmp_path / "r.jsonl"), "--format", "junit")
    assert rendered.output == files["j.xml"].read_text(encoding="utf-8")


def test_run_format_json_prints_a_summary_valid_against_its_schema(tmp_path, monkeypatch):
    import jsonschema

    from conformance import jsonio
    from conformance._paths import SCHEMA_DIR

    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(report_fakes.make_corpus(tmp_path)))
    impl = report_fakes.impl_file(tmp_path, "replay")
    result = cli("run", "--impl", str(impl), "--format", "json")
    assert result.exit_code == 0
    summary = json.loads(result.output)
    jsonschema.validate(summary, jsonio.read_json(SCHEMA_DIR / "summary.schema.json"))
    assert (summary["results"], summary["passed"], summary["verdict"]) == (
        2 * STAGES, 2 * STAGES, "passed")


def _retyped(lines: list[bytes], number: int, change) -> bytes:
    import orjson

    line = orjson.loads(lines[number])
    change(line)
    return b"".join([*lines[:number], orjson.dumps(line) + b"\n", *lines[number + 1:]])


# Lines that are valid JSON with the wrong types: each once crashed render, diff or
# baseline --write with AttributeError, TypeError, KeyError or Jinja's UndefinedError.
WRONG_TYPES = [
    (0, lambda h: h.update(implementation="fake-port"), "field 'implementation' must be dict"),
    (0, lambda h: h.update(corpus={"root": 1}), "corpus: field 'root' must be str"),
    (0, lambda h: h["implementation"].pop("version"), "implementation: missing field 'version'"),
    (0, lambda h: h.update(selection={"cases": "a.*"}), "selection: field 'cases' must be list"),
    (1, lambda r: r.update(differences=[{"path": 1, "kind": "changed", "expected": 1,
                                         "actual": 2}]), "difference: field 'path' must be str"),
    (1, lambda r: r.update(differences={"a": 1}), "field 'differences' must be list"),
    (1, lambda r: r.update(message=["x"]), "field 'message' must be str"),
    (1, lambda r: r.update(duration="1s"), "field 'duration' must be int or float"),
    (1, lambda r: r.update(baseline={"state": "known"}), "baseline: missing field 'reason'"),
    (1, lambda r: r.update(case=7), "field 'case' must be str"),
    (1, lambda r: r.update(status=None), "field 'status' must be str"),
    (1, lambda r: r.update(error_kind="oops"), "field 'error_kind' is 'oops'"),
    (1, lambda r: r.update(extra=True), "unknown field(s) 'extra'"),
    (-1, lambda f: f.update(counts=[1]), "field 'counts' must be dict"),
    (-1, lambda f: f.update(stale_baseline=[{"case": "x"}]), "stale baseline entry: missing"),
    (-1, lambda f: f.update(verdict="great"), "field 'verdict' is 'great'"),
    (-1, lambda f: f.update(known="1"), "field 'known' must be int"),
]


@pytest.mark.parametrize("command", ["render", "render-html", "diff", "baseline"])
@pytest.mark.parametrize(("number", "change", "problem"), WRONG_TYPES)
def test_lines_with_wrong_types_are_exit_2_naming_the_line(tmp_path, command, number, change,
                                                           problem):
    lines = report_fixtures.build()[1].splitlines(keepends=True)
    number = number % len(lines)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(_retyped(lines, number, change))
    good = report_fixtures.write(tmp_path / "good.jsonl")
    args = {"render": ["render", str(bad)],
            "render-html": ["render", str(bad), "--format", "html"],
            "diff": ["diff", str(good), str(bad)],
            "baseline": ["baseline", "--write", str(bad)]}[command]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert f"bad.jsonl:{number + 1}: {problem}" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
