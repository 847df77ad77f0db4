"""The scripted provider replies of a scenario, independent of any wire format.

A turn is one answer to one HTTP request: either an HTTP error, or a streamed assistant
reply made of blocks (text, thinking with a signature, redacted thinking, tool calls), a
stop reason and token usage. ``stall`` makes the reply hang after its first delta until the
client hangs up, which is how an abort mid-stream is recorded deterministically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.errors import CorpusError

STOPS = ("stop", "toolUse", "length")
BLOCK_TYPES = ("text", "thinking", "redacted_thinking", "tool_call")


@dataclass(frozen=True)
class Block:
    type: str
    text: str = ""
    signature: str = ""
    id: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    input: int = 10
    output: int = 5
    cache_read: int = 0
    reasoning: int = 0


@dataclass(frozen=True)
class Turn:
    blocks: tuple[Block, ...] = ()
    stop: str = "stop"
    usage: Usage = Usage()
    error_status: int | None = None
    error_body: str = ""
    stall: bool = False
    response_id: str = ""

    @property
    def is_error(self) -> bool:
        return self.error_status is not None


def _block(raw: Any, where: str) -> Block:
    if not isinstance(raw, dict) or raw.get("type") not in BLOCK_TYPES:
        raise CorpusError(f"{where}: a block needs type = one of {', '.join(BLOCK_TYPES)}")
    kind = raw["type"]
    if kind == "tool_call" and not (raw.get("id") and raw.get("name")):
        raise CorpusError(f"{where}: a tool_call needs id and name")
    unknown = set(raw) - {"type", "text", "signature", "id", "name", "arguments"}
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    return Block(kind, str(raw.get("text", "")), str(raw.get("signature", "")),
                 str(raw.get("id", "")), str(raw.get("name", "")), dict(raw.get("arguments", {})))


def parse_turn(raw: Any, index: int) -> Turn:
    """One ``[[turns]]`` table; errors say which turn and what is wrong."""
    where = f"turns[{index}]"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: must be a table")
    unknown = set(raw) - {"blocks", "stop", "usage", "error", "stall", "response_id"}
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if "error" in raw:
        error = raw["error"]
        if not isinstance(error, dict) or not isinstance(error.get("status"), int):
            raise CorpusError(f"{where}.error: needs an integer status")
        return Turn(error_status=error["status"], error_body=str(error.get("body", "")))
    stop = raw.get("stop", "stop")
    if stop not in STOPS:
        raise CorpusError(f"{where}.stop: must be one of {', '.join(STOPS)}")
    usage = raw.get("usage", {})
    try:
        parsed_usage = Usage(**usage)
    except TypeError:
        raise CorpusError(f"{where}.usage: keys are input, output, cache_read, reasoning") \
            from None
    blocks = tuple(_block(b, f"{where}.blocks[{i}]") for i, b in enumerate(raw.get("blocks", [])))
    return Turn(blocks=blocks, stop=stop, usage=parsed_usage, stall=bool(raw.get("stall", False)),
                response_id=str(raw.get("response_id", "")))
