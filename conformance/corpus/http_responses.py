"""A provider's HTTP response as it arrives: status, headers and the body in the chunks it came in.

The input of the inbound stages (``response.<api>``, and the scripted turns of ``events``). On
disk (``responses/<api>.json`` in a case) and in a run request it is one JSON object::

    {"status": 200,
     "headers": [["content-type", "text/event-stream"]],
     "chunks": [{"text": "event: ...\\n\\n"}, {"base64": "AAAA..."}]}

A chunk is ``text`` when its bytes are UTF-8 and ``base64`` otherwise (a binary event stream, or
a split inside a multi-byte character), so a file stays readable where it can and exact always.
Headers are a list of pairs: their order is what the server sends.
"""

from __future__ import annotations

import base64
import binascii
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.errors import CorpusError


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    def split_at(self, offsets: Iterable[int]) -> HttpResponse:
        """The same body cut at ``offsets`` (byte positions, any order, out-of-range ignored)
        instead of its own chunk boundaries: the chunk-split property's input."""
        body = self.body
        cuts = sorted({o for o in offsets if 0 < o < len(body)})
        edges = [0, *cuts, len(body)]
        chunks = tuple(body[a:b] for a, b in itertools.pairwise(edges) if b > a)
        return HttpResponse(self.status, self.headers, chunks)

    def boundaries(self) -> tuple[int, ...]:
        """The byte offsets where one chunk ends and the next begins."""
        offsets, at = [], 0
        for chunk in self.chunks[:-1]:
            at += len(chunk)
            offsets.append(at)
        return tuple(offsets)

    def serializable(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "headers": [list(pair) for pair in self.headers],
            "chunks": [_chunk_json(chunk) for chunk in self.chunks],
        }

    @classmethod
    def from_dict(cls, data: Any, *, where: Path | str | None = None) -> HttpResponse:
        """Validated once here; every problem names ``where`` (a file, or a request's field)."""
        if not isinstance(data, dict):
            raise CorpusError("an HTTP response must be a JSON object", path=where)
        unknown = set(data) - {"status", "headers", "chunks"}
        if unknown:
            raise CorpusError(f"unknown keys in an HTTP response: {sorted(unknown)}", path=where)
        status = data.get("status")
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
            raise CorpusError(f"status must be an HTTP status code (100-599), not {status!r}",
                              path=where)
        headers = data.get("headers", [])
        if not isinstance(headers, list) or not all(
                isinstance(pair, list) and len(pair) == 2
                and all(isinstance(part, str) for part in pair) for pair in headers):
            raise CorpusError("headers must be a list of [name, value] string pairs", path=where)
        chunks = data.get("chunks")
        if not isinstance(chunks, list):
            raise CorpusError("chunks must be a list of {text} or {base64} objects", path=where)
        return cls(status, tuple((name, value) for name, value in headers),
                   tuple(_chunk_bytes(chunk, index, where) for index, chunk in enumerate(chunks)))


def _chunk_json(chunk: bytes) -> dict[str, str]:
    try:
        return {"text": chunk.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(chunk).decode("ascii")}


def _chunk_bytes(chunk: Any, index: int, where: Path | str | None) -> bytes:
    if isinstance(chunk, dict) and set(chunk) == {"text"} and isinstance(chunk["text"], str):
        try:
            return chunk["text"].encode("utf-8")
        except UnicodeEncodeError:
            raise CorpusError(f"chunk {index}: text holds a lone surrogate; use base64",
                              path=where) from None
    if isinstance(chunk, dict) and set(chunk) == {"base64"} and isinstance(chunk["base64"], str):
        try:
            return base64.b64decode(chunk["base64"], validate=True)
        except binascii.Error as exc:
            raise CorpusError(f"chunk {index}: not base64: {exc}", path=where) from None
    raise CorpusError(f"chunk {index} must be {{\"text\": str}} or {{\"base64\": str}}",
                      path=where)


def load(path: Path) -> HttpResponse:
    """A response file, with any problem named by the file."""
    return HttpResponse.from_dict(jsonio.read_json(path, CorpusError), where=path)


def dumps(response: HttpResponse) -> str:
    """The file's text: one chunk a line, so a diff of two versions reads chunk by chunk."""
    data = response.serializable()
    lines = ",\n".join("    " + jsonio.dumps(chunk).decode() for chunk in data["chunks"])
    headers = jsonio.dumps(data["headers"]).decode()
    return (f'{{\n  "status": {data["status"]},\n  "headers": {headers},\n'
            f'  "chunks": [\n{lines}\n  ]\n}}\n')


def of_chunks(status: int, headers: Sequence[tuple[str, str]],
              chunks: Iterable[bytes]) -> HttpResponse:
    return HttpResponse(status, tuple(headers), tuple(chunks))
