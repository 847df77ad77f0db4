"""Errors meant for people: each says which file, which line, and what is wrong."""

from __future__ import annotations

from pathlib import Path


class ConformanceError(Exception):
    """A problem the user can fix; the CLI prints it without a traceback."""

    def __init__(self, message: str, *, path: Path | str | None = None, line: int | None = None):
        self.path = Path(path) if path is not None else None
        self.line = line
        self.problem = message
        super().__init__(self.describe())

    def describe(self) -> str:
        if self.path is None:
            return self.problem
        where = str(self.path) if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.problem}"


class CorpusError(ConformanceError):
    """The corpus is malformed: a case, its metadata or one of its goldens."""


class ReferenceMissing(ConformanceError):
    """The pinned Pi is not installed where the runner expects it."""


class ImplementationError(ConformanceError):
    """An implementation could not be started or spoke the protocol wrongly."""


class ProtocolViolation(ImplementationError):
    """The implementation answered, but not in protocol v1: garbage, out of order, too long."""


class RunFailed(ImplementationError):
    """The implementation answered the run with an error of its own (an adapter bug)."""
