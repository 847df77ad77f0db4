"""Values of a strategy drawn from one integer seed, without Hypothesis's engine.

Every Hypothesis draw costs tens of microseconds of bookkeeping (spans, labels, the choice
record that makes shrinking possible); a session entry takes about thirty of them. The
``seeded=True`` session strategies draw only a tree's shape with Hypothesis and each entry's
values with :class:`SeededDraw`, which walks the very same strategy objects (``builds``,
``composite``, ``lists``, ``one_of``, ``map`` ...) with a :class:`random.Random`: one copy of
the structure, at a fraction of the cost. Seed 0 gives the simplest value of every strategy
(what Hypothesis would shrink it to), so shrinking a seed to 0 simplifies its whole entry.
:func:`recorded` goes one step further, for the fuzzer: it draws the shape too, and writes
down the choices Hypothesis would have made, so that Hypothesis can replay and shrink it.

Only the strategy types these strategies are built from are known (``TypeError`` names any
other); it reads Hypothesis's strategy classes, whose attributes a test pins.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy
from hypothesis.strategies._internal import collections as _collections
from hypothesis.strategies._internal import core as _core
from hypothesis.strategies._internal import flatmapped as _flatmapped
from hypothesis.strategies._internal import lazy as _lazy
from hypothesis.strategies._internal import misc as _misc
from hypothesis.strategies._internal import numbers as _numbers
from hypothesis.strategies._internal import random as _random
from hypothesis.strategies._internal import recursive as _recursive
from hypothesis.strategies._internal import shared as _shared
from hypothesis.strategies._internal import strategies as _strategies
from hypothesis.strategies._internal import strings as _strings

__all__ = ["SEEDS", "SeededDraw", "recorded"]

T = TypeVar("T")
SEEDS = st.integers(0, 2**32 - 1)  # one Hypothesis draw: the seed of everything it stands for
_ATTEMPTS = 100  # draws a filter may reject before the value is given up on
_FLOATS = (0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 1e300, 5e-324, 2.0**53, 1.5)


class _Rejected(Exception):
    """A filter rejected every attempt, or a recursive value ran out of leaves."""


class SeededDraw:
    """A ``draw`` function (the one ``@composite`` hands its body) backed by a seed.

    ``draw(strategy)`` gives a value ``strategy`` can give; the same seed gives the same
    values in any process. Seed 0 gives each strategy's simplest value."""

    def __init__(self, seed: int):
        self.minimal = seed == 0
        self.rng = random.Random(seed)
        self.leaves: list[int] = []  # the budget of each recursive value being drawn
        self.choices: list[Any] | None = None  # what Hypothesis would record: see recorded()

    def __call__(self, strategy: SearchStrategy[T], label: object = None) -> T:
        if self.choices is not None and type(strategy) not in _RECORDABLE:
            raise TypeError(f"{type(strategy).__name__} makes choices a recorded draw cannot "
                            f"write as Hypothesis would ({strategy!r:.80})")
        handler = _HANDLERS.get(type(strategy))
        if handler is None:
            for kind, candidate in _HANDLERS.items():
                if isinstance(strategy, kind):
                    handler = candidate
                    break
            else:
                raise TypeError(f"a seeded draw does not know {type(strategy).__name__} "
                                f"({strategy!r:.80})")
            _HANDLERS[type(strategy)] = handler
        result: T = handler(self, strategy)
        return result

    # -- sizes and choices, biased the way Hypothesis biases them ------------------------

    def size(self, min_size: int, max_size: float, average: float) -> int:
        """A collection's length: the minimum, or more with a geometric tail of ``average``."""
        if self.minimal:
            return min_size
        stop = 1.0 / (1.0 + max(0.0, average - min_size))
        size = min_size
        while size < max_size and self.rng.random() >= stop:
            size += 1
        return size

    def index(self, count: int) -> int:
        return 0 if self.minimal else self.rng.randrange(count)

    def integer(self, low: int | None, high: int | None) -> int:
        """Bounds and 0 more often than the rest, small values often, like Hypothesis."""
        simplest = max(low if low is not None else 0, min(high if high is not None else 0, 0))
        if self.minimal:
            return simplest
        lo = low if low is not None else -(2**63)
        hi = high if high is not None else 2**63
        roll = self.rng.random()
        if roll < 0.03:
            return lo
        if roll < 0.06:
            return hi
        if roll < 0.1:
            return simplest
        if roll < 0.35 and hi - lo > 256:  # small values, as people (and Pi) write them
            return min(hi, simplest + self.rng.randrange(256))
        return self.rng.randint(lo, hi)


def _integers(draw: SeededDraw, strategy: Any) -> int:
    value = draw.integer(strategy.start, strategy.end)
    if draw.choices is not None:
        draw.choices.append(value)
    return value


def _booleans(draw: SeededDraw, strategy: Any) -> bool:
    value = not draw.minimal and draw.rng.random() < 0.5
    if draw.choices is not None:
        draw.choices.append(value)
    return value


