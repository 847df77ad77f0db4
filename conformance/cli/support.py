"""Helpers every ``pi-conformance`` command shares: exit codes, error reporting, stderr.

Cheap to import (click and the standard library): rich and the corpus load only when a
command runs, so ``pi-conformance --help`` does not pay for them.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from rich.console import Console

    from conformance.corpus.cases import Corpus

EXIT_FAILED = 1
EXIT_UNUSABLE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


@cache
def stderr() -> Console:
    """The console for progress and problems; data goes to stdout."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def fail(exc: ConformanceError) -> None:
    from rich.markup import escape

    stderr().print(f"[bold red]error:[/] {escape(exc.describe())}", markup=True, soft_wrap=True)
    sys.exit(EXIT_UNUSABLE)


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn expected problems into one clear line and exit code 2, never a traceback."""
    try:
        yield
    except ConformanceError as exc:
        fail(exc)
    except KeyboardInterrupt:
        stderr().print("interrupted")
        sys.exit(EXIT_INTERRUPTED)


def load_corpus(path: Path | None) -> Corpus:
    from conformance.corpus.cases import Corpus

    return Corpus(path)
