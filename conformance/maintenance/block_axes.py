"""The content-block x provider matrix: its axes, and which cells a message list fills.

Hand-picked cases keep missing combinations that real sessions have, so the corpus has a
systematic part: every content block variant Pi writes, in assistant turns ending in each stop
reason, replayed to the same model and to another one, with reasoning off and on, for each
provider API. This module names the axes and reads cells out of messages, so the generator
(``block_matrix``) and ``coverage`` agree on what a cell is without trusting case names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

#: Blocks of assistant turns; each cell of theirs has a stop reason and a replay.
ASSISTANT_VARIANTS = (
    "text", "text-signature",
    "thinking-signed", "thinking-unsigned", "thinking-redacted", "thinking-empty-signature",
    "tool-call", "tool-call-thought-signature", "tool-call-no-arguments",
    "tool-call-partial-json",
)
#: Blocks of tool results: their stop reason and replay are those of the calling turn.
TOOL_RESULT_VARIANTS = ("tool-result-image", "tool-result-error", "tool-result-details")
#: Blocks of user messages: no assistant turn, so no stop reason and no replay.
USER_VARIANTS = ("image-user",)
VARIANTS = ASSISTANT_VARIANTS + TOOL_RESULT_VARIANTS + USER_VARIANTS

#: Short API names for case ids and narrow tables; the matrix covers the APIs named here
#: (``MATRIX_APIS``), in this order.
API_SHORT = {"anthropic-messages": "anthropic", "openai-completions": "completions",
             "openai-responses": "responses", "google-generative-ai": "google",
             "azure-openai-responses": "azure", "openai-codex-responses": "codex",
             "mistral-conversations": "mistral", "bedrock-converse-stream": "bedrock",
             "google-vertex": "vertex", "pi-messages": "pi-messages"}
MATRIX_APIS = tuple(API_SHORT)
STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")
REPLAYS = ("same", "other")
REASONING = ("off", "on")
NOT_APPLICABLE = "-"
#: The agent loop runs no tool after a turn that ended in error or aborted, so Pi never
#: writes a tool result for such a call.
NO_TOOL_RESULTS_AFTER = frozenset({"error", "aborted"})


@dataclass(frozen=True, order=True)
class Cell:
    """One matrix cell: a block variant sent to ``api`` after a turn with ``stop`` ..."""

    variant: str
    api: str
    stop: str
    replay: str
    reasoning: str

    @property
    def key(self) -> str:
        return "/".join((self.variant, self.api, self.stop, self.replay, self.reasoning))


def producible(variant: str, stop: str) -> bool:
    """Whether Pi can write this variant after a turn ending in ``stop``."""
    if variant in USER_VARIANTS:
        return stop == NOT_APPLICABLE
    if stop == NOT_APPLICABLE:
        return False
    return not (variant in TOOL_RESULT_VARIANTS and stop in NO_TOOL_RESULTS_AFTER)


def all_cells() -> list[Cell]:
    """Every cell of the matrix Pi can produce, in a stable order."""
    cells: list[Cell] = []
    for variant in VARIANTS:
        turns = ([(NOT_APPLICABLE, NOT_APPLICABLE)] if variant in USER_VARIANTS
                 else [(stop, replay) for stop in STOP_REASONS for replay in REPLAYS])
        for api in MATRIX_APIS:
            for stop, replay in turns:
                if producible(variant, stop):
                    cells.extend(Cell(variant, api, stop, replay, reasoning)
                                 for reasoning in REASONING)
    return cells


def block_variants(block: Mapping[str, Any]) -> set[str]:
    """The variants one assistant content block is an instance of."""
    kind = block.get("type")
    if kind == "text":
        return {"text-signature" if block.get("textSignature") else "text"}
    if kind == "thinking":
        if block.get("redacted"):
            return {"thinking-redacted"}
        signature = block.get("thinkingSignature")
        if signature == "":
            return {"thinking-empty-signature"}
        return {"thinking-signed" if signature else "thinking-unsigned"}
    if kind == "toolCall":
        found = {"tool-call" if block.get("arguments") else "tool-call-no-arguments"}
        if block.get("thoughtSignature"):
            found.add("tool-call-thought-signature")
        if "partialJson" in block:
            found.add("tool-call-partial-json")
        return found
    return set()


def _images(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "image" for block in content)


def result_variants(message: Mapping[str, Any]) -> set[str]:
    """The variants a tool result message is an instance of."""
    found = set()
    if message.get("isError"):
        found.add("tool-result-error")
    if _images(message.get("content")):
        found.add("tool-result-image")
    if message.get("details") is not None:
        found.add("tool-result-details")
    return found


def _replay(message: Mapping[str, Any], target: Mapping[str, Any]) -> str:
    same = (message.get("provider"), message.get("api"), message.get("model")) == (
        target.get("provider"), target.get("api"), target.get("id"))
    return "same" if same else "other"


def cells_of(messages: Iterable[Any], api: str, target: Mapping[str, Any],
             reasoning: str) -> Iterator[Cell]:
    """The cells a request to ``target`` (a model object of ``api``) over ``messages`` fills."""
    callers: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "assistant" and isinstance(content, list):
            stop, replay = str(message.get("stopReason")), _replay(message, target)
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "toolCall" and isinstance(block.get("id"), str):
                    callers[block["id"]] = message
                for variant in block_variants(block):
                    yield Cell(variant, api, stop, replay, reasoning)
        elif role == "toolResult":
            caller = callers.get(str(message.get("toolCallId")))
            if caller is None:
                continue
            for variant in result_variants(message):
                yield Cell(variant, api, str(caller.get("stopReason")),
                           _replay(caller, target), reasoning)
        elif role == "user" and _images(content):
            yield Cell("image-user", api, NOT_APPLICABLE, NOT_APPLICABLE, reasoning)
