"""Which corpus a run used: a digest of every case file and the Pi releases that wrote its goldens.

Every report's header carries this, so two reports can be told apart (``report merge`` and
``diff`` refuse to mix corpora). Computing it naively reads and parses every golden on every
run (1.3 s on the shipped corpus, more once big goldens exist). Here each file's digest and the
reference versions in its provenance are cached, keyed by the file's path, size and
modification time, in ``<cache>/corpus-identity/``; a run then only ``stat``s the files and
reads the ones that changed. A cache that cannot be read or written is ignored: the identity is
the same with or without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from conformance import __version__
from conformance._paths import cache_root
from conformance.corpus.cases import Corpus

_CACHE_FORMAT = 1
_CACHES_KEPT = 32  # one file per corpus root; temporary corpora (tests, fuzzing) come and go


@dataclass(frozen=True)
class _Entry:
    size: int
    mtime_ns: int
    sha256: str
    reference: str | None  # "name@version ..." from a golden's provenance, None elsewhere


def _reference_of(data: bytes) -> str | None:
    """The reference versions a golden records, as one sortable string."""
    with contextlib.suppress(orjson.JSONDecodeError, AttributeError, TypeError, KeyError):
        reference = orjson.loads(data)["provenance"]["reference"]
        return " ".join(f"{k}@{v}" for k, v in sorted(reference.items()))
    return None


def _cache_path(root: Path) -> Path:
    key = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return cache_root() / "corpus-identity" / f"{key}.json"


def _load_cache(path: Path) -> dict[str, _Entry]:
    try:
        raw = orjson.loads(path.read_bytes())
        if raw.get("format") != _CACHE_FORMAT:
            return {}
        return {name: _Entry(*fields) for name, fields in raw["files"].items()}
    except (OSError, orjson.JSONDecodeError, AttributeError, KeyError, TypeError):
        return {}


def _save_cache(path: Path, entries: dict[str, _Entry]) -> None:
    data = {"format": _CACHE_FORMAT,
            "files": {name: [e.size, e.mtime_ns, e.sha256, e.reference]
                      for name, e in entries.items()}}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(orjson.dumps(data))
        temporary.replace(path)
        caches = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for old in caches[:-_CACHES_KEPT]:
            old.unlink(missing_ok=True)


def case_files(corpus: Corpus) -> list[str]:
    """Every file that makes up the corpus's cases, as paths, in a stable order."""
    files: list[str] = []
    for case in corpus.cases:
        expected = os.path.join(case.directory, "expected")
        try:
            goldens = sorted(e.path for e in os.scandir(expected) if e.name.endswith(".json"))
        except OSError:
            goldens = []
        files.extend((str(case.metadata_path), str(case.session_path), *goldens))
    return files


def corpus_fingerprint(corpus: Corpus) -> dict[str, Any]:
    """Where the corpus is, how many cases, the sha256 over every case file (its path relative
    to the corpus and its content's digest), and which Pi releases wrote the goldens.

    The corpus ships with the runner, so its version is the runner's.
    """
    cache_file = _cache_path(corpus.root)
    cached = _load_cache(cache_file)
    fresh: dict[str, _Entry] = {}
    digest = hashlib.sha256()
    references: set[str] = set()
    prefix = len(str(corpus.root)) + 1
    for path in case_files(corpus):
        name = path[prefix:]
        try:
            stat = os.stat(path)
        except OSError:
            continue  # a missing session is the corpus loader's error to report, not ours
        entry = cached.get(name)
        if entry is None or (entry.size, entry.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
            data = Path(path).read_bytes()
            is_golden = os.path.basename(os.path.dirname(path)) == "expected"
            entry = _Entry(stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest(),
                           _reference_of(data) if is_golden else None)
        fresh[name] = entry
        digest.update(name.encode() + b"\0" + entry.sha256.encode() + b"\0")
        if entry.reference:
            references.add(entry.reference)
    if fresh != cached:
        _save_cache(cache_file, fresh)
    return {"root": str(corpus.root), "version": __version__, "cases": len(corpus.cases),
            "sha256": digest.hexdigest(), "reference": sorted(references)}
