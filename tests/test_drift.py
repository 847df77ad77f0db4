"""Drift: which Pi releases agree with which, case by case and stage by stage."""

from __future__ import annotations

import jsonschema
import report_fixtures

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus.cases import Corpus
from conformance.execution.matrix import column_of
from conformance.implementations.known import lookup
from conformance.reporting import drift
from conformance.reporting.matrix import Column

CASE = "traps.two-timestamps"


def release(spec: str, answers: dict[str, dict]) -> Column:
    column = column_of(lookup(spec))
    column.report = report_fixtures.report([], name=spec, stages=list(answers))
    column.answers = {CASE: answers}
    return column


def sample() -> dict:
    newest = release("pi@1.6.0", {"stats": {"output": {"cost": 1}},
                                  "prompt": {"output": {"text": "a"}},
                                  "entries": {"output": {"n": 1}}})
    middle = release("pi@1.0.3", {"stats": {"output": {"cost": 1}},
                                  "prompt": {"output": {"text": "b"}},
                                  "entries": {"output": {"n": 1}}})
    oldest = release("pi-mariozechner@0.73.1", {"stats": {"output": {"cost": 2}},
                                                "prompt": {"skipped": "not available"},
                                                "entries": {"rejected": {"message": "bad"}}})
    return drift.drift_data(Corpus(), [oldest, newest, middle])


def item(data: dict, stage: str) -> dict:
    return next(i for i in data["items"] if i["stage"] == stage)


def test_releases_are_ordered_newest_first_and_grouped_by_equal_answers():
    data = sample()
    assert [r["key"] for r in data["releases"]] == ["pi@1.6.0", "pi@1.0.3",
                                                    "pi-mariozechner@0.73.1"]
    assert item(data, "stats")["groups"] == [["pi@1.6.0", "pi@1.0.3"],
                                             ["pi-mariozechner@0.73.1"]]


def test_a_release_without_the_stage_is_not_available_not_disagreeing():
    prompt = item(sample(), "prompt")
    assert prompt["not_available"] == ["pi-mariozechner@0.73.1"]
    assert prompt["groups"] == [["pi@1.6.0"], ["pi@1.0.3"]]


def test_differences_are_labelled_with_the_releases():
    lines = item(sample(), "stats")["against_newest"]["pi-mariozechner@0.73.1"]["lines"]
    assert lines[0] == f"{CASE} [stats] pi@1.6.0 = pi@1.0.3 vs pi-mariozechner@0.73.1"
    assert "$.cost (changed)" in lines[1]
    assert lines[2].split() == ["pi@1.6.0:", "1"]
    assert lines[3].split() == ["pi-mariozechner@0.73.1:", "2"]


def test_an_answer_against_a_rejection_is_drift_with_both_named():
    entries = item(sample(), "entries")
    assert entries["verdict"] == "drift"
    line = entries["against_newest"]["pi-mariozechner@0.73.1"]["lines"][0]
    assert line.endswith("output vs rejected: bad")


def test_pair_counts_and_schema():
    data = sample()
    pairs = {(p["a"], p["b"]): (p["compared"], p["agree"]) for p in data["pairs"]}
    assert pairs[("pi@1.6.0", "pi@1.0.3")] == (3, 2)
    jsonschema.Draft202012Validator(
        jsonio.read_json(SCHEMA_DIR / "drift.schema.json")).validate(data)
    assert "| `stats` | 0 | 1 | [drift/stats.md](drift/stats.md) |" in drift.markdown(data)
    page = drift.stage_page(data, "stats")
    assert "| traps.two-timestamps | pi@1.6.0 = pi@1.0.3 ≠ pi-mariozechner@0.73.1 |" in page
    assert "$.cost (changed)" in page


def test_pages_are_written_only_for_stages_that_drift(tmp_path):
    written = drift.write_drift(sample(), tmp_path)
    assert {p.name for p in written} == {"drift.json", "drift.md", "stats.md", "prompt.md",
                                         "entries.md"}
    (tmp_path / "drift" / "old.md").write_text("stale")
    drift.write_drift(sample(), tmp_path)
    assert not (tmp_path / "drift" / "old.md").exists()


def test_the_written_json_keeps_paths_but_not_the_rendered_lines(tmp_path):
    drift.write_drift(sample(), tmp_path)
    stored = jsonio.read_json(tmp_path / "drift.json")
    jsonschema.Draft202012Validator(
        jsonio.read_json(SCHEMA_DIR / "drift.schema.json")).validate(stored)
    stats = next(i for i in stored["items"] if i["stage"] == "stats")
    assert stats["against_newest"]["pi-mariozechner@0.73.1"] == {"differences": 1,
                                                                 "paths": ["$.cost"]}
