"""Turn scripts as case inputs: written and read back, sent as the run request's ``turns``,
and every problem named by its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.corpus import turns
from conformance.corpus.http_responses import HttpResponse
from conformance.corpus.turns import ScriptedTool, ToolResult, TurnScript
from conformance.errors import CorpusError
from conformance.implementations import protocol

REPLY = HttpResponse(200, (("content-type", "text/event-stream"),), (b"data: 1\n\n", b"\xff"))
SCRIPT = TurnScript("openai-completions", ("Hi.", "Again."), (REPLY, REPLY),
                    (ScriptedTool("lookup", (ToolResult("a1", update="..."),
                                             ToolResult("no", is_error=True))),),
                    "low", (("reasoning", True),))


def test_a_script_round_trips_through_its_files(tmp_path: Path) -> None:
    SCRIPT.write(tmp_path)
    assert sorted(p.name for p in (tmp_path / "turns").iterdir()) == [
        "1.json", "2.json", "script.json"]
    assert turns.load(tmp_path) == SCRIPT
    assert turns.load(tmp_path / "nothing-here") is None


def test_the_run_request_carries_it_and_the_schema_accepts_it() -> None:
    request = protocol.run_request(1, "c", (), "/s", "", ["events"], {},
                                   turns=SCRIPT.request())
    assert protocol.schema_errors("run-request", request) == []
    sent = request["turns"]
    assert sent["tools"] == [{"name": "lookup", "results": [
        {"text": "a1", "update": "..."}, {"text": "no", "isError": True}]}]
    assert sent["responses"][0]["chunks"][1] == {"base64": "/w=="}
    assert protocol.schema_errors("run-request", {**request, "turns": {"api": "x"}})


def test_the_hash_follows_the_script() -> None:
    other = TurnScript("openai-completions", ("Hi!",), (REPLY,))
    assert SCRIPT.sha256() != other.sha256() and SCRIPT.sha256() == SCRIPT.sha256()


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: (d / "1.json").unlink(), "1.json is missing"),
    (lambda d: (d / "script.json").unlink(), "has no script.json"),
    (lambda d: (d / "notes.txt").write_text("x"), "unexpected file"),
    (lambda d: (d / "script.json").write_text('{"api": "bedrock", "prompts": ["a"]}'),
     "api must be one of"),
    (lambda d: (d / "script.json").write_text('{"api": "openai-completions", "prompts": []}'),
     "prompts must be a non-empty list"),
    (lambda d: (d / "script.json").write_text(
        '{"api": "openai-completions", "prompts": ["a"], "colour": 1}'), "unknown keys"),
    (lambda d: (d / "script.json").write_text(json.dumps(
        {"api": "openai-completions", "prompts": ["a"],
         "tools": [{"name": "t", "results": [{"txt": "x"}]}]})), "tools[0].results[0]"),
    (lambda d: (d / "1.json").write_text('{"status": 999, "chunks": []}'), "status must be"),
])
def test_a_broken_script_is_an_error_naming_its_file(tmp_path: Path, change, problem) -> None:
    SCRIPT.write(tmp_path)
    change(tmp_path / "turns")
    with pytest.raises(CorpusError, match=problem.replace("[", r"\[").replace("]", r"\]")) \
            as raised:
        turns.load(tmp_path)
    assert str(tmp_path / "turns") in str(raised.value)


def test_a_link_is_refused(tmp_path: Path) -> None:
    SCRIPT.write(tmp_path)
    (tmp_path / "turns" / "2.json").unlink()
    (tmp_path / "turns" / "2.json").symlink_to(tmp_path / "turns" / "1.json")
    with pytest.raises(CorpusError, match="not a regular file"):
        turns.load(tmp_path)
