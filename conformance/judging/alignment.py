"""Line up two lists before diffing them, so one missing or extra item is one difference.

Items are matched by a key (a digest of an item's canonical JSON bytes, or the scalar itself):
first the common head and tail, then anchors (keys that occur exactly once on each side, kept
in the longest run that is in order on both sides, as patience diff does), recursively between
the anchors; what is left in a gap is matched by equal keys (difflib), then by kind (an item's
role or type) and finally by position. Two lists of one length that share no anchor are
paired by position. Cost: linear in the list for the head, tail and anchors, ``n log n`` for
the ordered run; difflib only runs inside gaps, and only when they are small.

Memory: the pairs are two arrays of indices (16 bytes a pair, no object per pair), and
finding anchors keeps one dictionary entry and one integer per key of the expected list:
about 100 bytes per item beside the keys themselves, whatever the items hold.
"""

from __future__ import annotations

import bisect
import difflib
from array import array
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

# (expected index, actual index): both set for a pair to compare, one None for an item that
# only one side has (missing from the answer, or extra in it).
Pair = tuple[int | None, int | None]

# Gaps up to this many item comparisons (len * len) are matched with difflib.
MAX_GAP_PRODUCT = 250_000

NONE = -1  # an index that is not there: the item only the other side has


@dataclass(frozen=True)
class Aligned:
    """The pairs in order of both lists, as two arrays of the same length: ``expected[k]``
    and ``actual[k]`` are the k-th pair's indices, ``NONE`` for the side without the item."""

    expected: array[int]
    actual: array[int]

    def __len__(self) -> int:
        return len(self.expected)

    def pairs(self) -> list[Pair]:
        return [(None if i == NONE else i, None if j == NONE else j)
                for i, j in zip(self.expected, self.actual, strict=True)]


def align(expected: Sequence[Hashable], actual: Sequence[Hashable],
          expected_kind: Callable[[int], Hashable] | None = None,
          actual_kind: Callable[[int], Hashable] | None = None) -> list[Pair]:
    """The pairs of ``expected`` and ``actual`` keys, in order of both lists.

    ``expected_kind(i)`` and ``actual_kind(j)`` say what an item is (a message's role, a
    block's type): in a gap with no equal items, items of one kind are paired first.
    """
    return aligned(expected, actual, expected_kind, actual_kind).pairs()


def aligned(expected: Sequence[Hashable], actual: Sequence[Hashable],
            expected_kind: Callable[[int], Hashable] | None = None,
            actual_kind: Callable[[int], Hashable] | None = None) -> Aligned:
    """``align``'s pairs as arrays: what a long list's alignment keeps."""
    aligner = _Aligner(expected, actual, expected_kind or _no_kind, actual_kind or _no_kind)
    aligner.span(0, len(expected), 0, len(actual))
    return Aligned(aligner.e_out, aligner.a_out)


def _no_kind(index: int) -> Hashable:
    return None


