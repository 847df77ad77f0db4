"""Helpers every ``pi-conformance`` command shares: exit codes, error reporting, stderr.

Cheap to import (click and the standard library): rich and the corpus load only when a
command runs, so ``pi-conformance --help`` does not pay for them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from conformance.corpus.cases import Corpus
    from conformance.reporting.model import Report

EXIT_FAILED = 1
EXIT_UNUSABLE = 2
EXIT_NOTHING_JUDGED = 5  # as pytest's "no tests ran": every result was skipped
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
_terminated = threading.Event()


#: The width of output that is not a terminal (a CI log, a pipe, a file): wide enough that no
#: table cell is cut and no line is wrapped in the middle of a path or a stage name; the log
#: viewer wraps lines itself. ``COLUMNS``, when set, still wins.
LOG_WIDTH = 1000


def console(*, stderr: bool = False) -> Console:
    """A console for stdout (data) or stderr (progress and problems): as wide as the terminal,
    or, when the output is not one, ``LOG_WIDTH`` wide and never soft-wrapped. It shows
    control characters and reads no markup (cli/terminal.py): style with ``style=``."""
    from conformance.cli.terminal import SafeConsole

    plain = SafeConsole(stderr=stderr)
    if plain.is_terminal or "COLUMNS" in os.environ:
        return plain
    return SafeConsole(stderr=stderr, width=LOG_WIDTH, soft_wrap=True)


@cache
def stderr() -> Console:
    """The console for progress and problems; data goes to stdout."""
    return console(stderr=True)


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """A line for people, as click.echo writes it, its control characters shown
    (``controls.printable``); data (JSON, a rendered report) goes through click.echo as it is."""
    from conformance.controls import printable

    click.echo(printable(text), err=err, nl=nl)


def styled(style: str, text: str) -> Text:
    """``text`` in ``style``: a styled word printed beside user text, which is never markup
    (``console().print(styled("red", "stale:"), path)``)."""
    from rich.text import Text

    return Text(text, style=style)


def fail(exc: ConformanceError) -> None:
    stderr().print(styled("bold red", "error:"), exc.describe(), soft_wrap=True)
    sys.exit(EXIT_UNUSABLE)


def interrupted_exit_code() -> int:
    """130 after Ctrl-C, 143 after SIGTERM."""
    return EXIT_TERMINATED if _terminated.is_set() else EXIT_INTERRUPTED


def _on_sigterm(signum: int, frame: object) -> None:
    if not _terminated.is_set():  # once: a second SIGTERM must not cut the clean-up short
        _terminated.set()
        raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job's timeout, ``kill``) stops a command as Ctrl-C does, so what Ctrl-C
    cleans up is cleaned up too: implementation processes killed, scratch files removed, the
    report closed with a footer marked interrupted."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _terminated.clear()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn expected problems into one clear line and exit code 2, never a traceback; Ctrl-C
    and SIGTERM into "interrupted" and exit 130 or 143."""
    try:
        with sigterm_as_interrupt():
            yield
    except ConformanceError as exc:
        fail(exc)
    except OSError as exc:  # a full disk, a closed pipe, an unreadable file: where, and why
        fail(_os_error(exc))
    except KeyboardInterrupt:
        stderr().print("interrupted")
        sys.exit(interrupted_exit_code())


def _os_error(exc: OSError) -> ConformanceError:
    """The one line for an I/O failure no command handled: the file it names; else, for a
    failed write, standard output (our own file writes name their file: files.py). Standard
    output is then pointed at /dev/null, so Python does not fail again flushing it on the way
    out (a second traceback)."""
    if exc.filename is not None:
        return ConformanceError(exc.strerror or str(exc), path=os.fsdecode(exc.filename))
    if exc.errno in _WRITE_FAILURES:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return ConformanceError(f"cannot write: {exc.strerror or exc}", path="standard output")
    return ConformanceError(f"cannot read or write: {exc.strerror or exc}")


#: What a write to a full, closed or broken output raises.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EPIPE, errno.EFBIG, errno.EDQUOT, errno.EIO})


def verdict_exit_code(report: Report) -> int:
    """What a command that reads a stored report (render, merge) exits with: 1 failed (an
    interrupted run included), 5 nothing judged, else 0."""
    if report.failed():
        return EXIT_FAILED
    return EXIT_NOTHING_JUDGED if report.nothing_judged else 0


def exit_code(report: Report) -> int:
    """What a command that judged exits with: 130/143 interrupted, 1 failed, 5 nothing
    judged (every result skipped, without --allow-empty), else 0."""
    if report.interrupted:
        return interrupted_exit_code()
    if report.failed():
        return EXIT_FAILED
    return EXIT_NOTHING_JUDGED if report.nothing_judged else 0


def load_corpus(path: Path | None) -> Corpus:
    from conformance.corpus.cases import Corpus

    return Corpus(path)
