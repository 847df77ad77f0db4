"""The ``coverage`` command: tables for people, JSON for machines, CI exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conformance.cli.main import main
from tests.corpus_builder import CLAUSES, write_corpus


def corpus_dir(tmp_path: Path, clauses: list[str]) -> Path:
    cited = ", ".join(f'"{c}"' for c in clauses)
    return write_corpus(tmp_path, CLAUSES, {
        "area/a": f'features = ["basic"]\nclauses = [{cited}]\nstages = ["entries"]\n'})


def test_terminal_output_lists_uncovered_clauses(tmp_path: Path):
    result = CliRunner().invoke(main, ["corpus", "coverage", "--corpus",
                                       str(corpus_dir(tmp_path, ["demo/one"]))])
    assert result.exit_code == 0, result.output
    assert "1/3 clauses covered by 1 case(s)" in result.output
    assert "2 uncovered clause(s)" in result.output
    assert "demo/three" in result.output and "demo/two" in result.output
    assert "Stages by cases" in result.output and "Features by cases" in result.output


def test_json_output(tmp_path: Path):
    result = CliRunner().invoke(main, ["corpus", "coverage", "--format", "json", "--corpus",
                                       str(corpus_dir(tmp_path, ["demo/one", "demo/two"]))])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["clauses_total"], data["clauses_covered"], data["cases"]) == (3, 2, 1)
    assert data["stages"]["entries"] == 1 and data["stages"]["context"] == 0


def test_fail_uncovered_sets_the_exit_code(tmp_path: Path):
    some = corpus_dir(tmp_path / "some", ["demo/one"])
    every = corpus_dir(tmp_path / "every", ["demo/one", "demo/two", "demo/three"])
    runner = CliRunner()
    assert runner.invoke(main, ["corpus", "coverage", "--fail-uncovered", "--corpus", str(some)]
                         ).exit_code == 1
    assert runner.invoke(main, ["corpus", "coverage", "--fail-uncovered", "--corpus", str(every)]
                         ).exit_code == 0


def test_a_broken_case_is_a_clear_error(tmp_path: Path):
    root = corpus_dir(tmp_path, ["demo/one"])
    (root / "cases" / "area" / "a" / "case.toml").write_text("id = [")
    result = CliRunner().invoke(main, ["corpus", "coverage", "--corpus", str(root)])
    assert result.exit_code == 2
    assert "case.toml" in result.output and "not valid TOML" in result.output
    assert "Traceback" not in result.output
