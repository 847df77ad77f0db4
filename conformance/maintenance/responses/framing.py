"""How bytes go on the wire: SSE events, and the HTTP response around a stream or an error.

Shared by every encoder (and by the capture encoders in ``captures/wire.py``): one chunk per
event, as the services send them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from conformance.corpus.http_responses import HttpResponse
from conformance.maintenance.responses.spec import BodyStyle, HttpError

SSE_HEADERS = (("content-type", "text/event-stream"), ("cache-control", "no-cache"))


def compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE event: an optional ``event:`` line and one ``data:`` line (JSON, or a string
    as is)."""
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else compact(data)
    return f"{head}data: {body}\n\n".encode()


def stream(chunks: Iterable[bytes], headers: Sequence[tuple[str, str]] = SSE_HEADERS,
           status: int = 200) -> HttpResponse:
    return HttpResponse(status, tuple(headers), tuple(chunks))


def error(http: HttpError, status: int, json_body: Any,
          extra_headers: Sequence[tuple[str, str]] = ()) -> HttpResponse:
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
    return HttpResponse(status, headers, chunks)


def interleave(groups: Sequence[Sequence[Any]]) -> list[tuple[int, Any]]:
    """Round robin over ``groups``: (group index, item), one of each in turn."""
    out: list[tuple[int, Any]] = []
    longest = max((len(g) for g in groups), default=0)
    for i in range(longest):
        for g, group in enumerate(groups):
            if i < len(group):
                out.append((g, group[i]))
    return out
