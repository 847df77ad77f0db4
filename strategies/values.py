"""The leaf values every strategy draws from: text, numbers, timestamps, opaque JSON.

Every public strategy takes ``values=``; the default, :data:`ORDINARY`, draws what Pi writes
in everyday sessions. :func:`strategies.edge.edge_values` swaps in empty strings, astral and
unusual Unicode, extreme numbers and timestamps and deep nesting, so the same message, entry
and session strategies produce edge cases without a second copy of their structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

__all__ = [
    "ORDINARY",
    "Values",
    "entry_ids",
    "iso_timestamps",
    "json_values",
    "ms_timestamps",
    "texts",
]

# One strategy object for every optional field's coin: building one per draw (a cache look-up
# in Hypothesis) costs more than the draw itself.
BOOLEANS = st.booleans()
# Milliseconds between 2000-01-01 and 2100-01-01: what a real session holds.
_MS_MIN, _MS_MAX = 946_684_800_000, 4_102_444_800_000


@cache
def texts(*, min_size: int = 0, max_size: int = 24) -> SearchStrategy[str]:
    """Any Unicode text that can be written as UTF-8 (no lone surrogates).

    Example: ``'Read a.txt'``, ``'é\\n'``, ``''``.
    """
    return st.text(st.characters(codec="utf-8"), min_size=min_size, max_size=max_size)


@cache
def entry_ids() -> SearchStrategy[str]:
    """An entry id as Pi writes it: 8 lowercase hex digits. Example: ``'4b687de0'``."""
    return st.text("0123456789abcdef", min_size=8, max_size=8)


def iso_from_ms(ms: int) -> str:
    """``Date.prototype.toISOString`` for a millisecond time in years 0-9999."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@cache
def iso_timestamps() -> SearchStrategy[str]:
    """An entry timestamp: ISO 8601 in UTC with milliseconds, as ``Date.toISOString`` writes.

    Example: ``'2024-12-03T14:00:01.000Z'``.
    """
    # One integer draw (a datetimes() draw costs several): cheap for the fuzzer's rate.
    return st.integers(_MS_MIN, _MS_MAX).map(iso_from_ms)


@cache
def ms_timestamps() -> SearchStrategy[int]:
    """A message timestamp: Unix time in milliseconds. Example: ``1733234401000``."""
    return st.integers(_MS_MIN, _MS_MAX)


@cache
def json_values(*, max_leaves: int = 6) -> SearchStrategy[Any]:
    """Opaque JSON (``details``, ``data``, tool ``arguments``); integers are JS-safe.

    Example: ``{'path': 'a.txt', 'lines': [1, 2]}``.
    """
    leaves = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | texts(max_size=8) | \
        st.floats(allow_nan=False, allow_infinity=False, width=64).filter(
            lambda f: f == 0 or 1e-300 < abs(f) < 1e300)
    return st.recursive(
        leaves,
        lambda children: st.lists(children, max_size=3)
        | st.dictionaries(texts(max_size=6), children, max_size=3),
        max_leaves=max_leaves,
    )


@dataclass(frozen=True, eq=False)
class Values:
    """The pools of leaf values a strategy draws from (see the module docstring).

    Compared and hashed by identity, so strategies built from one ``Values`` are cached.
    """

    text: SearchStrategy[str] = field(default_factory=texts)
    name: SearchStrategy[str] = field(
        default_factory=lambda: st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10))
    tokens: SearchStrategy[int] = field(default_factory=lambda: st.integers(0, 200_000))
    cost: SearchStrategy[float] = field(
        default_factory=lambda: st.integers(0, 10**7).map(lambda n: n / 10**6))
    ms_timestamp: SearchStrategy[int | float | None] = field(default_factory=ms_timestamps)
    iso_timestamp: SearchStrategy[str] = field(default_factory=iso_timestamps)
    json: SearchStrategy[Any] = field(default_factory=json_values)


ORDINARY = Values()
