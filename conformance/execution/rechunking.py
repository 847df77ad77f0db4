"""Where the runner cuts a provider response before sending it: its own chunks, or elsewhere.

A stream parser must give the same events and final message however the bytes of a response
arrive: one read per SSE event, one per byte, or a cut inside a multi-byte UTF-8 character.
With a ``Rechunking`` in the plan, the runner sends each response of a case split at places
chosen from the seed, the case and the API (the same run, the same cuts), and judges the
answer against the same golden: Pi's answer does not depend on the cuts (tests hold it on
every response of the corpus), so a port's must not either.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from conformance.corpus.http_responses import HttpResponse


class ResponseCutter(Protocol):
    """Decides how the runner cuts each provider response it sends."""

    def split(self, case_id: str, api: str, response: HttpResponse) -> HttpResponse: ...

#: How a response may be cut: every byte its own chunk; cuts just inside each multi-byte
#: character; a handful of cuts anywhere.
MODES = ("bytes", "inside-characters", "anywhere")


@dataclass(frozen=True)
class Rechunking:
    seed: int

    def split(self, case_id: str, api: str, response: HttpResponse) -> HttpResponse:
        """``response`` cut as this seed decides for ``case_id`` and ``api``."""
        chooser = random.Random(f"{self.seed}\0{case_id}\0{api}")
        return response.split_at(cuts(response.body, chooser.choice(MODES), chooser))


def cuts(body: bytes, mode: str, chooser: random.Random) -> list[int]:
    """Byte offsets to cut ``body`` at, in one of the ``MODES``."""
    if mode == "bytes":
        return list(range(1, len(body)))
    if mode == "inside-characters":
        inside = [offset for offset in range(1, len(body)) if body[offset] & 0xC0 == 0x80]
        return inside or cuts(body, "anywhere", chooser)
    if mode == "anywhere":
        return [chooser.randrange(1, len(body)) for _ in range(min(8, len(body) // 2))] \
            if len(body) > 1 else []
    raise ValueError(f"unknown rechunking mode {mode!r}; one of {', '.join(MODES)}")


@dataclass
class ExplicitCuts:
    """Cuts set from outside, per case and API (the chunk-boundary fuzzer sets each example's);
    a response with none set goes in its own chunks."""

    cuts: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)

    def set(self, case_id: str, api: str, offsets: Iterable[int]) -> None:
        self.cuts[(case_id, api)] = tuple(offsets)

    def split(self, case_id: str, api: str, response: HttpResponse) -> HttpResponse:
        offsets = self.cuts.get((case_id, api))
        return response if offsets is None else response.split_at(offsets)
