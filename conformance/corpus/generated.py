"""Sessions built from a seed: a case's ``[generate]`` table instead of a committed file.

``GeneratedSession`` names the generator, the seed and the entry count; its bytes are built
once and cached in ``<cache>/generated/<generator>-v<version>-seed<seed>-<entries>.jsonl``
(keyed by the generator's version, so a changed generator never reuses an old file). The case's
``session_path`` is that file, created before first use, so runs, regeneration and the pytest
plugin see an ordinary session. ``corpus check`` builds it again and compares (``verify``).

A cached file is checked before any use against the sha256 written beside it when it was
built (``<name>.sha256``): a damaged, truncated or edited file, or one without its digest, is
built again, never judged or regenerated from. The check reads the file once per process and
size and modification time (about 10 ms for the 6 MB session).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance._paths import cache_root, writing_cache
from conformance.corpus.session_generators import GENERATORS, Generator
from conformance.errors import CorpusError
from conformance.files import replace_file

# Cached files whose digest matched, by (path, size, mtime_ns): checked once per process.
_VERIFIED: set[tuple[str, int, int]] = set()


def _digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _intact(path: Path) -> bool:
    """Whether ``path`` holds what was built (its bytes hash to the digest beside it)."""
    try:
        stat = path.stat()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        if key in _VERIFIED:
            return True
        recorded = _digest_path(path).read_text(encoding="ascii").strip()
        if hashlib.sha256(path.read_bytes()).hexdigest() != recorded:
            return False
    except (OSError, UnicodeDecodeError):
        return False
    _VERIFIED.add(key)
    return True


@dataclass(frozen=True)
class GeneratedSession:
    generator: str
    seed: int
    entries: int

    @classmethod
    def from_table(cls, table: dict[str, Any], path: Path) -> GeneratedSession:
        session = cls(str(table["generator"]), int(table["seed"]), int(table["entries"]))
        if session.generator not in GENERATORS:
            raise CorpusError(f"unknown session generator {session.generator!r} (known: "
                              f"{', '.join(sorted(GENERATORS))})", path=path)
        return session

    @property
    def spec(self) -> Generator:
        return GENERATORS[self.generator]

    @property
    def cache_path(self) -> Path:
        name = f"{self.generator}-v{self.spec.version}-seed{self.seed}-{self.entries}.jsonl"
        return cache_root() / "generated" / name

    def build(self) -> bytes:
        return self.spec.build(self.seed, self.entries)

    def ensure(self) -> Path:
        """The cached session, checked against its digest; built first when it is not there,
        or not intact (written atomically, the digest after the file; a cache that cannot be
        written is one line naming it, as for an install)."""
        path = self.cache_path
        if _intact(path):
            return path
        with writing_cache():
            path.parent.mkdir(parents=True, exist_ok=True)
            data = self.build()
            replace_file(path, data)
            replace_file(_digest_path(path),
                              (hashlib.sha256(data).hexdigest() + "\n").encode("ascii"))
        return path

    def verify(self) -> str | None:
        """Why the cached session is not what the generator builds today (None: it is)."""
        fresh = self.build()
        cached = self.ensure().read_bytes()
        if cached != fresh:
            return (f"the cached session {self.cache_path} differs from a fresh build "
                    f"(generator changed without a version bump, or a damaged cache: "
                    f"delete the file)")
        return None

    def sha256(self) -> str:
        return hashlib.sha256(self.ensure().read_bytes()).hexdigest()

    def provenance(self) -> dict[str, Any]:
        return {"generator": self.generator, "version": self.spec.version, "seed": self.seed,
                "entries": self.entries,
                "sha256": self.sha256()}
