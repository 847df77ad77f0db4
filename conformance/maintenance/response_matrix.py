"""Which cells of the content x ending x API matrix of provider responses the corpus fills,
read from Pi's ``response.<api>`` goldens.

A response case is built to hold some content and end some way, but what it fills is what Pi
made of it: the content kinds of the final ``AssistantMessage`` Pi answered, and its ending
(its ``stopReason``, a refusal by its ``rawStopReason``, an error by the HTTP status it came
with). A response whose signature Pi dropped, or whose stop reason Pi read otherwise, fills
the cell Pi says, not the one its name claims. The cells Pi can produce are declared per API
(``EXPECTED``), from pi-ai's parsers; a filled cell outside them is listed as ``beyond``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.cases import Case
from conformance.corpus.goldens import read_golden
from conformance.corpus.stages import APIS, RESPONSE_PREFIX
from conformance.errors import ConformanceError
from conformance.maintenance.matrix_coverage import FilledCells

#: What a final message may hold, by kind (a message holds several).
CONTENT_KINDS = (
    "text", "thinking", "thinking-signed", "thinking-redacted",
    "tool-call", "tool-call-empty-arguments", "tool-calls-several", "tool-call-streamed",
    "none",
)
#: How a response may end, as Pi reports it.
ENDINGS = ("stop", "length", "toolUse", "refusal", "error-in-stream",
           "http-4xx", "http-5xx", "overloaded")
#: Raw stop reasons the services use for a refusal or a content filter.
REFUSALS = frozenset({"refusal", "content_filter", "SAFETY", "RECITATION", "PROHIBITED_CONTENT",
                      "BLOCKLIST", "SPII", "guardrail_intervened", "content_filtered",
                      # the Responses APIs: status and incomplete_details.reason
                      "incomplete.content_filter"})
#: HTTP statuses that ask the client to come back later.
OVERLOADED = frozenset({429, 503, 529})
#: Endings that come with no content: the status says it all.
HTTP_ENDINGS = ("http-4xx", "http-5xx", "overloaded")
#: Content a stream may carry before it ends each way (tool calls end a turn in toolUse).
_TOOL_KINDS = frozenset({"tool-call", "tool-call-empty-arguments", "tool-calls-several",
                         "tool-call-streamed"})


@dataclass(frozen=True, order=True)
class ResponseCell:
    api: str
    content: str
    ending: str

    @property
    def key(self) -> str:
        return "/".join((self.api, self.content, self.ending))


def content_kinds(message: Any, events: Any) -> set[str]:
    """The kinds of content of a final message (see ``CONTENT_KINDS``)."""
    blocks = message.get("content") if isinstance(message, dict) else None
    blocks = [block for block in blocks or [] if isinstance(block, dict)]
    kinds = set()
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            kinds.add("text")
        elif kind == "thinking":
            kinds.add("thinking-redacted" if block.get("redacted")
                      else "thinking-signed" if block.get("thinkingSignature") else "thinking")
        elif kind == "toolCall":
            kinds.add("tool-call" if block.get("arguments") else "tool-call-empty-arguments")
    if sum(1 for block in blocks if block.get("type") == "toolCall") > 1:
        kinds.add("tool-calls-several")
    deltas: dict[Any, int] = {}
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("type") == "toolcall_delta":
            deltas[event.get("contentIndex")] = deltas.get(event.get("contentIndex"), 0) + 1
    if any(count >= 3 for count in deltas.values()):
        kinds.add("tool-call-streamed")
    return kinds or {"none"}


def ending(message: Any, status: int) -> str:
    """How a response ended, as Pi reports it (see ``ENDINGS``)."""
    stop = message.get("stopReason") if isinstance(message, dict) else None
    if status >= 400:
        return "overloaded" if status in OVERLOADED else \
            "http-4xx" if status < 500 else "http-5xx"
    if message.get("rawStopReason") in REFUSALS:
        return "refusal"
    if stop == "error":
        return "error-in-stream"
    return str(stop)


def case_cells(case: Case) -> Iterator[ResponseCell]:
    """The cells one case fills: per response stage with a golden holding an output."""
    for stage in case.response_stages():
        api = stage.removeprefix(RESPONSE_PREFIX)
        try:
            output = read_golden(case, stage).result.get("output")
            status = case.responses_for([stage])[api].status
        except ConformanceError:
            continue
        if not isinstance(output, dict):
            continue
        message = output.get("message")
        end = ending(message, status)
        for kind in sorted(content_kinds(message, output.get("events"))):
            yield ResponseCell(api, kind, end)


_ALL_CONTENT = frozenset(CONTENT_KINDS)
_RESPONSES_CONTENT = _ALL_CONTENT - {"thinking", "thinking-redacted"}
#: Per API, the content kinds its parser can produce (read from pi-ai 1.6.0's providers, and
#: narrowed by what the response corpus, built over every kind each wire can carry, shows):
#:
#: * Chat Completions keeps the reasoning field's name (``reasoning_content``) or the
#:   reasoning details as every thinking block's signature, so none is unsigned; and the
#:   wire has no redacted reasoning.
#: * The Responses APIs keep the reasoning item's JSON as the signature of every thinking
#:   block (encrypted content only is signed thinking with no text); none is redacted.
#: * Gemini has no redacted reasoning, and sends a call's arguments whole (one toolcall_delta).
#: * Mistral's thinking chunks carry no signature.
PRODUCIBLE_CONTENT: dict[str, frozenset[str]] = {
    **{api: _ALL_CONTENT for api in APIS},
    "openai-completions": _ALL_CONTENT - {"thinking", "thinking-redacted"},
    "openai-responses": _RESPONSES_CONTENT,
    "azure-openai-responses": _RESPONSES_CONTENT,
    "openai-codex-responses": _RESPONSES_CONTENT,
    "google-generative-ai": _ALL_CONTENT - {"thinking-redacted", "tool-call-streamed"},
    "google-vertex": _ALL_CONTENT - {"thinking-redacted", "tool-call-streamed"},
    "mistral-conversations": _ALL_CONTENT - {"thinking-signed", "thinking-redacted"},
}
#: Per API, the endings its parser can report. Mistral has no refusal or content filter of
#: its own; pi-messages reports a stop reason but no raw one, so a refusal cannot be told.
PRODUCIBLE_ENDINGS: dict[str, frozenset[str]] = {
    **{api: frozenset(ENDINGS) for api in APIS},
    "mistral-conversations": frozenset(ENDINGS) - {"refusal"},
    "pi-messages": frozenset(ENDINGS) - {"refusal"},
}


def expected_cells() -> list[ResponseCell]:
    """Every cell Pi can produce: content it can parse, ending as it can end; an HTTP error
    holds no content, tool calls end in toolUse, and nothing is ``none`` but an error."""
    cells = []
    for api in APIS:
        for end in sorted(PRODUCIBLE_ENDINGS[api], key=ENDINGS.index):
            if end in HTTP_ENDINGS:
                cells.append(ResponseCell(api, "none", end))
                continue
            for kind in sorted(PRODUCIBLE_CONTENT[api], key=CONTENT_KINDS.index):
                if kind == "none" and end not in ("error-in-stream", "refusal", "length"):
                    continue
                if kind in _TOOL_KINDS and end != "toolUse":
                    continue
                if end == "toolUse" and kind == "none":
                    continue
                cells.append(ResponseCell(api, kind, end))
    return cells


@dataclass
class ResponseMatrix(FilledCells[ResponseCell]):
    """The content x ending x API matrix, and how many responses with goldens each API has."""

    responses: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "responses": self.responses}


def compute_response_matrix(cases: Iterable[Case]) -> ResponseMatrix:
    matrix = ResponseMatrix({cell: [] for cell in expected_cells()},
                            responses=dict.fromkeys(APIS, 0))
    for case in cases:
        for stage in case.response_stages():
            api = stage.removeprefix(RESPONSE_PREFIX)
            if case.expected_path(stage).is_file():
                matrix.responses[api] += 1
        for cell in sorted(set(case_cells(case))):
            target = matrix.cells if cell in matrix.cells else matrix.beyond
            target.setdefault(cell, []).append(case.id)
    return matrix
