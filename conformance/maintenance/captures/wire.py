"""Per-API streaming encoders of the captures: a scripted turn as the exact SSE events each
API sends.

A turn is a response spec (``responses/from_turn.py``) encoded by the response corpus's own
encoders (``responses/encoders.py``): one mechanism for the fake provider of the captures and
for the response cases. Each encoder returns the SSE frames in order and the index after the
first content delta (where a ``stall`` turn stops sending). Only the fields Pi's adapters
read are sent, shaped as the real services document them; the fields are listed in
docs/captures.md.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.maintenance.captures.script import Turn
from conformance.maintenance.responses import encoders
from conformance.maintenance.responses.from_turn import DEFAULT_IDS, spec_of

Frames = tuple[list[bytes], int]


def _encoder(api: str) -> Callable[[Turn, str, int], Frames]:
    def encode(turn: Turn, model: str, n: int) -> Frames:
        found = encoders.encoded(api, spec_of(turn, api, n), model)
        if found is None:
            raise ValueError(f"{api} cannot send the scripted turn {n}")
        return list(found.response.chunks), found.first_delta

    return encode


ENCODERS: dict[str, Callable[[Turn, str, int], Frames]] = {
    api: _encoder(api) for api in DEFAULT_IDS}