def _sampled(draw: SeededDraw, strategy: Any) -> Any:
    elements = strategy.elements
    start = draw.index(len(elements))
    if draw.choices is not None:  # Hypothesis draws the index; no filter to retry here
        if any(step[0] != "map" for step in strategy._transformations):
            raise TypeError(f"a recorded draw cannot retry a filter ({strategy!r:.80})")
        draw.choices.append(start)
    for position in range(start, start + len(elements)):  # the first one a filter keeps
        value = elements[position % len(elements)]
        for method, function, *_ in strategy._transformations:  # 6.16x adds a location
            if method == "map":
                value = function(value)
            elif not function(value):
                break
        else:
            return value
    raise _Rejected(repr(strategy))


def _one_of(draw: SeededDraw, strategy: Any) -> Any:
    branches = _branches(strategy)
    start = draw.index(len(branches))
    if draw.choices is not None:  # Hypothesis draws the branch's index, then the branch
        draw.choices.append(start)
        return draw(branches[start])
    for position in range(start, start + len(branches)):  # a filter may empty a branch
        try:
            return draw(branches[position % len(branches)])
        except _Rejected:
            continue
    raise _Rejected(repr(strategy))


_BRANCHES: dict[int, tuple[Any, list[Any]]] = {}  # by id: element_strategies is recomputed


def _branches(strategy: Any) -> list[Any]:
    cached = _BRANCHES.get(id(strategy))
    if cached is None or cached[0] is not strategy:
        if len(_BRANCHES) > 10_000:  # one_of built while drawing: do not grow for ever
            _BRANCHES.clear()
        cached = _BRANCHES[id(strategy)] = (strategy, list(strategy.element_strategies))
    return cached[1]


def _lists(draw: SeededDraw, strategy: Any) -> list[Any]:
    size = draw.size(strategy.min_size, strategy.max_size, strategy.average_size)
    return [draw(strategy.element_strategy) for _ in range(size)]


def _unique_lists(draw: SeededDraw, strategy: Any) -> list[Any]:
    size = draw.size(strategy.min_size, strategy.max_size, strategy.average_size)
    out: list[Any] = []
    seen: list[set[Any]] = [set() for _ in strategy.keys]
    for _ in range(size * 3 + _ATTEMPTS):
        if len(out) == size:
            break
        value = draw(strategy.element_strategy)
        keys = [key(value) for key in strategy.keys]
        if any(k in s for k, s in zip(keys, seen, strict=True)):
            if draw.minimal:  # the simplest value again: nothing simpler is unique
                draw.minimal = False
                try:
                    value = draw(strategy.element_strategy)
                finally:
                    draw.minimal = True
                keys = [key(value) for key in strategy.keys]
                if any(k in s for k, s in zip(keys, seen, strict=True)):
                    continue
            else:
                continue
        for k, s in zip(keys, seen, strict=True):
            s.add(k)
        if strategy.tuple_suffixes is not None:  # dictionaries: the key, then the value
            value = (value, *draw(strategy.tuple_suffixes))
        out.append(value)
    if len(out) < strategy.min_size:
        raise _Rejected(repr(strategy))
    return out


def _text(draw: SeededDraw, strategy: Any) -> str:
    """Mostly ASCII, sometimes any code point the text allows; ``0`` when simplest."""
    alphabet = _alphabet(strategy.element_strategy)
    size = draw.size(strategy.min_size, strategy.max_size, strategy.average_size)
    if draw.minimal:
        return alphabet.simplest * size
    random_ = draw.rng.random
    ascii_, intervals, count = alphabet.ascii, alphabet.intervals, len(alphabet.intervals)
    chars = []
    for _ in range(size):
        roll = random_()
        if roll < 0.7 and ascii_:
            chars.append(ascii_[int(roll / 0.7 * len(ascii_))])
        else:
            chars.append(chr(intervals[int(random_() * count)]))
    return "".join(chars)


class _Alphabet:
    """What a text strategy's characters are drawn from, worked out once per strategy."""

    def __init__(self, characters: Any):
        self.characters = characters  # kept: the cache is by id
        self.intervals = _lazy.unwrap_strategies(characters).intervals  # type: ignore[no-untyped-call]
        self.ascii = "".join(chr(c) for lo, hi in self.intervals.intervals if lo <= 127
                             for c in range(lo, min(hi, 127) + 1))
        self.simplest = "0" if "0" in self.ascii else chr(self.intervals[0])


_ALPHABETS: dict[int, _Alphabet] = {}


def _alphabet(characters: Any) -> _Alphabet:
    alphabet = _ALPHABETS.get(id(characters))
    if alphabet is None or alphabet.characters is not characters:
        if len(_ALPHABETS) > 10_000:
            _ALPHABETS.clear()
        alphabet = _ALPHABETS[id(characters)] = _Alphabet(characters)
    return alphabet


def _bytes(draw: SeededDraw, strategy: Any) -> bytes:
    size = draw.size(strategy.min_size, strategy.max_size, 8)
    return bytes(0 if draw.minimal else draw.rng.randrange(256) for _ in range(size))


def _randoms(draw: SeededDraw, strategy: Any) -> random.Random:
    return random.Random(0 if draw.minimal else draw.rng.getrandbits(64))


