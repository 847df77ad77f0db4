"""The ``render`` command and ``run``'s ``--junit/--html/--markdown`` files."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import report_fakes
import report_fixtures
from click.testing import CliRunner

from conformance.cli.main import main


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
    printed = cli("render", str(report), "--format", output_format)
    if output_format != "terminal":
        assert printed.output == out.read_text(encoding="utf-8")


def test_render_of_a_passing_run_exits_0(tmp_path):
    from conformance.judging.verdicts import StageResult

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
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("22", "2", "2")
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
    assert (summary["results"], summary["passed"], summary["verdict"]) == (22, 22, "passed")
