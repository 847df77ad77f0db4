"""Shards: a stable partition of a run's work, so a CI job matrix can split one run.

Shard ``K/N`` takes the items whose key hashes to ``K-1`` modulo ``N`` (sha256 of the key, so
the partition is the same on every machine, whatever the order or the number of items, and
adding a case moves no other case). ``run`` keys by case id, ``compare`` by session file,
``fuzz`` gives each shard its own seeds. ``report merge`` puts the shards' reports together.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from conformance.errors import ConformanceError

T = TypeVar("T")
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


#: The most shards a run may be split into: far more than a CI matrix runs (GitHub's holds 256
#: jobs), and few enough that merge can list the missing ones.
MAX_SHARDS = 1000
_MAX_DIGITS = len(str(MAX_SHARDS))


def _elided(text: str, limit: int = 40) -> str:
    """``text`` as given, cut in the middle when longer than ``limit`` (a 5000-digit count)."""
    return text if len(text) <= limit else f"{text[:limit // 2]}…{text[-limit // 2:]}"


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count > MAX_SHARDS:
            raise ConformanceError(f"shard {self.index}/{self.count}: N may be at most "
                                   f"{MAX_SHARDS} (more jobs than any CI matrix runs)")
        if not 1 <= self.index <= self.count:
            raise ConformanceError(f"shard {self.index}/{self.count}: K must be between 1 and "
                                   f"N (K/N, e.g. 1/4)")

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SPEC.match(text)
        if not match:
            raise ConformanceError(f"shard {_elided(text)!r} must be K/N, e.g. 2/4")
        index, count = (digits.lstrip("0") or "0" for digits in match.groups())
        if len(count) > _MAX_DIGITS or len(index) > _MAX_DIGITS:
            # before int(): past 4300 digits Python refuses to convert, with a ValueError
            raise ConformanceError(f"shard {_elided(text.strip())}: K and N may be at most "
                                   f"{MAX_SHARDS} (more jobs than any CI matrix runs)")
        return cls(int(index), int(count))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, key: str) -> bool:
        """Whether the item named ``key`` belongs to this shard."""
        return shard_of(key, self.count) == self.index

    def select(self, items: Iterable[T], key: Callable[[T], str]) -> list[T]:
        return [item for item in items if self.owns(key(item))]

    def seed(self, base: int) -> int:
        """This shard's fuzzing seed: shards of one base seed never share a seed."""
        return base * self.count + self.index - 1


def shard_of(key: str, count: int) -> int:
    """The 1-based shard that owns ``key`` among ``count``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1
