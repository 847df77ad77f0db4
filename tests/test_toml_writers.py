"""Every TOML file we write is written by tomli-w, so any text survives a round trip through
tomllib (a hand-written writer once wrote DEL, U+007F, raw: invalid TOML). Baselines have their
own property in test_baseline_write.py."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conformance.maintenance.captures.scenario import Scenario
from conformance.maintenance.captures.store import case_toml
from conformance.maintenance.fuzz import Finding, write_candidate

AWKWARD = "DEL \x7f, NUL \x00, tab \t, quote \" and backslash \\, ''' and \"\"\", \u2028 À"
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)


def scenario(title: str, api: str = "anthropic-messages") -> Scenario:
    return Scenario(name="demo", directory=Path("/nonexistent/demo"), title=title, api=api,
                    turns=(), steps=())


def state_files(model: dict, session_id: str = "sess-1", level: str = "off") -> dict[str, str]:
    return {"get_state.json": json.dumps({"model": model, "sessionId": session_id,
                                          "thinkingLevel": level}),
            "get_entries.json": json.dumps({"entries": []}),
            "events.jsonl": ""}


def test_a_capture_case_with_a_del_character_is_valid_toml():
    text = case_toml(scenario(f"a title with {AWKWARD}"),
                     state_files({"id": "fake-model", "name": AWKWARD}, level="high"))
    meta = tomllib.loads(text)
    assert meta["title"] == f"Captured: a title with {AWKWARD}"
    request = meta["options"]["request"]
    assert request["models"]["anthropic-messages"] == {"id": "fake-model", "name": AWKWARD}
    assert (request["catalog"], request["sessionId"], request["reasoning"]) == (
        False, "sess-1", "high")


@given(title=texts, model_value=texts, session_id=texts)
def test_any_text_round_trips_through_a_capture_case(title, model_value, session_id):
    model = {"id": "m", "weird key \x7f": model_value, "cost": {"input": 1.5, "cached": 0}}
    meta = tomllib.loads(case_toml(scenario(title), state_files(model, session_id)))
    assert meta["title"] == "Captured: " + title
    assert meta["options"]["request"]["models"]["anthropic-messages"] == model
    assert meta["options"]["request"]["sessionId"] == session_id
    assert "reasoning" not in meta["options"]["request"]


@given(what=texts, impl_name=texts, command=texts)
def test_any_text_round_trips_through_a_fuzz_candidate(tmp_path_factory, what, impl_name,
                                                       command):
    out = tmp_path_factory.mktemp("out")
    finding = Finding(session=b'{"type":"session"}\n', key="k", stages={"context": what})
    directory = write_candidate(finding, out, impl_name, command, ["context", "entries"])
    meta = tomllib.loads((directory / "case.toml").read_text(encoding="utf-8"))
    assert meta["id"] == "fuzz." + directory.name
    assert meta.get("source", "") == command  # an empty source is left out, as every default
    assert meta["stages"] == ["context", "entries"]
    assert f"context: {what}" in meta["description"]
    assert impl_name in meta["title"]