def _shared_value(draw: SeededDraw, strategy: Any) -> Any:
    return draw(strategy.base)  # uuids() shares a Random: each draw here stands alone


def _floats(draw: SeededDraw, strategy: Any) -> float:
    low, high = strategy.min_value, strategy.max_value
    candidates = [f for f in _FLOATS if low <= f <= high]
    if draw.minimal and candidates:
        return candidates[0]
    roll = draw.rng.random()
    if roll < 0.3 and candidates:
        return draw.rng.choice(candidates)
    if math.isfinite(low) and math.isfinite(high):
        return float(draw.rng.uniform(low, high))
    value = math.ldexp(draw.rng.random(), draw.rng.randint(-1074, 1023))
    value = -value if draw.rng.random() < 0.5 else value
    return float(max(low, min(high, value)))


def _builds(draw: SeededDraw, strategy: Any) -> Any:
    args = [draw(a) for a in strategy.args]
    kwargs = {k: draw(v) for k, v in strategy.kwargs.items()}
    return strategy.target(*args, **kwargs)


def _composite(draw: SeededDraw, strategy: Any) -> Any:
    return strategy.definition(draw, *strategy.args, **strategy.kwargs)


def _mapped(draw: SeededDraw, strategy: Any) -> Any:
    return strategy.pack(draw(strategy.mapped_strategy))


def _filtered(draw: SeededDraw, strategy: Any) -> Any:
    minimal = draw.minimal
    try:
        for _ in range(_ATTEMPTS):
            value = draw(strategy.filtered_strategy)
            if all(condition(value) for condition in strategy.flat_conditions):
                return value
            draw.minimal = False  # the simplest value was rejected: try others
    finally:
        draw.minimal = minimal
    raise _Rejected(repr(strategy))


def _flat_mapped(draw: SeededDraw, strategy: Any) -> Any:
    return draw(strategy.expand(draw(strategy.base)))


def _tuples(draw: SeededDraw, strategy: Any) -> tuple[Any, ...]:
    return tuple(draw(element) for element in strategy.element_strategies)


def _lazy_strategy(draw: SeededDraw, strategy: Any) -> Any:
    return draw(strategy.wrapped_strategy)


def _recursive_value(draw: SeededDraw, strategy: Any) -> Any:
    for _ in range(_ATTEMPTS):
        draw.leaves.append(strategy.max_leaves)
        try:
            return draw(strategy.strategy)
        except _Rejected:
            continue
        finally:
            draw.leaves.pop()
    return draw(strategy.base)


def _limited(draw: SeededDraw, strategy: Any) -> Any:
    if not draw.leaves or draw.leaves[-1] <= 0:
        raise _Rejected("no leaves left")
    draw.leaves[-1] -= 1
    return draw(strategy.base_strategy)


_HANDLERS: dict[type, Callable[[SeededDraw, Any], Any]] = {
    _lazy.LazyStrategy: _lazy_strategy,
    _numbers.IntegersStrategy: _integers,
    _numbers.FloatStrategy: _floats,
    _misc.BooleansStrategy: _booleans,
    _strategies.SampledFromStrategy: _sampled,  # just() and none() too
    _strategies.OneOfStrategy: _one_of,
    _strategies.MappedStrategy: _mapped,
    _strategies.FilteredStrategy: _filtered,
    _strings.TextStrategy: _text,
    _strings.BytesStrategy: _bytes,
    _collections.UniqueListStrategy: _unique_lists,  # UniqueSampledListStrategy too
    _collections.ListStrategy: _lists,
    _collections.TupleStrategy: _tuples,
    _core.BuildsStrategy: _builds,
    _random.RandomStrategy: _randoms,
    _shared.SharedStrategy: _shared_value,
    _core.CompositeStrategy: _composite,
    _flatmapped.FlatMapStrategy: _flat_mapped,
    _recursive.RecursiveStrategy: _recursive_value,
    _recursive.LimitedStrategy: _limited,
}


# The strategies a recorded draw goes through: each makes the choices Hypothesis would make
# (an integer; a boolean; a sampled index; a branch index) or none (the others).
_RECORDABLE = frozenset({
    _lazy.LazyStrategy, _numbers.IntegersStrategy, _misc.BooleansStrategy,
    _strategies.SampledFromStrategy, _strategies.OneOfStrategy, _strategies.MappedStrategy,
    _core.CompositeStrategy})


def recorded(strategy: SearchStrategy[T], seed: int) -> tuple[T, list[Any]]:
    """A value of ``strategy`` drawn from ``seed``, with the choices Hypothesis would have
    recorded for it: handed to Hypothesis (``choices_to_bytes``), they replay the same value,
    which is how a session drawn without Hypothesis is shrunk by it.

    ``strategy`` may only draw integers, booleans, ``sampled_from`` and ``one_of`` itself
    (through ``map`` and ``@composite``): a ``seeded=True`` session strategy, whose values
    come from seeds it draws as integers (``TypeError`` otherwise)."""
    draw = SeededDraw(seed)
    draw.minimal, draw.choices = False, []
    value = draw(strategy)
    return value, draw.choices
