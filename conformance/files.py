"""Writing a file whole or not at all: readers (and an interrupted or full-disk write) never
see half of it."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
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
    except OSError as exc:  # a write error names no file: this one names the file meant
        Path(temporary).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def replace_text(path: Path, text: str, mode: int = 0o644) -> None:
    """``replace_file`` for text, as UTF-8; the parent directory is made if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text.encode("utf-8"), mode)


@contextlib.contextmanager
def staged_directory(path: Path) -> Iterator[Path]:
    """Fill the directory it yields; on leaving, it becomes ``path``, whole: a reader never
    sees some of its files only, and a failure (an interrupt, a full disk) leaves no trace.
    An old directory at ``path`` is replaced, and removed only once the new one is in place.
    A failed write is an OSError naming ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}."))
    try:
        yield staged
        staged.chmod(0o755)
        if path.exists():
            old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.old."))
            os.replace(path, old / path.name)
            os.replace(staged, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staged, path)
    except OSError as exc:
        shutil.rmtree(staged, ignore_errors=True)
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


__all__ = ["replace_file", "replace_text", "staged_directory"]
