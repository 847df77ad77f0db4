"""Helpers every ``pi-conformance`` command shares: exit codes, error reporting, options.

They live apart from ``_cli.py`` so command modules can import them without importing the
command group itself.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from conformance.corpus.cases import Corpus
from conformance.errors import ConformanceError

EXIT_FAILED = 1
EXIT_UNUSABLE = 2

stderr = Console(stderr=True, highlight=False)


def fail(exc: ConformanceError) -> None:
    stderr.print(f"[bold red]error:[/] {escape(exc.describe())}", markup=True, soft_wrap=True)
    sys.exit(EXIT_UNUSABLE)


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn expected problems into one clear line and exit code 2, never a traceback."""
    try:
        yield
    except ConformanceError as exc:
        fail(exc)
    except KeyboardInterrupt:
        stderr.print("interrupted")
        sys.exit(130)


def load_corpus(path: Path | None) -> Corpus:
    return Corpus(path)


corpus_option = click.option(
    "--corpus", "corpus_path", type=click.Path(path_type=Path, file_okay=False),
    help="A corpus directory (default: the one shipped with pi-conformance).")
