"""Writing a file whole or not at all: readers (and an interrupted or full-disk write) never
see half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, data: bytes, mode: int = 0o644) -> None:
    """``path`` holds ``data``: written beside it under a temporary name, then renamed over
    it (the temporary file is removed if anything fails)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


__all__ = ["replace_file"]
