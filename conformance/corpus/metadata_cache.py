"""Case metadata already read and validated, cached by each ``case.toml``'s content.

Loading the corpus parses and schema-validates every ``case.toml`` (about 0.5 s for the
shipped corpus), even for a run of one case, since a run refuses a corpus with a malformed case
or a duplicate id. The outcome for a given file content is always the same, so the metadata of
each valid file is kept in ``<cache>/case-metadata/``, keyed by the file's path in the corpus
and the digest of its bytes, under the digest of the schema and the runner's version: a run
reads each ``case.toml`` (a few milliseconds for all) and parses only those that changed. A
changed or broken file misses the cache and is parsed and validated as before, with the same
errors; invalid files are never cached. A cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import threading
from pathlib import Path
from typing import Any

import orjson

from conformance import __version__
from conformance._paths import SCHEMA_DIR, cache_root

_FORMAT = 1
_CACHES_KEPT = 32  # one file per corpus root; temporary corpora (tests, fuzzing) come and go
_INT64 = range(-(2**63), 2**63)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _plain_json(value: Any) -> bool:
    """Whether ``value`` comes back from JSON exactly as it is: TOML has dates, times,
    infinities and big integers, which JSON would turn into something else."""
    if isinstance(value, (str, bool)):
        return True
    if isinstance(value, int):
        return value in _INT64
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain_json(item) for key, item in value.items())
    return False


class MetadataCache:
    """The valid metadata of a corpus's case files, by path (relative to the corpus root) and
    content digest. ``get`` and ``put`` during a load, ``save`` after it."""

    kind = "case-metadata"  # the cache's directory

    def __init__(self, root: Path) -> None:
        key = hashlib.sha256(str(root).encode()).hexdigest()[:16]
        self.path = cache_root() / self.kind / f"{key}.json"
        self.stamp = [_FORMAT, __version__, self._stamp_digest()]
        self.entries = self._load()
        self.seen: dict[str, list[Any]] = {}

    @staticmethod
    def _stamp_digest() -> str:
        """The digest of what decides validity besides the file (the case schema); empty
        when it cannot be read, and then the cache is not used."""
        try:
            return digest((SCHEMA_DIR / "case.schema.json").read_bytes())
        except OSError:
            return ""  # the loader reports a missing schema; the cache is simply not used

    def _load(self) -> dict[str, list[Any]]:
        if not self.stamp[-1]:
            return {}
        try:
            raw = orjson.loads(self.path.read_bytes())
            if raw.get("stamp") != self.stamp or not isinstance(raw.get("files"), dict):
                return {}
            return dict(raw["files"])
        except (OSError, orjson.JSONDecodeError, AttributeError, TypeError):
            return {}

    def get(self, name: str, content_digest: str) -> dict[str, Any] | None:
        """The metadata validated for exactly this content, or None."""
        entry = self.entries.get(name)
        if (isinstance(entry, list) and len(entry) == 2 and entry[0] == content_digest
                and isinstance(entry[1], dict)):
            self.seen[name] = entry
            return entry[1]
        return None

    def put(self, name: str, content_digest: str, meta: dict[str, Any]) -> None:
        """Keep ``meta``, which passed every check, for this content (if JSON holds it)."""
        if _plain_json(meta):
            self.seen[name] = [content_digest, meta]

    def save(self) -> None:
        """Write what this load saw (files gone from the corpus are dropped), if it differs."""
        if not self.stamp[-1] or self.seen == self.entries:
            return
        with contextlib.suppress(OSError, TypeError):
            data = orjson.dumps({"stamp": self.stamp, "files": self.seen})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            temporary.write_bytes(data)
            temporary.replace(self.path)
            caches = sorted(self.path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
            for old in caches[:-_CACHES_KEPT]:
                old.unlink(missing_ok=True)
        self.entries = dict(self.seen)
