"""The events stage of the cases with a turn script: a live turn of Pi's agent session, its
lifecycle events, the entries it appends, and the replayed file against the live state.

Planted event consumer ports (tests/fakes/planted_event_bugs.py) prove the judging: one that
persists the ``pending`` snapshot of ``message_start`` fails with that reason; one that shows
tool results from the live stream but not from a replayed file is caught on every case whose
conversation has one.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from helpers import run_spec

from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.selection import Selection
from conformance.judging.volatility import CHECK_VARIATION, VARIATIONS
from conformance.maintenance.turn_scripts import KINDS, _choice, script_for

FAKE = Path(__file__).resolve().parent / "fakes" / "planted_event_bugs.py"
EVENTS = Selection(stages=("events",))


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus()


@pytest.fixture(scope="module")
def turn_cases(corpus: Corpus) -> list[str]:
    return [case.id for case in corpus.cases if case.turn is not None]


def port(corpus: Corpus, *bug: str) -> str:
    return "process:" + shlex.join([sys.executable, str(FAKE), str(corpus.root), *bug])


def test_at_least_150_cases_beyond_the_captured_ones_have_a_live_turn_golden(corpus):
    cases = [case for case in corpus.cases if case.turn is not None]
    assert len(cases) >= 150
    assert not any(case.id.startswith("captured.") for case in cases)
    for case in cases:
        assert "events" in case.stages and "events" not in case.captured_stages
        golden = read_golden(case, "events")
        assert golden.provenance["turns_sha256"] == case.turn.sha256(), case.id
        output = golden.answer.value  # type: ignore[union-attr]
        assert set(output) == {"events", "appended", "context", "live"}, case.id
        kinds = [event["type"] for event in output["events"]]
        assert kinds[0] == "agent_start" and "agent_end" in kinds, case.id
        assert kinds.count("agent_start") == len(case.turn.prompts), case.id


def test_the_captured_cases_keep_their_cli_golden(corpus):
    captured = [case for case in corpus.cases if case.id.startswith("captured.")]
    assert captured and all(case.turn is None for case in captured)
    with_events = [case for case in captured if "events" in case.stages]
    assert with_events and all(case.captured_stages == ("events",) for case in with_events)


def test_every_turn_script_is_the_builders_and_every_kind_and_api_is_used(corpus, turn_cases):
    """The scripts are written by maintenance/turn_scripts.py, never by hand."""
    by_id = {case.id: case for case in corpus.cases}
    for case_id in turn_cases:
        assert by_id[case_id].turn.request() == script_for(case_id).request(), case_id
    chosen = {_choice(case_id) for case_id in turn_cases}
    assert {kind for _, kind in chosen} == set(KINDS)
    assert len({api for api, _ in chosen}) == 4


def test_goldens_stay_small(corpus, turn_cases):
    by_id = {case.id: case for case in corpus.cases}
    sizes = [by_id[c].expected_path("events").stat().st_size for c in turn_cases]
    assert max(sizes) < 120_000 and sum(sizes) < 12_000_000


def test_a_right_event_port_passes_and_is_sent_each_cases_turns(corpus, turn_cases):
    outcome = run_spec(corpus, port(corpus), selection=EVENTS, validate_protocol=True)
    results = {r.case: r for r in outcome.results if r.stage == "events"}
    assert {results[c].status for c in turn_cases} == {"pass"}, [
        (c, results[c].message) for c in turn_cases if results[c].status != "pass"]


def test_persisting_the_pending_snapshot_fails_with_that_reason(corpus, turn_cases):
    outcome = run_spec(corpus, port(corpus, "--bug", "pending"), selection=EVENTS)
    results = {r.case: r for r in outcome.results if r.stage == "events"}
    for case in turn_cases:
        assert results[case].status == "fail", case
        assert results[case].message.startswith(
            "a pending assistant message would be persisted ($.output.appended["), case


def test_a_renderer_that_loses_tool_results_on_replay_is_caught(corpus, turn_cases):
    by_id = {case.id: case for case in corpus.cases}

    def has_tool_results(case_id: str) -> bool:
        live = read_golden(by_id[case_id], "events").answer.value["live"]  # type: ignore[union-attr]
        return any(m.get("role") == "toolResult" for m in live["messages"])

    outcome = run_spec(corpus, port(corpus, "--bug", "replay-tool-results"), selection=EVENTS)
    results = {r.case: r for r in outcome.results if r.stage == "events"}
    caught = {c for c in turn_cases if results[c].status == "fail"}
    expected = {c for c in turn_cases if has_tool_results(c)}
    assert len(expected) >= 50  # every tool turn, and sessions that had tool results before
    assert caught == expected
    for case in caught:
        assert results[case].message.startswith(
            "replaying the file after the turn does not give the live state: message "), case
    assert {results[c].status for c in set(turn_cases) - expected} == {"pass"}


@pytest.mark.reference
def test_pi_answers_the_events_goldens_again_in_varied_runs(corpus):
    """The live turn is deterministic: Pi, run again plainly and under the check variation
    regenerate never used, writes each golden as it is (volatile paths as recorded)."""
    from conformance.maintenance.regenerate import ReferenceRuns, provenance, staleness

    cases = {}
    for case in corpus.cases:  # one case of each kind, the APIs varying
        if case.turn is not None:
            cases.setdefault(_choice(case.id)[1], case)
    assert len(cases) == len(KINDS)
    with ReferenceRuns(corpus, (VARIATIONS[0], CHECK_VARIATION), ("events",)) as runs:
        for case in cases.values():
            results, volatile = runs.answer(case)
            assert list(results) == ["events"]
            stale = staleness(case, "events", results["events"], volatile["events"],
                              provenance(runs.hello, case, "events"))
            # The answer and its volatile paths; the harness's hash changes with every edit.
            stale = [s for s in stale if s.reason != "provenance harness_sha256 is out of date"]
            assert stale == [], (case.id, [(s.reason, s.differences[:3]) for s in stale])


def test_the_rules_read_a_live_turns_answer():
    from conformance.judging.judge import pending_messages, replay_disagreement

    pending = {"role": "assistant", "stopReason": "pending", "content": []}
    done = {"role": "assistant", "stopReason": "stop", "content": []}
    tool = {"role": "toolResult", "content": []}
    answer = {"appended": [{"type": "thinking_level_change"}, {"type": "message", "message":
                                                                pending}],
              "context": {"messages": [pending]}, "live": {"messages": [done, tool]}}
    # The replayed context may hold one the file had before (traps.pending-persisted).
    assert pending_messages(answer) == ["$.output.appended[1].message"]
    assert pending_messages({"messages": [done, pending]}) == ["$.output.messages[1]"]
    assert replay_disagreement(answer) == "message 0 differs (replayed assistant, live assistant)"
    answer["context"]["messages"] = [done]
    assert replay_disagreement(answer) == "the replay has 1 message(s), the live state 2"
    answer["context"]["messages"] = [done, tool]
    assert replay_disagreement(answer) is None
    assert replay_disagreement({"messages": []}) is None  # a capture's answer has neither


def test_the_replay_rule_holds_a_port_only_where_pi_itself_agrees(corpus, turn_cases):
    """Where Pi's own replay differed from its live state, an answer that differs the same
    way is judged by the comparison alone."""
    from conformance.corpus.answers import Output
    from conformance.corpus.goldens import Golden
    from conformance.judging.judge import judge

    case = next(c for c in corpus.cases if c.id in turn_cases)
    golden = read_golden(case, "events")
    spoiled = json.loads(json.dumps(golden.answer.value))  # type: ignore[union-attr]
    spoiled["context"]["messages"] = spoiled["context"]["messages"][:-1]
    verdict = judge(case, "events", Output(spoiled), golden)
    assert verdict.status == "fail" and verdict.message.startswith("replaying the file")
    disagreeing = Golden("events", {"output": spoiled}, golden.provenance, golden.volatile)
    assert judge(case, "events", Output(spoiled), disagreeing).status == "pass"


@pytest.mark.reference
def test_a_script_that_does_not_match_pis_requests_is_the_harness_error_not_a_golden(corpus):
    """Pi asks for a reply the script does not have, or calls a tool more often than it has
    results for: the run says so and names the counts; nothing is answered for a golden."""
    from dataclasses import replace

    from conformance.implementations import protocol
    from conformance.implementations.transports import reference

    case = next(c for c in corpus.cases if c.turn is not None and _choice(c.id)[1] == "tool")
    short = replace(case.turn, responses=case.turn.responses[:1])
    no_result = replace(case.turn, tools=(replace(case.turn.tools[0], results=()),))
    impl = reference()
    impl.start()
    try:
        for seq, (script, problem) in enumerate(
                [(short, "Pi sent 2 provider request(s); the script has 1 response(s)"),
                 (no_result, "Pi called lookup 1 time(s); the script has 0 result(s)")],
                start=1):
            request = protocol.run_request(
                seq, case.id, case.features, str(case.session_path), "", ["events"],
                corpus.request_options(case), turns=script.request())
            answer = impl.run(request, 30)
            assert problem in answer["error"]["message"], answer
        right = protocol.run_request(3, case.id, case.features, str(case.session_path), "",
                                     ["events"], corpus.request_options(case),
                                     turns=case.turn.request())
        assert "output" in impl.run(right, 30)["results"]["events"]
    finally:
        impl.close()
