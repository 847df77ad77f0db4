"""Users' files: written whole or not at all (readers, an interrupt or a full disk never see
half of one), and read only when they are what they claim (a regular file, within a size)."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from conformance.errors import ConformanceError


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


class UnreadableFile(ConformanceError):
    """A file that cannot be read as a session: its own result, never the end of a run."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (reading it would wait for "
          "a writer)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def read_regular(path: Path, limit: int, limit_name: str) -> bytes:
    """The bytes of ``path``, read once (one snapshot). An UnreadableFile naming the file when
    it is not a regular file (checked before opening: a FIFO would block), is larger than
    ``limit`` (the runner's own limit, ``limit_name``, said so), or cannot be read."""
    try:
        info = path.stat()
    except OSError as exc:
        raise UnreadableFile(f"cannot read: {exc.strerror or exc}", path=path) from None
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise UnreadableFile(f"not a regular file: {kind}", path=path)
    if info.st_size > limit:
        raise UnreadableFile(f"{info.st_size} bytes: over the runner's limit of {limit} bytes "
                             f"a session ({limit_name}); not read", path=path)
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(f"cannot read: {exc.strerror or exc}", path=path) from None
    if len(data) > limit:  # it grew while being read
        raise UnreadableFile(f"over the runner's limit of {limit} bytes a session "
                             f"({limit_name}) once read; not read", path=path)
    return data


__all__ = ["UnreadableFile", "read_regular", "replace_file", "replace_text",
           "staged_directory"]
