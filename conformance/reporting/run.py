"""One ``run``: resolve the implementation, start its workers, stream results to the report.

This is the glue between the CLI (and the pytest plugin) and the runner: it owns the
implementation processes' lifetime, the progress display and the report file, so that an
interrupted run still leaves a valid, if truncated-and-marked, stream behind.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from conformance.corpus.cases import Corpus
from conformance.corpus.identity import corpus_identity
from conformance.errors import ConformanceError
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation
from conformance.judging.baseline import Baseline, counts_as_failure
from conformance.judging.runner import Runner, RunSettings, Selection, StageResult
from conformance.reporting import stream as reports


@dataclass
class RunRequest:
    corpus: Corpus
    impl_spec: str
    cases: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    jobs: int = 1
    timeout: float = 30.0
    max_restarts: int = 10
    baseline: Path | None = None
    report_path: Path | None = None
    validate_protocol: bool = False
    progress: bool = False


@dataclass
class RunOutcome:
    report: reports.Report
    restarts: int = 0

    @property
    def stale_baseline(self) -> list[str]:
        """Baseline entries naming a case or stage the corpus lacks, as ``case stage: why``."""
        return [f"{e['case']} {e['stage']}: {e['problem']}" for e in self.report.stale_baseline]

    @property
    def failed(self) -> bool:
        return self.report.failed()


def _start(impl: Implementation) -> Implementation:
    impl.start()
    return impl


@contextlib.contextmanager
def started(spec: str, jobs: int, first: Implementation | None = None
            ) -> Iterator[list[Implementation]]:
    """``jobs`` running instances of the implementation (started side by side, since a
    handshake can take a second), all closed on the way out, whatever happens."""
    instances: list[Implementation] = [first] if first is not None else []
    try:
        wanted = [resolve(spec) for _ in range(jobs - len(instances))]
        with ThreadPoolExecutor(max_workers=max(1, len(wanted))) as pool:
            futures = [pool.submit(_start, impl) for impl in wanted]
            problems = []
            for future, impl in zip(futures, wanted, strict=True):
                try:
                    instances.append(future.result())
                except ConformanceError as exc:
                    problems.append(exc)
                    with contextlib.suppress(Exception):
                        impl.close()
        if problems:
            raise problems[0]
        yield instances
    finally:
        for impl in instances:
            with contextlib.suppress(Exception):
                impl.close()


@contextlib.contextmanager
def _report_stream(path: Path | None) -> Iterator[IO[bytes]]:
    if path is None:
        yield io.BytesIO()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        yield stream


def _progress(enabled: bool) -> Any:
    """A progress bar on stderr, only for people (a terminal), never in CI logs."""
    if not enabled or not sys.stderr.isatty():
        return contextlib.nullcontext(None)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[failures]} failing"), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=True)


def execute(request: RunRequest) -> RunOutcome:
    corpus = request.corpus
    baseline = Baseline.load(request.baseline) if request.baseline else Baseline()
    selection = Selection(request.cases, request.features, request.stages, request.apis)
    cases = corpus.select(request.cases, request.features)
    if not cases:
        raise ConformanceError("no case matches the selection")
    runner = Runner(corpus, RunSettings(timeout=request.timeout,
                                        max_restarts=request.max_restarts,
                                        jobs=request.jobs,
                                        validate_protocol=request.validate_protocol))
    # Every golden the selection could need, read before any process starts: a missing or
    # broken golden is an input problem (exit 2), not an error in the middle of a run.
    runner.preflight([(case, [s for s in case.stages if selection.wants(s)], [])
                      for case in cases])
    first = resolve(request.impl_spec)
    try:
        hello = first.start()
    except BaseException:
        first.close()
        raise
    planned = runner.plan(hello, cases, selection)
    workers = max(1, min(request.jobs, sum(1 for _, ask, _ in planned if ask)))
    with started(request.impl_spec, workers, first) as instances, \
            _report_stream(request.report_path) as stream:
        head = reports.header(
            implementation=hello.implementation,
            capabilities=hello.raw.get("capabilities", {}),
            corpus=corpus_identity(corpus),
            selection={"cases": list(request.cases), "features": list(request.features),
                       "stages": list(request.stages), "apis": list(request.apis),
                       "impl": request.impl_spec},
        )
        writer = reports.ReportWriter(stream, head)
        total = sum(len(ask) + len(skipped) for _, ask, skipped in planned)
        with _progress(request.progress) as bar:
            task = bar.add_task(hello.name, total=total, failures=0) if bar else None
            failing = 0

            def emit(result: StageResult) -> None:
                nonlocal failing
                line = writer.add_pending(result)
                baseline.judge(line)
                writer.flush_pending()
                if bar is not None:
                    failing += counts_as_failure(line)
                    bar.update(task, advance=1, failures=failing,
                               description=f"{hello.name} {result.case}")

            runner.run(instances, cases, selection, emit, planned)
        # Entries that pass again are marked stale on their result lines; an entry for a
        # case or stage the corpus lacks can only be found here, and goes in the footer.
        report = writer.close(baseline.unmatched(corpus))
    return RunOutcome(report, runner.restarts)
