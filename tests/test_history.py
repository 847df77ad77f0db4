"""history: each behaviour of the newest release, under the release it first appeared in."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.reporting.history import history_data, markdown

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
    text = markdown(data)
    assert "## Since pi@1.5.2 (2 case-stage behaviours)" in text
    assert "`request.x`: `$.betas` changed (pi@1.5.0 answered otherwise), in 2 case(s)" in text


def test_the_shipped_history_is_valid_and_covers_every_drift_of_the_newest_release():
    out = REPO / "reports" / "history"
    data = json.loads((out / "history.json").read_text())
    schema = json.loads((REPO / "conformance" / "schemas" / "history.schema.json").read_text())
    jsonschema.validate(data, schema)
    drifting = {(i["case"], i["stage"]) for i in json.loads((out / "drift.json").read_text())
                ["items"] if i["verdict"] == "drift" and i["groups"][0][0] == data["releases"][0]
                and len(i["groups"]) > 1}
    dated = [(case, change["stage"]) for change in data["changes"] for case in change["cases"]]
    assert len(dated) == len(set(dated)) and set(dated) == drifting
    assert data == history_data(json.loads((out / "drift.json").read_text()))


def test_the_command_writes_it_from_a_drift_report(tmp_path: Path):
    result = CliRunner().invoke(main, ["corpus", "history", "--from-drift",
                                       str(REPO / "reports" / "history" / "drift.json"),
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "history.md").read_text().startswith("# pi-conformance: Pi's behaviour")
