"""The JSON value rules that judging and maintenance share (docs/normalization.md).

* numbers (``same_number``): JSON has a single number type, so ``1.0`` is ``1``; an integer
  beyond 2**53 is what a JavaScript double holds, so Python's ``6.26e16`` is JS's
  ``62630770878629400`` (found by the fuzzer). Integers below 2**53 (token counts,
  millisecond timestamps) compare exactly; only where a side is a fraction (a sum of float
  costs, which a port may add in another order) or an integer beyond 2**53 (which JavaScript
  sums as doubles) is a relative tolerance of ``REL_TOLERANCE`` (or, near zero, an absolute
  ``ABS_TOLERANCE``) allowed.

* the input's strings (``input_strings``): where a golden has not recorded which values Pi
  generates, judging/generated_values.py guesses that a string under one of ``ID_KEYS`` or
  ``timestamp`` that is not in the input session is one.

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
        return math.inf if value > 0 else -math.inf


def same_number(a: int | float, b: int | float) -> bool:
    """Whether two JSON numbers are the same value for Pi.

    Integers below 2**53 compare exactly; a fraction on either side, or an integer beyond
    2**53 (where JavaScript's integer sums are double sums, rounded at every step), may differ
    from the other by a relative ``REL_TOLERANCE`` or an absolute ``ABS_TOLERANCE`` (near
    zero, where a relative tolerance allows almost nothing): costs are sums of binary
    fractions that a port may add in another order, and a port adding huge token counts
    exactly gets another last digit than Pi (found by the fuzzer: 2**53 against 2**53 + 2).
    """
    if isinstance(a, int) and isinstance(b, int) and -_EXACT < a < _EXACT and -_EXACT < b < _EXACT:
        return a == b
    x, y = as_double(a), as_double(b)
    if x == y:
        return True
    if math.isinf(x) or math.isinf(y):
        return False
    if x.is_integer() and y.is_integer() and max(abs(x), abs(y)) < _EXACT:
        return False  # integers JavaScript adds exactly: token counts, timestamps
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
