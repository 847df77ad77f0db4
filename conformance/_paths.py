"""Where things live: the corpus, the shipped reference files, and the install cache.

An installed wheel carries the corpus inside the package (``conformance/_corpus``); a source
checkout uses ``corpus/`` at the repository root. ``PI_CONFORMANCE_CORPUS`` overrides both,
so implementers can point the runner at a corpus of their own.
"""

from __future__ import annotations

import os
from pathlib import Path

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