class _Aligner:
    def __init__(self, expected: Sequence[Hashable], actual: Sequence[Hashable],
                 expected_kind: Callable[[int], Hashable],
                 actual_kind: Callable[[int], Hashable]):
        self.e, self.a = expected, actual
        self.e_kind, self.a_kind = expected_kind, actual_kind
        self.e_out: array[int] = array("q")
        self.a_out: array[int] = array("q")

    def pair(self, i: int, j: int) -> None:
        self.e_out.append(i)
        self.a_out.append(j)

    def span(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        e, a = self.e, self.a
        while elo < ehi and alo < ahi and e[elo] == a[alo]:
            self.pair(elo, alo)
            elo, alo = elo + 1, alo + 1
        tail_start = ehi  # the common tail: ehi..tail_start pairs with ahi..
        while elo < ehi and alo < ahi and e[ehi - 1] == a[ahi - 1]:
            ehi, ahi = ehi - 1, ahi - 1
        if elo < ehi or alo < ahi:
            anchors = self._anchors(elo, ehi, alo, ahi)
            if anchors is not None:
                for i, j in zip(*anchors, strict=True):
                    self.span(elo, i, alo, j)
                    self.pair(i, j)
                    elo, alo = i + 1, j + 1
                self.span(elo, ehi, alo, ahi)
            else:
                self.gap(elo, ehi, alo, ahi)
        self.e_out.extend(range(ehi, tail_start))
        self.a_out.extend(range(ahi, ahi + tail_start - ehi))

    def _anchors(self, elo: int, ehi: int, alo: int, ahi: int
                 ) -> tuple[array[int], array[int]] | None:
        """Keys once on each side, the longest run of them in order on both (patience).

        One dictionary, keyed by the expected side's keys: ``i * stride`` for a key once
        there (plus ``j - alo + 1`` once it is found once in the answer), negative once it
        is seen twice on either side."""
        if ehi - elo < 2 and ahi - alo < 2:
            return None
        e, a = self.e, self.a
        stride = ahi - alo + 2
        found: dict[Hashable, int] = {}
        for i in range(elo, ehi):
            found[e[i]] = -1 if e[i] in found else i * stride
        for j in range(alo, ahi):
            slot = found.get(a[j])
            if slot is not None and slot >= 0:
                found[a[j]] = slot + j - alo + 1 if slot % stride == 0 else -1
        # In the dictionary's order, which is the expected side's: sorted by i already.
        e_anchor: array[int] = array("q")
        a_anchor: array[int] = array("q")
        for slot in found.values():
            if slot > 0 and slot % stride:
                e_anchor.append(slot // stride)
                a_anchor.append(slot % stride - 1 + alo)
        del found
        if not e_anchor:
            return None
        return _longest_increasing(e_anchor, a_anchor)

    def gap(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        """A stretch without anchors: equal items by difflib, the rest by kind and position."""
        if elo == ehi or alo == ahi or ehi - elo == ahi - alo:
            self.fill(elo, ehi, alo, ahi)
            return
        if (ehi - elo) * (ahi - alo) > MAX_GAP_PRODUCT:
            self.by_kind(elo, ehi, alo, ahi)
            return
        self.matched(self.e[elo:ehi], self.a[alo:ahi], elo, alo, self.by_kind)

    def by_kind(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        """Unequal items: pair those of one kind in order, the rest by position."""
        if elo == ehi or alo == ahi or ehi - elo == ahi - alo or \
                (ehi - elo) * (ahi - alo) > MAX_GAP_PRODUCT:
            self.fill(elo, ehi, alo, ahi)
            return
        e_kinds = [self.e_kind(i) for i in range(elo, ehi)]
        a_kinds = [self.a_kind(j) for j in range(alo, ahi)]
        self.matched(e_kinds, a_kinds, elo, alo, self.fill)

    def matched(self, e: Sequence[Hashable], a: Sequence[Hashable], elo: int, alo: int,
                gap: Callable[[int, int, int, int], None]) -> None:
        """Pair difflib's matching blocks of ``e`` and ``a`` (offset by ``elo``, ``alo``) and
        hand every gap between them to ``gap``."""
        matcher = difflib.SequenceMatcher(None, e, a, autojunk=False)
        i0, j0 = elo, alo
        for block in matcher.get_matching_blocks():
            i, j = elo + block.a, alo + block.b
            gap(i0, i, j0, j)
            self.e_out.extend(range(i, i + block.size))
            self.a_out.extend(range(j, j + block.size))
            i0, j0 = i + block.size, j + block.size

    def fill(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        """By position; what is left over on the longer side is missing or extra."""
        common = min(ehi - elo, ahi - alo)
        self.e_out.extend(range(elo, elo + common))
        self.a_out.extend(range(alo, alo + common))
        self.e_out.extend(range(elo + common, ehi))
        self.a_out.extend([NONE] * (ehi - elo - common))
        self.e_out.extend([NONE] * (ahi - alo - common))
        self.a_out.extend(range(alo + common, ahi))


def _longest_increasing(first: array[int], second: array[int]
                        ) -> tuple[array[int], array[int]]:
    """The longest run of pairs ``(first[n], second[n])`` (sorted by ``first``) increasing in
    ``second``, as two arrays."""
    tails: array[int] = array("q")  # the smallest second index ending a run of each length
    ends: array[int] = array("q")  # which pair ends it
    previous: array[int] = array("q", [-1]) * len(first)
    for n, j in enumerate(second):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
        previous[n] = ends[k - 1] if k else -1
    run: array[int] = array("q")
    n = ends[-1] if ends else -1
    while n >= 0:
        run.append(n)
        n = previous[n]
    run.reverse()
    return array("q", (first[n] for n in run)), array("q", (second[n] for n in run))
