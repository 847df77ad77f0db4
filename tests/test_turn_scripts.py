"""Turn scripts by construction: the same script for the same case, every kind of turn, the
replies encoded per API, and only cases a turn can run over."""

from __future__ import annotations

import json
from collections import Counter

from conformance.corpus.cases import Corpus
from conformance.corpus.turns import APIS
from conformance.maintenance.turn_scripts import KINDS, _choice, chosen, eligible, script_for


def test_a_case_always_gets_the_same_script() -> None:
    assert script_for("content.x").request() == script_for("content.x").request()
    assert script_for("content.x").sha256() != script_for("content.y").sha256() or \
        _choice("content.x") == _choice("content.y")


def test_every_kind_has_its_prompts_replies_and_tools() -> None:
    ids = [f"case.{n}" for n in range(200)]
    by_kind = {}
    for case_id in ids:
        by_kind.setdefault(_choice(case_id)[1], script_for(case_id))
    assert set(by_kind) == set(KINDS)
    assert [len(by_kind[k].responses) for k in KINDS] == [1, 1, 2, 2, 2]
    assert by_kind["two-prompts"].prompts == ("Hi.", "Again.")
    assert by_kind["thinking"].thinking_level == "low"
    assert by_kind["tool"].tools[0].results[0].update == "..."
    assert by_kind["tool-error"].tools[0].results[0].is_error
    assert Counter(_choice(i)[0] for i in ids).keys() == set(APIS)


def test_replies_are_encoded_for_their_api() -> None:
    for case_id in (f"c.{n}" for n in range(40)):
        script = script_for(case_id)
        body = script.responses[-1].body.decode()
        marker = {"anthropic-messages": "event: message_stop",
                  "openai-completions": "data: [DONE]",
                  "openai-responses": "response.completed",
                  "google-generative-ai": '"finishReason":"STOP"'}[script.api]
        assert marker in body, (case_id, script.api)
        json.dumps(script.request())  # plain JSON all through


def test_only_cases_a_turn_can_run_over_are_chosen_spread_over_the_areas() -> None:
    corpus = Corpus()
    picked = chosen(corpus.cases, 3)
    assert picked == chosen(corpus.cases, 3)
    assert all(eligible(case) for case in picked)
    assert not any(case.id.startswith("captured.") or case.outcome != "required"
                   for case in picked)
    assert max(Counter(case.id.split(".")[0] for case in picked).values()) == 3
