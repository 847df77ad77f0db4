"""Where the runner cuts a response: reproducible per seed, case and API; the body kept."""

from __future__ import annotations

import random

import pytest

from conformance.corpus.http_responses import HttpResponse
from conformance.execution.rechunking import MODES, Rechunking, cuts

RESPONSE = HttpResponse(200, (), ("data: é😀\n\n".encode(), b"data: [DONE]\n\n"))


def test_the_same_seed_cuts_the_same_way_and_keeps_the_body():
    first = Rechunking(3).split("case", "anthropic-messages", RESPONSE)
    assert first == Rechunking(3).split("case", "anthropic-messages", RESPONSE)
    assert first.body == RESPONSE.body
    seen = {Rechunking(seed).split("case", "x", RESPONSE).chunks for seed in range(20)}
    assert len(seen) > 2  # the seeds do choose different cuts


def test_bytes_mode_cuts_everywhere():
    assert cuts(RESPONSE.body, "bytes", random.Random(0)) == list(range(1, len(RESPONSE.body)))


def test_inside_characters_cuts_only_inside_multibyte_sequences():
    found = cuts(RESPONSE.body, "inside-characters", random.Random(0))
    assert found and all(RESPONSE.body[offset] & 0xC0 == 0x80 for offset in found)
    ascii_only = b"data: {}\n\n"
    assert cuts(ascii_only, "inside-characters", random.Random(0))  # falls back: anywhere


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_stays_inside_the_body(mode):
    for offset in cuts(RESPONSE.body, mode, random.Random(1)):
        assert 0 < offset < len(RESPONSE.body)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown rechunking mode"):
        cuts(b"ab", "halves", random.Random(0))
