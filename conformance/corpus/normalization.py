"""Normalization applied to both sides before comparing: the golden and the answer alike.

Only values Pi invents at load time are normalized, and only where a port cannot match
them byte for byte (docs/normalization.md):

* generated ids: under an id-bearing key, a string that does not occur anywhere in the input
  session (a v1 migration assigns random 8-hex ids; an empty file gets a uuidv7 session id)
  becomes ``<generated-id-N>``, numbered in order of first appearance, keys visited in sorted
  order. Two answers agree when they generate ids with the same structure.
* generated timestamps: a string under ``timestamp`` that is not in the input (the header
  written into an empty file) becomes ``<generated-timestamp>``.

* numbers (``same_number``): JSON has a single number type, so ``1.0`` is ``1``; an integer
  beyond 2**53 is what a JavaScript double holds, so Python's ``6.26e16`` is JS's
  ``62630770878629400`` (found by the fuzzer). Integers (token counts, millisecond
  timestamps) compare exactly; only where a side is a fraction (a sum of float costs, which
  a port may add in another order) is a relative tolerance of ``REL_TOLERANCE`` allowed.

Everything else, opaque signatures included, compares exactly.
"""

from __future__ import annotations

import math
import re
from typing import Any

from conformance import jsonio

REL_TOLERANCE = 1e-9
ABS_TOLERANCE = 1e-12
_EXACT = 2**53


def is_number(value: Any) -> bool:
    """A JSON number: an int or a float, never a boolean."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_double(value: int | float) -> float:
    """The double a JavaScript engine holds for ``value`` (huge integers are infinite)."""
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def same_number(a: int | float, b: int | float) -> bool:
    """Whether two JSON numbers are the same value for Pi.

    Integers compare exactly (as a double holds them beyond 2**53); a fraction on either side
    may differ from the other by a relative ``REL_TOLERANCE``: costs are sums of binary
    fractions that a port may add in another order.
    """
    if isinstance(a, int) and isinstance(b, int) and -_EXACT < a < _EXACT and -_EXACT < b < _EXACT:
        return a == b
    x, y = as_double(a), as_double(b)
    if x == y:
        return True
    if (x.is_integer() and y.is_integer()) or math.isinf(x) or math.isinf(y):
        return False
    return math.isclose(x, y, rel_tol=REL_TOLERANCE, abs_tol=ABS_TOLERANCE)


ID_KEYS = frozenset(
    {"id", "parentId", "firstKeptEntryId", "leafId", "sourceEntryId", "sessionId", "targetId",
     "fromId"}
)


def input_strings(session: bytes) -> frozenset[str]:
    """Every string in the input session; a line that does not parse is scanned for literals."""
    found: set[str] = set()
    for line in session.decode("utf-8", errors="replace").split("\n"):
        try:
            _collect(jsonio.loads(line), found)
        except jsonio.JSONDecodeError:
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
