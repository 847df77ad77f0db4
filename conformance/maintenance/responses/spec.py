"""A provider response described apart from any API: content blocks, an ending and a usage.

The encoders (one module per wire family) turn a :class:`ResponseSpec` into the HTTP response
one API's service sends, or into ``None`` when that API has no way to say it. Deltas are given
explicitly (a block's text as the pieces it streams in), so where a wire splits a text, and
how many chunks a stress case has, is part of the spec and not of the encoder.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.Enum):
    """What a content block is, as the provider says it."""

    TEXT = "text"
    #: Reasoning text with nothing to replay it by (a completions reasoning_content, Mistral).
    THINKING = "thinking"
    #: Reasoning text with an opaque signature (Anthropic, Gemini's thoughtSignature, Bedrock).
    SIGNED_THINKING = "signed-thinking"
    #: Reasoning withheld, only an opaque payload (Anthropic redacted_thinking, Bedrock
    #: redactedContent).
    REDACTED_THINKING = "redacted-thinking"
    #: A summary of reasoning, in parts (OpenAI Responses summary_text, OpenRouter
    #: reasoning.summary), with the item to replay it by.
    REASONING_SUMMARY = "reasoning-summary"
    #: Reasoning as encrypted content only (Responses encrypted_content with no summary,
    #: OpenRouter reasoning.encrypted).
    ENCRYPTED_REASONING = "encrypted-reasoning"
    TOOL_CALL = "tool-call"


@dataclass(frozen=True)
class Block:
    """One content block; ``deltas`` are the pieces its text (or its arguments' JSON) streams
    in. ``signature`` is the opaque payload of signed, redacted and encrypted reasoning, or a
    tool call's thought signature (Gemini). ``call_id`` is sent as is."""

    kind: Kind
    deltas: tuple[str, ...] = ()
    signature: str = ""
    call_id: str = ""
    name: str = ""

    @property
    def text(self) -> str:
        return "".join(self.deltas)

    @property
    def arguments(self) -> Any:
        """A tool call's arguments, parsed from the streamed JSON (``{}`` when none)."""
        return json.loads(self.text) if self.text else {}

    @property
    def reasoning(self) -> bool:
        return self.kind not in (Kind.TEXT, Kind.TOOL_CALL)


class Ending(enum.Enum):
    """How the response ends."""

    STOP = "stop"
    LENGTH = "length"
    TOOL_USE = "tool-use"
    #: The provider refuses or its content filter stops the reply.
    REFUSAL = "refusal"
    #: An error event in the stream, after the content.
    ERROR_EVENT = "error-event"
    #: The connection ends before the final event.
    CUT = "cut"
    HTTP_4XX = "http-4xx"
    HTTP_5XX = "http-5xx"
    #: A retryable overload (429, 503 or 529, as the API signals it).
    OVERLOAD = "overload"

    @property
    def is_http_error(self) -> bool:
        return self in (Ending.HTTP_4XX, Ending.HTTP_5XX, Ending.OVERLOAD)


class BodyStyle(enum.Enum):
    """The body of an HTTP error."""

    JSON = "json"  # the API's own error object
    TEXT = "text"  # a plain-text body (a proxy's)
    EMPTY = "empty"


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reports them; ``None`` on a response means no usage."""

    input: int = 12
    output: int = 7
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


class UsageShape(enum.Enum):
    """The usage axis of the matrix."""

    FINAL = "final"  # input and output only, in the last chunk
    CACHE_READ = "cache-read"
    CACHE_WRITE = "cache-write"  # cache reads and cache writes
    REASONING = "reasoning"
    NONE = "none"

    def usage(self) -> Usage | None:
        return {
            UsageShape.FINAL: Usage(),
            UsageShape.CACHE_READ: Usage(input=12, output=7, cache_read=30),
            UsageShape.CACHE_WRITE: Usage(input=12, output=7, cache_read=30, cache_write=40),
            UsageShape.REASONING: Usage(input=12, output=27, reasoning=20),
            UsageShape.NONE: None,
        }[self]


@dataclass(frozen=True)
class HttpError:
    """An HTTP error instead of a stream; status 0 is the API's own overload status."""

    status: int = 0
    style: BodyStyle = BodyStyle.JSON
    message: str = "pi-conformance: scripted error"
    #: A body sent as is (JSON text), instead of the API's error object: a captured turn's.
    body: str = ""


@dataclass(frozen=True)
class ResponseSpec:
    """One provider response. ``response_id`` empty: the service sends none where it may;
    ``response_model`` empty: the service echoes the requested model."""

    blocks: tuple[Block, ...] = ()
    ending: Ending = Ending.STOP
    usage: Usage | None = field(default_factory=Usage)
    response_id: str = "resp-pi-1"
    response_model: str = ""
    error: HttpError | None = None
    #: The message of a refusal or of an error event.
    message: str = "pi-conformance: scripted failure"
    #: What the ids of a Responses API's output items are made of (rs_<prefix>_<index>).
    item_prefix: str = "pi"
    #: Several tool calls' argument pieces alternate, where the wire keys them by index
    #: (otherwise each call is sent whole before the next, as the services do).
    interleave: bool = False

    @property
    def tool_calls(self) -> tuple[Block, ...]:
        return tuple(b for b in self.blocks if b.kind is Kind.TOOL_CALL)


def model_of(spec: ResponseSpec, requested: str) -> str:
    """The model name the service answers with."""
    return spec.response_model or requested
