"""Where things live: the corpus, the shipped reference files, and the install cache.

An installed wheel carries the corpus inside the package (``conformance/_corpus``); a source
checkout uses ``corpus/`` at the repository root. ``PI_CONFORMANCE_CORPUS`` overrides both,
so implementers can point the runner at a corpus of their own.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from conformance.errors import ConformanceError

PACKAGE_DIR = Path(__file__).resolve().parent
REFERENCE_DIR = PACKAGE_DIR / "implementations" / "reference"
SCHEMA_DIR = PACKAGE_DIR / "schemas"


def corpus_root() -> Path:
    override = os.environ.get("PI_CONFORMANCE_CORPUS")
    if override:
        return Path(override).resolve()
    shipped = PACKAGE_DIR / "_corpus"
    if shipped.is_dir():
        return shipped
    return PACKAGE_DIR.parent / "corpus"


def cache_root() -> Path:
    """The per-user cache for installed implementations (the pinned Pi among them)."""
    override = os.environ.get("PI_CONFORMANCE_CACHE")
    if override:
        return Path(override).resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "pi-conformance"


@contextlib.contextmanager
def writing_cache() -> Iterator[None]:
    """Around an installer's own writes to the cache: an OSError there (a read-only cache, a
    full disk) becomes one line naming the path and what to do, never a traceback."""
    try:
        yield
    except OSError as exc:
        raise ConformanceError(
            f"cannot write to the install cache ({exc.strerror or exc}); make it writable, or "
            f"point PI_CONFORMANCE_CACHE at a directory that is",
            path=exc.filename or cache_root()) from None


def writable(directory: Path) -> Path:
    """``directory`` (in the cache), created if need be and writable, checked before an
    install says it starts; else the error of ``writing_cache``."""
    with writing_cache():
        directory.mkdir(parents=True, exist_ok=True)
        if not os.access(directory, os.W_OK):
            raise PermissionError(errno.EACCES, "not writable", str(directory))
    return directory
