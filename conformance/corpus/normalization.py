"""Normalization applied to both sides before comparing: the golden and the answer alike.

Only values Pi invents at load time are normalized, and only where a port cannot match
them byte for byte (docs/normalization.md):

* generated ids: under an id-bearing key, a string that does not occur anywhere in the input
  session (a v1 migration assigns random 8-hex ids; an empty file gets a uuidv7 session id)
  becomes ``<generated-id-N>``, numbered in order of first appearance, keys visited in sorted
  order. Two answers agree when they generate ids with the same structure.
* generated timestamps: a string under ``timestamp`` that is not in the input (the header
  written into an empty file) becomes ``<generated-timestamp>``.

* numbers: an integral float becomes an int, because JSON has a single number type; an
  integer beyond 2**53 becomes a float, because JavaScript holds it as a double and writes
  ``6.26e16`` as ``62630770878629400`` (found by the fuzzer: Python and JS spell the same
  double differently).

Everything else, opaque signatures included, compares exactly.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

ID_KEYS = frozenset(
    {"id", "parentId", "firstKeptEntryId", "leafId", "sourceEntryId", "sessionId", "targetId",
     "fromId"}
)


def input_strings(session: bytes) -> frozenset[str]:
    """Every string in the input session; a line that does not parse is scanned for literals."""
    found: set[str] = set()
    for line in session.decode("utf-8", errors="replace").split("\n"):
        try:
            _collect(orjson.loads(line), found)
        except orjson.JSONDecodeError:
            found.update(m.group(1) for m in _LITERAL.finditer(line))
    return frozenset(found)


_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        found.update(value)
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found)


class _Normalizer:
    def __init__(self, known: frozenset[str]):
        self.known = known
        self.ids: dict[str, str] = {}

    def __call__(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self(value[k], k) for k in sorted(value)}
        if isinstance(value, list):
            return [self(v, key) for v in value]
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return int(value)  # JSON has one number type: 1.0 and 1 are the same value
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53:
            return float(value)  # what a JS double holds; 2**53 + 1 and 2**53 are one value
        if isinstance(value, str) and value not in self.known:
            if key in ID_KEYS:
                return self.ids.setdefault(value, f"<generated-id-{len(self.ids) + 1}>")
            if key == "timestamp":
                return "<generated-timestamp>"
        return value


def normalize(value: Any, known: frozenset[str]) -> Any:
    """``value`` with generated ids and timestamps replaced by stable placeholders.

    ``known`` is ``input_strings(session)``: strings that came from the input are kept.
    """
    return _Normalizer(known)(value)
