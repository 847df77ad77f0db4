"""Sessions built from a seed: a case's ``[generate]`` table instead of a committed file.

``GeneratedSession`` names the generator, the seed and the entry count; its bytes are built
once and cached in ``<cache>/generated/<generator>-v<version>-seed<seed>-<entries>.jsonl``
(keyed by the generator's version, so a changed generator never reuses an old file). The case's
``session_path`` is that file, created before first use, so runs, regeneration and the pytest
plugin see an ordinary session. ``corpus check`` builds it again and compares (``verify``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance._paths import cache_root, writing_cache
from conformance.corpus.session_generators import GENERATORS, Generator
from conformance.errors import CorpusError


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
        """The cached session, built first if it is not there yet (written atomically; a cache
        that cannot be written is one line naming it, as for an install)."""
        path = self.cache_path
        if path.is_file():
            return path
        with writing_cache():
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".building-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(self.build())
                os.chmod(temporary, 0o644)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
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

    def provenance(self) -> dict[str, Any]:
        return {"generator": self.generator, "version": self.spec.version, "seed": self.seed,
                "entries": self.entries,
                "sha256": hashlib.sha256(self.ensure().read_bytes()).hexdigest()}
