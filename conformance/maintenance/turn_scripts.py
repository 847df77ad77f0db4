"""Turn scripts for corpus cases, by construction: a live turn for the ``events`` stage.

Each case gets one deterministic script chosen from its id (so writing them again writes the
same files): an API among the four the scripted provider speaks, and a kind of turn:

* ``text``: one prompt, a text reply;
* ``thinking``: a reasoning model, thinking (signed) then text;
* ``tool``: text and a tool call, the scripted tool's update and result, then a text reply;
* ``tool-error``: a tool call whose tool throws, then a text reply;
* ``two-prompts``: two prompts, a text reply to each.

The replies are the abstract blocks of the captures' script model, encoded per API by their
encoders (maintenance/captures/wire.py) and stored as HTTP responses (corpus/http_responses.py).
Texts are short and streamed in two deltas: the goldens stay small. Only inputs are written
here; the goldens come from Pi (``pi-conformance corpus regenerate GLOB --stage events``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from conformance.corpus.cases import Case
from conformance.corpus.goldens import read_golden
from conformance.corpus.http_responses import HttpResponse, of_chunks
from conformance.corpus.turns import APIS, ScriptedTool, ToolResult, TurnScript
from conformance.errors import ConformanceError
from conformance.maintenance.captures.script import Block, Turn, Usage
from conformance.maintenance.captures.wire import ENCODERS

KINDS = ("text", "thinking", "tool", "tool-error", "two-prompts")
MODEL_ID = "fake-model"
TOOL = "lookup"
#: Sessions larger than this are left out: a turn appends to the whole file, and Pi's events
#: carry the whole context (agent_end) only in the live state, but the golden holds it twice.
MAX_SESSION_BYTES = 16_000
#: Cases the suite's own tests copy as a case with the default stages (tests/conftest.py,
#: tests/report_fakes.py): they keep no turn script.
FIXTURES = ("traps.two-timestamps",)


def _choice(case_id: str) -> tuple[str, str]:
    number = int(hashlib.sha256(case_id.encode()).hexdigest()[:8], 16)
    return APIS[number % len(APIS)], KINDS[(number // len(APIS)) % len(KINDS)]


def _response(api: str, turn: Turn, n: int) -> HttpResponse:
    frames, _ = ENCODERS[api](turn, MODEL_ID, n)
    return of_chunks(200, [("content-type", "text/event-stream")], frames)


def _text(text: str) -> Block:
    return Block("text", text=text)


def script_for(case_id: str) -> TurnScript:
    """The turn script of ``case_id``: the same for the same id, always."""
    api, kind = _choice(case_id)
    usage = Usage(input=12, output=4)
    call = Block("tool_call", id="call_1", name=TOOL, arguments={"q": "a"})
    tools: tuple[ScriptedTool, ...] = ()
    level: str | None = None
    model: tuple[tuple[str, object], ...] = ()
    prompts: tuple[str, ...] = ("Hi.",)
    if kind == "text":
        turns = [Turn((_text("Hello."),), usage=usage)]
    elif kind == "thinking":
        thinking = Block("thinking", text="Think.", signature="c2ln")
        turns = [Turn((thinking, _text("Done.")), usage=Usage(12, 6, reasoning=2))]
        level, model = "low", (("reasoning", True),)
    elif kind in ("tool", "tool-error"):
        turns = [Turn((_text("Look."), call), stop="toolUse", usage=usage),
                 Turn((_text("Found."),), usage=usage)]
        result = (ToolResult("a1", update="...") if kind == "tool"
                  else ToolResult("no a", is_error=True))
        tools = (ScriptedTool(TOOL, (result,)),)
    else:
        turns = [Turn((_text("One."),), usage=usage), Turn((_text("Two."),), usage=usage)]
        prompts = ("Hi.", "Again.")
    responses = tuple(_response(api, turn, n) for n, turn in enumerate(turns, start=1))
    return TurnScript(api, prompts, responses, tools, level, model)


def eligible(case: Case) -> bool:
    """A case whose session Pi opens (its ``context`` golden is an output), of the required
    class, small, not a capture and not generated: a turn can be run over it."""
    if case.id.startswith("captured.") or case.id in FIXTURES or case.outcome != "required" \
            or case.generated is not None or "context" not in case.stages:
        return False
    if case.session_path.stat().st_size > MAX_SESSION_BYTES:
        return False
    try:
        return read_golden(case, "context").kind == "output"
    except ConformanceError:
        return False


def chosen(cases: Iterable[Case], per_area: int, areas: Sequence[str] = ()) -> list[Case]:
    """Up to ``per_area`` eligible cases of each area (the id's first part), by the hash of
    their ids: spread across the corpus, the same every time."""
    by_area: dict[str, list[Case]] = {}
    for case in cases:
        area = case.id.split(".")[0]
        if (not areas or area in areas) and eligible(case):
            by_area.setdefault(area, []).append(case)
    picked = []
    for area in sorted(by_area):
        ranked = sorted(by_area[area], key=lambda c: hashlib.sha256(c.id.encode()).hexdigest())
        picked.extend(ranked[:per_area])
    return sorted(picked, key=lambda c: c.id)


def write_scripts(cases: Iterable[Case]) -> int:
    """Write each case's ``turns/``; returns how many were written."""
    count = 0
    for case in cases:
        script_for(case.id).write(case.directory)
        count += 1
    return count
