"""A Pi release's answers kept on disk, for ``run --against``: asked once, reused after.

An answer is determined by the release (its spec, and the package versions installed for it:
an install resolved anew asks again), the session bytes, the stages asked, the run options
and the harness (its sha256: a changed harness asks again); it is kept under
``<cache>/answers/<release>/`` by the digest of all of these, one JSON file each, written
whole (``files.replace_file``) with its provenance (release, packages, harness, key), which is
checked before the answer is used, as a shipped golden's is. Only corpus sessions are asked
this way: a user's own session files (``compare``) are never kept on disk. A cache that cannot
be read or written is ignored: the release is asked again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance._paths import cache_root
from conformance.files import replace_file
from conformance.implementations.reference import harness_sha256


class AnswerCache:
    """Answers of one release, by what determines them; counts what it had and what not."""

    def __init__(self, release: str, directory: Path | None = None, installed: str = ""):
        """``installed``: the package versions the release runs with, as its hello says."""
        self.release = release
        self.installed = installed
        self.directory = directory or cache_root() / "answers" / release.replace("/", "_")
        self.harness = harness_sha256()
        self.hits = 0
        self.misses = 0
        self.rejected = 0  # kept answers whose provenance said another writer

    def key(self, kind: str, session: bytes, stages: Sequence[str],
            options: Mapping[str, Any]) -> str:
        digest = hashlib.sha256(jsonio.canonical([kind, self.release, self.installed,
                                                  self.harness, list(stages), dict(options)]))
        digest.update(session)
        return digest.hexdigest()

    def provenance(self, key: str) -> dict[str, str]:
        """What wrote an answer, kept with it and checked before it is used."""
        return {"release": self.release, "installed": self.installed,
                "harness_sha256": self.harness, "key": key}

    def get(self, key: str) -> Any | None:
        try:
            kept = jsonio.loads((self.directory / f"{key}.json").read_bytes())
        except (OSError, ValueError):
            self.misses += 1
            return None
        if not isinstance(kept, dict) or kept.get("provenance") != self.provenance(key) \
                or "answer" not in kept:
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return kept["answer"]

    def put(self, key: str, value: Any) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            replace_file(self.directory / f"{key}.json",
                         jsonio.dumps({"provenance": self.provenance(key), "answer": value}))
        except OSError:
            pass  # an unwritable cache only costs asking again


__all__ = ["AnswerCache"]
