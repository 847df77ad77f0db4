"""history: each behaviour of the newest release, under the release it first appeared in."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.reporting.history import history_data, json_text, markdown
from conformance.reporting.history_causes import in_words

REPO = Path(__file__).resolve().parent.parent
RELEASES = ["pi@1.6.0", "pi@1.5.2", "pi@1.5.0", "pi@1.0.3", "pi-mariozechner@0.73.1"]


def item(case: str, stage: str, groups: list[list[str]], paths: dict[str, list[str]],
         not_available: tuple[str, ...] = ()) -> dict[str, object]:
    return {"case": case, "stage": stage, "groups": groups,
            "not_available": list(not_available),
            "verdict": "drift" if len(groups) > 1 else "agree",
            "against_newest": {" = ".join(group): {"differences": 1, "paths": paths[group[0]]}
                               for group in groups[1:]}}


def drift(*items: dict[str, object]) -> dict[str, object]:
    return {"releases": [{"key": key} for key in RELEASES], "items": list(items)}


def test_a_behaviour_is_dated_by_the_oldest_release_in_the_newest_run_that_answers_alike():
    data = history_data(drift(
        item("a", "request.x", [["pi@1.6.0", "pi@1.5.2"], ["pi@1.5.0", "pi@1.0.3"]],
             {"pi@1.5.0": ["$.betas"]}),
        item("b", "request.x", [["pi@1.6.0", "pi@1.5.2"], ["pi@1.5.0"]],
             {"pi@1.5.0": ["$.betas"]}, not_available=("pi@1.0.3",)),
        item("c", "llm", [["pi@1.6.0"], ["pi@1.5.2", "pi@1.5.0"], ["pi-mariozechner@0.73.1"]],
             {"pi@1.5.2": ["$[0].role"], "pi-mariozechner@0.73.1": ["$"]}),
        item("d", "entries", [RELEASES], {}),
    ))
    assert data["changes"] == [
        {"since": "pi@1.6.0", "before": "pi@1.5.2", "stage": "llm", "paths": ["$[0].role"],
         "cases": ["c"]},
        {"since": "pi@1.5.2", "before": "pi@1.5.0", "stage": "request.x", "paths": ["$.betas"],
         "cases": ["a", "b"]},
    ]
    assert data["behaviours"] == [
        {"case": "a", "stage": "request.x", "groups": [[0, 1], [2, 3]], "since": 1},
        {"case": "b", "stage": "request.x", "groups": [[0, 1], [2]], "since": 1},
        {"case": "c", "stage": "llm", "groups": [[0], [1, 2], [4]], "since": 0},
    ]
    text = markdown(data)
    assert "## Since pi@1.5.2 (1 change(s); pi@1.5.0 answered otherwise)" in text
    assert "- `$.betas` in the SDK parameters of x: in 2 case(s), e.g. `a`, `b`" in text


def _changes(*items: dict[str, object]) -> list[dict[str, object]]:
    return history_data(drift(*items))["causes"]


NEW, OLD = [["pi@1.6.0", "pi@1.5.2"], ["pi@1.5.0"]], {"pi@1.5.0": []}


def test_a_change_on_a_request_and_its_http_body_in_the_same_cases_is_one_cause():
    causes = _changes(
        item("a", "request.x", NEW, {"pi@1.5.0": ["$.betas"]}),
        item("b", "request.x", NEW, {"pi@1.5.0": ["$.betas"]}),
        item("a", "wire.x", NEW, {"pi@1.5.0": ["$.body.betas", '$.headers["x-beta"]']}),
        item("b", "wire.x", NEW, {"pi@1.5.0": ["$.body.betas", '$.headers["x-beta"]']}),
        item("c", "request.y", NEW, {"pi@1.5.0": ["$.other"]}))
    assert [(c["stages"], c["fields"], c["cases"]) for c in causes] == [
        (["request.x", "wire.x"], ["$.betas", '$.headers["x-beta"]'], ["a", "b"]),
        (["request.y"], ["$.other"], ["c"])]
    assert in_words(causes[0]) == ('`$.betas`, `$.headers["x-beta"]` in the SDK parameters '
                                   'and HTTP request of x')


def test_positions_in_a_list_are_one_field_and_providers_alike_are_one_cause():
    causes = _changes(
        item("a", "request.x", NEW, {"pi@1.5.0": ["$.messages[2].content"]}),
        item("b", "request.x", NEW, {"pi@1.5.0": ["$.messages[4].content"]}),
        item("a", "request.y", NEW, {"pi@1.5.0": ["$.messages[2].content"]}),
        item("b", "request.y", NEW, {"pi@1.5.0": ["$.messages[4].content"]}),
        item("a", "llm", NEW, {"pi@1.5.0": ["$[0].content"]}))
    assert [(c["surfaces"], c["fields"], c["behaviours"]) for c in causes] == [
        (["x", "y"], ["$.messages[*].content"], 4), (["llm"], ["$[*].content"], 1)]


def test_changes_at_other_release_boundaries_or_in_other_cases_stay_apart():
    older = [["pi@1.6.0", "pi@1.5.2", "pi@1.5.0"], ["pi@1.0.3"]]
    causes = _changes(
        item("a", "request.x", NEW, {"pi@1.5.0": ["$.f"]}),
        item("b", "request.x", older, {"pi@1.0.3": ["$.f"]}),
        item("c", "request.y", NEW, {"pi@1.5.0": ["$.f"]}),
        item("d", "request.y", NEW, {"pi@1.5.0": ["$.f"]}))
    assert sorted((c["since"], c["surfaces"], c["cases"]) for c in causes) == [
        ("pi@1.5.0", ["x"], ["b"]), ("pi@1.5.2", ["x"], ["a"]), ("pi@1.5.2", ["y"], ["c", "d"])]


def test_the_shipped_history_is_valid_and_dates_every_behaviour_once():
    """Every (case, stage) on which an older release answers otherwise than the newest is in
    exactly one change, under the release its behaviours say, and in one cause."""
    out = REPO / "reports" / "history"
    data = json.loads((out / "history.json").read_text())
    schema = json.loads((REPO / "conformance" / "schemas" / "history.schema.json").read_text())
    jsonschema.validate(data, schema)
    releases = data["releases"]
    # issue 30: thirty releases or more, with the whole 1.x line, 0.74 to 0.8x and the
    # @mariozechner line (reports/history/README.md: 33 ran; pi@0.85.0 cannot start)
    assert len(releases) >= 30
    assert {"pi@1.6.0", "pi@1.5.2", "pi@1.5.0", "pi@1.4.0", "pi@1.3.0", "pi@1.0.3"} <= set(releases)
    minors = {r.split("@")[1].rsplit(".", 1)[0] for r in releases if r.startswith("pi@0.")}
    assert {"0.74", "0.75", "0.79", "0.80", "0.84", "0.85", "0.87"} <= minors
    assert sum(1 for r in releases if r.startswith("pi-mariozechner@")) >= 3
    behaviours = {(b["case"], b["stage"]): releases[b["since"]] for b in data["behaviours"]}
    dated = [((case, change["stage"]), change["since"]) for change in data["changes"]
             for case in change["cases"]]
    assert len(dated) == len(set(dated)) and dict(dated) == behaviours
    assert sum(cause["behaviours"] for cause in data["causes"]) == len(behaviours)
    text = (out / "history.md").read_text()
    assert all(f"`{release}`" in text for release in releases)


def test_the_shipped_history_dates_every_change_the_shipped_drift_report_shows():
    """reports/drift.md compares the pinned release with two older ones: every (case, stage)
    where an older one answers otherwise than the newest is dated by the history after that
    release (a change since it, in one of the causes), none is lost in the longer run."""
    history = json.loads((REPO / "reports" / "history" / "history.json").read_text())
    drift = json.loads((REPO / "reports" / "drift.json").read_text())
    releases = history["releases"]
    newest = drift["releases"][0]["key"]
    assert releases[0] == newest
    dated = {(case, change["stage"]): releases.index(change["since"])
             for change in history["changes"] for case in change["cases"]}
    in_causes = {(case, stage) for cause in history["causes"] for case in cause["cases"]
                 for stage in cause["stages"]}
    for old in (release["key"] for release in drift["releases"][1:]):
        assert old in releases
        shown = 0
        for item in drift["items"]:
            groups = item["groups"]
            if not any(old in group for group in groups) or any(
                    old in group and newest in group for group in groups):
                continue
            key = (item["case"], item["stage"])
            shown += 1
            assert key in dated, f"{key}: {old} answers otherwise, the history says nothing"
            assert dated[key] < releases.index(old), f"{key}: dated before {old}"
            assert key in in_causes
        # reports/drift.md: 2,716 (case, stage) where pi@1.0.3 answers otherwise than
        # pi@1.6.0, 6,742 where pi-mariozechner@0.73.1 does
        assert shown > 1000


def test_the_json_has_one_item_a_line_and_reads_back_the_same(tmp_path: Path):
    data = history_data(drift(
        item("a", "request.x", [["pi@1.6.0", "pi@1.5.2"], ["pi@1.5.0"]],
             {"pi@1.5.0": ["$.betas"]})))
    text = json_text(data)
    assert json.loads(text) == data
    assert '\n    {"case":"a","stage":"request.x","groups":[[0,1],[2]],"since":1}\n' in text


def test_the_command_writes_it_from_a_drift_report(tmp_path: Path):
    source = tmp_path / "drift.json"
    source.write_text(json.dumps(drift(
        item("a", "request.x", [["pi@1.6.0", "pi@1.5.2"], ["pi@1.5.0"]],
             {"pi@1.5.0": ["$.betas"]}))))
    result = CliRunner().invoke(main, ["corpus", "history", "--from-drift", str(source),
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "history.md").read_text().startswith("# pi-conformance: Pi's behaviour")
