"""The public cut strategies and the chunk-boundary property (strategies/responses.py)."""

from __future__ import annotations

import pytest
from hypothesis import find, given

import strategies
from strategies.properties import PropertyViolation, response_ignores_chunk_boundaries

BODY = "data: {\"t\":\"é😀\"}\n\n".encode()


@given(strategies.body_cuts(BODY))
def test_cuts_stay_inside_the_body_and_keep_it(cuts):
    assert cuts == sorted(set(cuts))
    assert all(0 < cut < len(BODY) for cut in cuts)
    assert b"".join(strategies.cut_body(BODY, cuts)) == BODY


def test_the_search_reaches_a_cut_inside_a_character():
    inside = set(strategies.character_cuts(BODY))
    assert inside
    found = find(strategies.body_cuts(BODY), lambda cuts: bool(inside & set(cuts)))
    assert inside & set(found)


def test_stretches_of_every_byte_are_drawn():
    found = find(strategies.body_cuts(BODY), lambda cuts: len(cuts) > 16)
    assert found == list(range(found[0], found[-1] + 1))  # only a stretch holds that many


def test_every_byte_and_a_short_body():
    assert strategies.cut_body(b"abc", strategies.every_byte(b"abc")) == [b"a", b"b", b"c"]
    assert find(strategies.body_cuts(b"a"), lambda cuts: True) == []


ANSWER = {"events": [{"type": "text_delta", "delta": "é", "partial": {"timestamp": 1}}],
          "message": {"content": [{"type": "text", "text": "é"}], "timestamp": 1,
                      "durationMs": 3}}


def test_the_clock_may_differ():
    later = {"events": [{"type": "text_delta", "delta": "é", "partial": {"timestamp": 9}}],
             "message": {"content": [{"type": "text", "text": "é"}], "timestamp": 9,
                         "durationMs": 40}}
    response_ignores_chunk_boundaries(ANSWER, later)


@pytest.mark.parametrize(("cut", "problem"), [
    ({"events": [], "message": ANSWER["message"]}, "1 events from the whole chunks, 0 once cut"),
    ({"events": [{"type": "text_delta", "delta": "", "partial": {}}],
      "message": ANSWER["message"]}, "event 0 differs"),
    ({"events": ANSWER["events"], "message": {"content": [], "timestamp": 1}},
     "the final message differs"),
])
def test_a_dropped_or_changed_delta_is_named(cut, problem):
    with pytest.raises(PropertyViolation, match=problem):
        response_ignores_chunk_boundaries(ANSWER, cut)
