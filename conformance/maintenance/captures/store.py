"""From a raw recording to the files of ``corpus/captures/<scenario>/`` and its derived case.

Capture files (all normalized, volatile.py): ``events.jsonl`` (every RPC event, in order),
``responses.jsonl`` (the answers to the scenario's own commands), ``session.jsonl`` (the file
Pi wrote), ``get_messages.json``, ``get_entries.json``, ``get_session_stats.json``,
``get_state.json``, ``requests.jsonl`` (every request the fake provider received) and
``provenance.json``. The derived case ``corpus/cases/captured/<scenario>/`` gets the session,
the event stream, a ``case.toml`` and the ``events`` golden, which is what Pi persisted (the
messages of get_entries) and is therefore written here, not by the reference harness.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import tomli_w

from conformance import jsonio
from conformance.implementations.reference import Installation, lock_sha256
from conformance.maintenance.captures.record import Recording
from conformance.maintenance.captures.scenario import Scenario
from conformance.maintenance.captures.volatile import Normalizer, canon

CAPTURE_FILES = ("events.jsonl", "responses.jsonl", "session.jsonl", "get_messages.json",
                 "get_entries.json", "get_session_stats.json", "get_state.json",
                 "requests.jsonl", "provenance.json")
PACKAGE = Path(__file__).resolve().parent
GENERATOR_SOURCES = ("fake_provider.py", "wire.py", "script.py", "scenario.py", "record.py",
                     "rpc_driver.py", "volatile.py", "store.py")


def json_line(value: Any) -> str:
    """Compact JSON like Pi writes it (no spaces, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n"


def pretty(value: Any) -> str:
    return jsonio.dumps_pretty(value)


#: The response encoders the fake provider speaks through (wire.py) are part of the
#: generator; the response corpus's own axes and writer are not.
ENCODER_PACKAGE = PACKAGE.parent / "responses"
NOT_ENCODERS = ("catalog.py", "construct.py")


def generator_sha256() -> str:
    digest = hashlib.sha256()
    for name in GENERATOR_SOURCES:
        digest.update((PACKAGE / name).read_bytes())
    for path in sorted(ENCODER_PACKAGE.glob("*.py")):
        if path.name not in NOT_ENCODERS:
            digest.update(path.read_bytes())
    return digest.hexdigest()


def provenance(scenario: Scenario, installation: Installation, exit_code: int | None) -> Any:
    return {
        "generator": "pi-conformance corpus capture (conformance/maintenance/captures/)",
        "command": f"pi-conformance corpus capture {scenario.name}",
        "cli": "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js --mode rpc "
               "--session-dir <sandbox>/sessions --provider fake --model fake-model"
               + (f" --thinking {scenario.thinking}" if scenario.thinking else ""),
        "reference": {**installation.versions(), "node": installation.node_version()},
        "lock_sha256": lock_sha256(),
        "generator_sha256": generator_sha256(),
        "scenario_sha256": hashlib.sha256(scenario.path.read_bytes()).hexdigest(),
        "api": scenario.api,
        "exit_code": exit_code,
        "normalization": "docs/captures.md",
    }


def capture_files(recording: Recording, scenario: Scenario,
                  installation: Installation) -> dict[str, str]:
    """The normalized files of one capture, by name."""
    session_lines = [json.loads(line) for line in recording.session_text.splitlines()
                     if line.strip()]
    norm = Normalizer(session_path=recording.session_path, work=str(recording.root / "work"),
                      sandbox=str(recording.root), prefix=str(recording.prefix),
                      port=recording.port, session_lines=session_lines)
    events = [r for r in recording.records if r.get("type") != "response"]
    asked = {"get_messages", "get_entries", "get_session_stats", "get_state"}
    responses = [r for r in recording.records if r.get("type") == "response"
                 and r.get("command") not in asked]
    files = {
        "events.jsonl": "".join(json_line(e) for e in norm.events(events)),
        "responses.jsonl": "".join(json_line(norm(r)) for r in responses),
        "session.jsonl": "".join(json_line(line) for line in norm.session_lines()),
        "requests.jsonl": "".join(json_line(norm(r)) for r in recording.requests),
    }
    for name in sorted(asked):
        files[f"{name}.json"] = pretty(norm(recording.answers.get(name)))
    files["provenance.json"] = pretty(provenance(scenario, installation, recording.exit_code))
    return files


def case_id(scenario: Scenario) -> str:
    return f"captured.{scenario.name}"


def persisted_messages(files: dict[str, str]) -> list[Any]:
    """The messages of Pi's get_entries answer, in file order."""
    entries = json.loads(files["get_entries.json"])["entries"]
    return [entry["message"] for entry in entries if entry.get("type") == "message"]


def stream_shows_every_message(files: dict[str, str]) -> bool:
    """True when each persisted message is the message of some message_end in the stream.

    Messages Pi stores outside an agent run (an RPC ``bash`` result) have no message_end, so
    the stream alone cannot imply them; such cases do not get the events stage.
    """
    ended = {canon(json.loads(line).get("message"))
             for line in files["events.jsonl"].splitlines()
             if json.loads(line).get("type") == "message_end"}
    return all(canon(message) in ended for message in persisted_messages(files))


def case_stages(scenario: Scenario, files: dict[str, str]) -> list[str]:
    stages = ["entries", "branch", "context", "projection", "llm", "prompt", "stats",
              f"request.{scenario.api}", f"wire.{scenario.api}"]
    return [*stages, "events"] if stream_shows_every_message(files) else stages


def case_toml(scenario: Scenario, files: dict[str, str]) -> str:
    """Metadata of the derived case; its request stage uses the fake model Pi reported."""
    state = json.loads(files["get_state.json"])
    request: dict[str, Any] = {"catalog": False, "sessionId": state["sessionId"]}
    level = state.get("thinkingLevel", "off")
    if level and level != "off":
        request["reasoning"] = level
    request["models"] = {scenario.api: state["model"]}
    return tomli_w.dumps({
        "id": case_id(scenario),
        "title": "Captured: " + scenario.title,
        "description": f"The session the real pi CLI wrote in scenario {scenario.name} "
                       f"(corpus/captures/{scenario.name}), normalized. Written by "
                       f"pi-conformance corpus capture; do not edit.",
        "features": ["captured", *scenario.features],
        "source": "capture:" + scenario.name,
        "stages": case_stages(scenario, files),
        "options": {"request": request},
    })


def events_golden(scenario: Scenario, files: dict[str, str], prov: dict[str, Any]) -> str:
    """The ``events`` stage golden: the messages Pi persisted, from its get_entries answer."""
    messages = persisted_messages(files)
    return pretty({
        "stage": "events",
        "result": {"output": {"messages": messages}},
        "provenance": {**prov, "source": "get_entries of the recorded run: the messages "
                       "Pi persisted, in file order",
                       "input_sha256": hashlib.sha256(
                           files["events.jsonl"].encode()).hexdigest()},
    })


def case_files(scenario: Scenario, files: dict[str, str]) -> dict[str, str]:
    """The derived case's inputs and its events golden, by path relative to the case."""
    prov = json.loads(files["provenance.json"])
    derived = {
        "case.toml": case_toml(scenario, files),
        "session.jsonl": files["session.jsonl"],
        "events.jsonl": files["events.jsonl"],
    }
    if "events" in case_stages(scenario, files):
        derived["expected/events.json"] = events_golden(scenario, files, prov)
    return derived
