"""How bytes go on the wire: SSE events, and the HTTP response around a stream or an error.

Shared by every encoder (and by the capture encoders in ``captures/wire.py``): one chunk per
event, as the services send them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.corpus.http_responses import HttpResponse
from conformance.maintenance.responses.spec import Block, BodyStyle, HttpError, Kind

SSE_HEADERS = (("content-type", "text/event-stream"), ("cache-control", "no-cache"))


def compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE event: an optional ``event:`` line and one ``data:`` line (JSON, or a string
    as is)."""
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else compact(data)
    return f"{head}data: {body}\n\n".encode()


@dataclass(frozen=True)
class Encoded:
    """A response, and how many of its chunks carry it up to its first content delta (where a
    capture's ``stall`` turn stops sending: captures/fake_provider.py)."""

    response: HttpResponse
    first_delta: int


class Frames:
    """The chunks of a stream as an encoder adds them, remembering the first content delta."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.first_delta: int | None = None

    def add(self, chunk: bytes, delta: bool = False) -> None:
        self.chunks.append(chunk)
        if delta and self.first_delta is None:
            self.first_delta = len(self.chunks)

    def encoded(self, headers: Sequence[tuple[str, str]] = SSE_HEADERS) -> Encoded:
        response = HttpResponse(200, tuple(headers), tuple(self.chunks))
        return Encoded(response, self.first_delta or len(self.chunks))


def error(http: HttpError, status: int, json_body: Any,
          extra_headers: Sequence[tuple[str, str]] = ()) -> Encoded:
    """An HTTP error: the API's own error object, a plain-text body, or none at all."""
    if http.body:
        headers = (("content-type", "application/json"), *extra_headers)
        chunks: tuple[bytes, ...] = (http.body.encode(),)
    elif http.style is BodyStyle.JSON:
        headers = (("content-type", "application/json"), *extra_headers)
        chunks = (compact(json_body).encode(),)
    elif http.style is BodyStyle.TEXT:
        headers = (("content-type", "text/plain; charset=utf-8"), *extra_headers)
        chunks = (f"{http.message}\n".encode(),)
    else:
        headers = tuple(extra_headers)
        chunks = ()
    return Encoded(HttpResponse(status, headers, chunks), len(chunks))


def groups(blocks: Sequence[Block], interleave: bool) -> list[tuple[int, ...]]:
    """Block indexes in the order they are sent: each block alone, except that interleaved
    tool calls all go together where the first one is."""
    calls = tuple(i for i, b in enumerate(blocks) if b.kind is Kind.TOOL_CALL)
    out: list[tuple[int, ...]] = []
    for i, block in enumerate(blocks):
        if not (interleave and block.kind is Kind.TOOL_CALL):
            out.append((i,))
        elif i == calls[0]:
            out.append(calls)
    return out


def ordinals(blocks: Sequence[Block]) -> dict[int, int]:
    """Block index -> the tool call's position among the calls (the wire's ``index``)."""
    calls = (i for i, b in enumerate(blocks) if b.kind is Kind.TOOL_CALL)
    return {i: n for n, i in enumerate(calls)}


def call_steps(blocks: Sequence[Block], group: Sequence[int]) -> list[tuple[str, int, str]]:
    """A group of tool calls as (``start`` | ``delta`` | ``end``, block index, piece): every
    start, the argument pieces alternating, every end."""
    steps = [("start", i, "") for i in group]
    steps += [("delta", group[g], piece)
              for g, piece in interleave([blocks[i].deltas for i in group])]
    steps += [("end", i, "") for i in group]
    return steps


def interleave(groups: Sequence[Sequence[Any]]) -> list[tuple[int, Any]]:
    """Round robin over ``groups``: (group index, item), one of each in turn."""
    out: list[tuple[int, Any]] = []
    longest = max((len(g) for g in groups), default=0)
    for i in range(longest):
        for g, group in enumerate(groups):
            if i < len(group):
                out.append((g, group[i]))
    return out
