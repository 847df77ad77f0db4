"""Line up two lists before diffing them, so one missing or extra item is one difference.

Items are matched by a key (an item's canonical JSON bytes, or the scalar itself): first the
common head and tail, then anchors (keys that occur exactly once on each side, kept in the
longest run that is in order on both sides, as patience diff does), recursively between the
anchors; what is left in a gap is matched by equal keys (difflib), then by kind (an item's
role or type) and finally by position. Two lists of one length that share no anchor are
paired by position. Cost: linear in the list for the head, tail and anchors, ``n log n`` for
the ordered run; difflib only runs inside gaps, and only when they are small.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Callable, Hashable, Sequence

# (expected index, actual index): both set for a pair to compare, one None for an item that
# only one side has (missing from the answer, or extra in it).
Pair = tuple[int | None, int | None]

# Gaps up to this many item comparisons (len * len) are matched with difflib.
MAX_GAP_PRODUCT = 250_000


def align(expected: Sequence[Hashable], actual: Sequence[Hashable],
          expected_kind: Callable[[int], Hashable] | None = None,
          actual_kind: Callable[[int], Hashable] | None = None) -> list[Pair]:
    """The pairs of ``expected`` and ``actual`` keys, in order of both lists.

    ``expected_kind(i)`` and ``actual_kind(j)`` say what an item is (a message's role, a
    block's type): in a gap with no equal items, items of one kind are paired first.
    """
    out: list[Pair] = []
    aligner = _Aligner(expected, actual, expected_kind or _no_kind, actual_kind or _no_kind,
                       out)
    aligner.span(0, len(expected), 0, len(actual))
    return out


def _no_kind(index: int) -> Hashable:
    return None


class _Aligner:
    def __init__(self, expected: Sequence[Hashable], actual: Sequence[Hashable],
                 expected_kind: Callable[[int], Hashable],
                 actual_kind: Callable[[int], Hashable], out: list[Pair]):
        self.e, self.a = expected, actual
        self.e_kind, self.a_kind = expected_kind, actual_kind
        self.out = out

    def span(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        e, a, out = self.e, self.a, self.out
        while elo < ehi and alo < ahi and e[elo] == a[alo]:
            out.append((elo, alo))
            elo, alo = elo + 1, alo + 1
        tail: list[Pair] = []
        while elo < ehi and alo < ahi and e[ehi - 1] == a[ahi - 1]:
            ehi, ahi = ehi - 1, ahi - 1
            tail.append((ehi, ahi))
        if elo < ehi or alo < ahi:
            anchors = self._anchors(elo, ehi, alo, ahi)
            if anchors:
                for i, j in anchors:
                    self.span(elo, i, alo, j)
                    out.append((i, j))
                    elo, alo = i + 1, j + 1
                self.span(elo, ehi, alo, ahi)
            else:
                self.gap(elo, ehi, alo, ahi)
        out.extend(reversed(tail))

    def _anchors(self, elo: int, ehi: int, alo: int, ahi: int) -> list[tuple[int, int]]:
        """Keys once on each side, the longest run of them in order on both (patience)."""
        if ehi - elo < 2 and ahi - alo < 2:
            return []
        e_count: dict[Hashable, int] = {}
        for i in range(elo, ehi):
            e_count[self.e[i]] = -1 if self.e[i] in e_count else i
        a_count: dict[Hashable, int] = {}
        for j in range(alo, ahi):
            a_count[self.a[j]] = -1 if self.a[j] in a_count else j
        candidates = [(i, a_count[key]) for key, i in e_count.items()
                      if i >= 0 and a_count.get(key, -1) >= 0]
        candidates.sort()
        return _longest_increasing(candidates)

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
            self.out.extend((i + k, j + k) for k in range(block.size))
            i0, j0 = i + block.size, j + block.size

    def fill(self, elo: int, ehi: int, alo: int, ahi: int) -> None:
        """By position; what is left over on the longer side is missing or extra."""
        common = min(ehi - elo, ahi - alo)
        self.out.extend((elo + k, alo + k) for k in range(common))
        self.out.extend((i, None) for i in range(elo + common, ehi))
        self.out.extend((None, j) for j in range(alo + common, ahi))


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by their first index) increasing in the second."""
    tails: list[int] = []  # the smallest second index ending a run of each length
    ends: list[int] = []  # which pair ends it
    previous: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
        previous[n] = ends[k - 1] if k else -1
    run: list[tuple[int, int]] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        run.append(pairs[n])
        n = previous[n]
    return run[::-1]
