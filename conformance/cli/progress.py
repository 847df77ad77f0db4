"""A run's progress bar on stderr, only for people (a terminal), never in CI logs."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from conformance.cli.support import stderr
from conformance.execution.executor import Watcher
from conformance.execution.runner import Planned
from conformance.implementations.protocol import Hello
from conformance.judging.results import StageResult


class ProgressBar(Watcher):
    """rich's progress bar: results done of the run's, failures so far, time left."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[failures]} failing"), TimeRemainingColumn(),
            console=stderr(), transient=True)
        self.task: Any = None
        self.name = ""
        self.failing = 0

    def planned(self, hello: Hello, planned: Sequence[Planned]) -> None:
        self.name = hello.name
        self.task = self.progress.add_task(hello.name, total=sum(p.results for p in planned),
                                           failures=0)

    def result(self, result: StageResult) -> None:
        if self.task is None:
            return
        self.failing += result.counts_as_failure
        self.progress.update(self.task, advance=1, failures=self.failing,
                             description=f"{self.name} {result.case}")

    def __enter__(self) -> ProgressBar:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)


def progress_bar(wanted: bool) -> ProgressBar | None:
    """A progress bar when wanted and stderr is a terminal, else None."""
    return ProgressBar() if wanted and sys.stderr.isatty() else None
