"""Captures agree with the corpus goldens of their derived cases (docs/captures.md).

For every scenario, what the real CLI did (its session file, its get_messages, get_entries
and get_session_stats answers, the request bodies the fake provider received) is what the
goldens of ``captured.<scenario>`` say, the goldens being written by the reference harness
from the session file alone. Differences that are legitimate are named in each test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.cases import Corpus
from conformance.maintenance.captures.run import case_directory, differences, produce, select

CORPUS = Corpus()
SCENARIOS = select(CORPUS)
NAMES = [s.name for s in SCENARIOS]
MESSAGES_KEY = {"openai-completions": "messages", "anthropic-messages": "messages",
                "openai-responses": "input", "google-generative-ai": "contents"}


def capture(name: str, file: str) -> Any:
    text = (CORPUS.root / "captures" / name / file).read_text()
    if file.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


def golden(name: str, stage: str) -> Any:
    path = CORPUS.root / "cases" / "captured" / name / "expected" / f"{stage}.json"
    result = json.loads(path.read_text())["result"]
    assert "output" in result, f"{stage} golden of {name} is {result}"
    return result["output"]


def api(name: str) -> str:
    return capture(name, "provenance.json")["api"]


def test_at_least_fifteen_scenarios_over_every_api():
    assert len(SCENARIOS) >= 15
    assert {s.api for s in SCENARIOS} == set(MESSAGES_KEY)


@pytest.mark.parametrize("name", NAMES)
def test_the_case_session_is_the_file_pi_wrote(name: str):
    scenario = next(s for s in SCENARIOS if s.name == name)
    case = case_directory(CORPUS, scenario)
    assert (case / "session.jsonl").read_bytes() == \
        (scenario.directory / "session.jsonl").read_bytes()
    assert (case / "events.jsonl").read_bytes() == \
        (scenario.directory / "events.jsonl").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_context_golden_is_get_messages(name: str):
    assert golden(name, "context")["messages"] == capture(name, "get_messages.json")["messages"]


@pytest.mark.parametrize("name", NAMES)
def test_entries_and_branch_goldens_are_get_entries(name: str):
    answer = capture(name, "get_entries.json")
    entries = golden(name, "entries")
    assert entries["entries"] == answer["entries"]
    assert entries["header"] == capture(name, "session.jsonl")[0]
    assert golden(name, "branch")["leafId"] == answer["leafId"]


@pytest.mark.parametrize("name", NAMES)
def test_stats_golden_is_get_session_stats(name: str):
    answer = capture(name, "get_session_stats.json")
    # Not comparable: the harness opens the file without a model, so it has no contextUsage,
    # and it leaves out sessionFile (a path of its own).
    comparable = {k: v for k, v in answer.items() if k not in ("sessionFile", "contextUsage")}
    assert golden(name, "stats") == comparable


def without_cache_control(messages: list[Any]) -> list[Any]:
    messages = copy.deepcopy(messages)
    for message in messages:
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                block.pop("cache_control", None)
    return messages


@pytest.mark.parametrize("name", NAMES)
def test_request_golden_continues_the_last_request_pi_sent(name: str):
    """The golden is the request for the whole final session; the last request on the wire
    was sent before Pi appended the reply to it. So the wire's messages are a prefix of the
    golden's, equal when nothing the model sees was appended (an error or aborted reply is
    dropped by Pi's transform), and every other field is equal."""
    the_api = api(name)
    wire_request = capture(name, "requests.jsonl")[-1]
    wire = wire_request["body"]
    expected = golden(name, f"request.{the_api}")
    key = MESSAGES_KEY[the_api]
    ours, theirs = expected[key], wire[key]
    if the_api == "anthropic-messages":
        # Pi marks the last block of the last user message with cache_control; once the
        # reply is appended that message is no longer last, so the golden has no marker.
        last_blocks = theirs[-1]["content"]
        assert last_blocks[-1].get("cache_control") == {"type": "ephemeral"}
        ours, theirs = without_cache_control(ours), without_cache_control(theirs)
        # The SDK sends the betas parameter as the anthropic-beta header.
        betas = expected.pop("betas", None)
        assert wire_request["headers"].get("anthropic-beta") == (
            ",".join(betas) if betas else None)
    assert ours[:len(theirs)] == theirs
    final = capture(name, "session.jsonl")[-1]
    stop = final.get("message", {}).get("stopReason")
    if stop in ("error", "aborted"):
        assert len(ours) == len(theirs)
    else:
        assert len(ours) > len(theirs)
    if the_api == "google-generative-ai":
        # The golden is the SDK's parameters (model, contents, config); the wire is REST.
        config = expected["config"]
        assert wire["systemInstruction"] == {"parts": [{"text": config["systemInstruction"]}],
                                             "role": "user"}
        assert wire["tools"] == config["tools"]
        assert wire["generationConfig"]["maxOutputTokens"] == config["maxOutputTokens"]
        assert wire["generationConfig"].get("thinkingConfig") == config.get("thinkingConfig")
    else:
        rest = {k: v for k, v in expected.items() if k != key}
        assert rest == {k: v for k, v in wire.items() if k != key}


@pytest.mark.parametrize("name", NAMES)
def test_no_pending_assistant_is_ever_persisted(name: str):
    stream = capture(name, "events.jsonl")
    persisted = [line["message"] for line in capture(name, "session.jsonl")[1:]
                 if line.get("type") == "message"]
    assert all(m.get("stopReason") != "pending" for m in persisted)
    assistants = [m for m in persisted if m["role"] == "assistant"]
    starts = [e["message"] for e in stream if e["type"] == "message_start"
              and e["message"]["role"] == "assistant"]
    assert len(starts) == len(assistants)
    ends = [e["message"] for e in stream if e["type"] == "message_end"]
    assert all(m in ends for m in assistants)  # the persisted form is message_end's


@pytest.mark.parametrize("name", NAMES)
def test_events_golden_is_what_pi_persisted(name: str):
    path = CORPUS.root / "cases" / "captured" / name / "expected" / "events.json"
    persisted = [e["message"] for e in capture(name, "get_entries.json")["entries"]
                 if e["type"] == "message"]
    if not path.is_file():
        # Only messages stored outside an agent run (RPC bash) keep a case off this stage.
        roles = {m["role"] for m in persisted}
        assert "bashExecution" in roles
        return
    assert golden(name, "events")["messages"] == persisted


@pytest.mark.reference
@pytest.mark.parametrize("name", ["completions-tool-call", "anthropic-abort",
                                  "responses-reasoning-tool", "completions-compact"])
def test_a_scenario_regenerates_identically(name: str):
    """The real CLI, run again on the scenario's script, writes what the corpus holds."""
    from conformance.implementations.reference import require_installation

    scenario = next(s for s in SCENARIOS if s.name == name)
    assert differences(CORPUS, produce(scenario, require_installation())) == []


def test_capture_files_are_present_for_every_scenario():
    from conformance.maintenance.captures.store import CAPTURE_FILES

    for scenario in SCENARIOS:
        missing = [f for f in CAPTURE_FILES if not (scenario.directory / f).is_file()]
        assert missing == [], f"{scenario.name}: run pi-conformance corpus capture {scenario.name}"
        assert Path(case_directory(CORPUS, scenario), "case.toml").is_file()
