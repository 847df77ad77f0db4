"""Where a provider response's body may be cut on its way to a stream parser.

A parser reads a streamed response in whatever pieces the network hands it: one SSE event per
read, a byte at a time, or a read that ends inside a multi-byte UTF-8 character. Its events and
final message must not depend on that. These strategies draw such cuts for a body you give,
shrinking towards fewer cuts, so a failure reads as "cut here and here"::

    from hypothesis import given
    import strategies as pis

    @given(pis.body_cuts(body))
    def test_my_parser_ignores_chunk_boundaries(cuts):
        assert my_parser.parse(pis.cut_body(body, cuts)) == my_parser.parse([body])

The pi-conformance fuzzer (``pi-conformance fuzz --responses``) runs the same search through a
port for every response of the corpus, and judges each cut against Pi's golden.
"""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

__all__ = ["body_cuts", "character_cuts", "cut_body", "every_byte"]


def cut_body(body: bytes, cuts: list[int]) -> list[bytes]:
    """``body`` cut at ``cuts`` (offsets out of range or repeated are ignored)."""
    edges = [0, *sorted({cut for cut in cuts if 0 < cut < len(body)}), len(body)]
    return [body[start:end] for start, end in itertools.pairwise(edges) if end > start]


def every_byte(body: bytes) -> list[int]:
    """Every offset: each byte its own chunk."""
    return list(range(1, len(body)))


def character_cuts(body: bytes) -> list[int]:
    """The offsets inside a multi-byte UTF-8 character (before each continuation byte)."""
    return [offset for offset in range(1, len(body)) if body[offset] & 0xC0 == 0x80]


def body_cuts(body: bytes) -> st.SearchStrategy[list[int]]:
    """Sorted offsets to cut ``body`` at: any set of them, some inside characters, or every
    byte apart over a stretch of the body (the whole of it at most). Shrinks towards fewer
    cuts within each of these forms; a search that needs the fewest cuts overall narrows the
    cuts it found further (``pi-conformance fuzz --responses`` does, by delta debugging)."""
    if len(body) < 2:
        return st.just([])
    last = len(body) - 1
    anywhere = st.integers(min_value=1, max_value=last)
    inside = character_cuts(body)
    pools = [st.lists(anywhere, max_size=16)]
    if inside:
        pools.append(st.lists(st.sampled_from(inside), min_size=1, max_size=16))
    stretches = st.tuples(st.integers(min_value=1, max_value=last),
                          st.integers(min_value=1, max_value=last)).map(
        lambda where: list(range(where[0], min(last, where[0] + where[1] - 1) + 1)))
    pools.append(st.one_of(st.just(every_byte(body)), stretches))
    return st.one_of(*pools).map(lambda cuts: sorted(set(cuts)))
