"""Running an implementation into a report: ``stream_run``, used by ``run``, ``matrix`` and
the pytest plugin, and ``execute``, the whole ``run`` command.

``stream_run`` is the one way results reach a report: it judges each result against the
baseline, writes it at once, and writes the footer when done, marked interrupted when a
Ctrl-C stopped it. ``execute`` adds what the ``run`` command needs around it: the
implementation processes' lifetime, the progress display and the report file, read back
(validated) for the renderings.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from conformance.corpus.cases import Case, Corpus
from conformance.corpus.shards import Shard
from conformance.corpus.stages import narrowed
from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations.early import EarlyStart
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation
from conformance.judging.baseline import Baseline
from conformance.judging.runner import Planned, Runner, RunSettings, Selection
from conformance.judging.verdicts import StageResult
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Footer, Report, SelectionInfo


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
    shard: Shard | None = None
    # The implementation already being started (``EarlyStart.begin(impl_spec)``), which
    # ``execute`` then owns and closes; None: ``execute`` starts it.
    early: EarlyStart | None = None


@dataclass
class RunOutcome:
    report: Report
    restarts: int = 0

    @property
    def stale_baseline(self) -> list[str]:
        """Baseline entries naming a case or stage the corpus lacks, as ``case stage: why``."""
        return [e.describe() for e in self.report.stale_baseline]

    @property
    def interrupted(self) -> bool:
        return self.report.interrupted

    @property
    def failed(self) -> bool:
        return self.report.failed()


class StreamedRun:
    """An implementation's run being written to a report: call ``run`` (once, or once per
    case as the pytest plugin does); ``stream_run`` writes the footer at the end."""

    def __init__(self, runner: Runner, implementations: list[Implementation],
                 writer: reports.ReportWriter, baseline: Baseline,
                 on_result: Callable[[StageResult], None] | None):
        self.runner = runner
        self.implementations = implementations
        self.writer = writer
        self.baseline = baseline
        self.on_result = on_result

    def run(self, cases: list[Case], selection: Selection,
            planned: list[Planned] | None = None) -> None:
        self.runner.run(self.implementations, cases, selection, self._emit, planned)

    def _emit(self, result: StageResult) -> None:
        written = self.writer.add(self.baseline.judge(result))
        if self.on_result is not None:
            self.on_result(written)

    @property
    def footer(self) -> Footer | None:
        return self.writer.footer

    def close(self, *, interrupted: bool = False) -> Footer:
        """Write the footer (once). Entries that pass again are marked stale on their result
        lines; an entry for a case or stage the corpus lacks can only be found here."""
        if self.writer.footer is not None:
            return self.writer.footer
        return self.writer.close(self.baseline.unmatched(self.runner.corpus),
                                 interrupted=interrupted)


@contextlib.contextmanager
def stream_run(implementations: list[Implementation], corpus: Corpus, stream: IO[bytes], *,
               selection: SelectionInfo, settings: RunSettings | None = None,
               baseline: Baseline | None = None, identity: CorpusIdentity | None = None,
               on_result: Callable[[StageResult], None] | None = None,
               path: Path | None = None) -> Iterator[StreamedRun]:
    """Run already started ``implementations`` (one per worker) into a report on ``stream``.

    The header comes from the first implementation's hello; each result is judged against
    ``baseline`` and written as it arrives (``on_result`` sees it as written); the footer is
    written on the way out, marked interrupted on Ctrl-C (which is then raised again). A
    write failure (a full disk) is raised as a ReportError once the footer is due.
    """
    hello = implementations[0].hello
    head = reports.header(implementation=hello.implementation,
                          capabilities=hello.raw.get("capabilities", {}),
                          corpus=identity or reports.corpus_identity(corpus),
                          selection=selection)
    writer = reports.ReportWriter(stream, head, path)
    writer.raise_failure()  # not even the header could be written: say so before running
    streamed = StreamedRun(Runner(corpus, settings), implementations, writer,
                           baseline or Baseline(), on_result)
    try:
        yield streamed
    except KeyboardInterrupt:
        streamed.close(interrupted=True)
        raise
    streamed.close()
    writer.raise_failure()


def _start(impl: Implementation) -> Implementation:
    impl.start()
    return impl


@contextlib.contextmanager
def started(spec: str, jobs: int, first: Implementation | None = None,
            stages_hint: tuple[str, ...] | None = None) -> Iterator[list[Implementation]]:
    """``jobs`` running instances of the implementation (started side by side, since a
    handshake can take a second), all closed on the way out, whatever happens.
    ``stages_hint``: the stages a narrowed run may ask (``Implementation.stages_hint``)."""
    instances: list[Implementation] = [first] if first is not None else []
    try:
        wanted = [resolve(spec) for _ in range(jobs - len(instances))]
        for impl in wanted:
            impl.stages_hint = stages_hint
        with ThreadPoolExecutor(max_workers=max(1, len(wanted))) as pool:
            futures = [pool.submit(_start, impl) for impl in wanted]
            problems = []
            try:
                for future, impl in zip(futures, wanted, strict=True):
                    try:
                        instances.append(future.result())
                    except ConformanceError as exc:
                        problems.append(exc)
                        with contextlib.suppress(Exception):
                            impl.close()
            except BaseException:  # Ctrl-C: end the handshakes now, not at their timeout
                for impl in wanted:
                    impl.abort()
                    if impl not in instances:
                        instances.append(impl)  # closed below, like the started ones
                raise
        if problems:
            raise problems[0]
        for number, impl in enumerate(instances[1:], start=2):
            changed = instances[0].hello.differences(impl.hello)
            if changed:  # the run is planned from the first hello: refuse, never mix
                raise ImplementationError(
                    f"{spec}: worker {number} answered a different hello than worker 1 "
                    f"({'; '.join(changed)}); every process must say the same")
        yield instances
    finally:
        for impl in instances:
            with contextlib.suppress(Exception):
                impl.close()


@contextlib.contextmanager
def report_file(path: Path | None) -> Iterator[tuple[Path, IO[bytes]]]:
    """The report file (a temporary one without ``--report``: renderings read it back).
    Failing to open or to close it is a ReportError naming the file, never an OSError."""
    with contextlib.ExitStack() as stack:
        if path is None:
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix="pi-conformance-report-"))) / "run.jsonl"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            stream = path.open("wb")
        except OSError as exc:
            raise reports.ReportError(f"cannot write the report: {exc.strerror or exc}",
                                      path=path) from None
        try:
            yield path, stream
        finally:
            with contextlib.suppress(OSError):  # what could not be written was said already
                stream.close()


def close_report(stream: IO[bytes], path: Path) -> None:
    try:
        stream.close()
    except OSError as exc:
        raise reports.ReportError(f"cannot write the report: {exc.strerror or exc}",
                                  path=path) from None


def progress_bar(enabled: bool) -> Any:
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
    """The ``run`` command: a report on ``report_path`` and the run read back from it.

    A Ctrl-C during the run still returns: the report ends with a footer marked
    interrupted, and the outcome says so (the CLI renders it and exits 130).
    """
    corpus = request.corpus
    # The implementation starts (for Node, about a second) while the corpus is read, the
    # selection checked and the corpus's identity worked out: a one-case run waits for the
    # slower of the two, not for both. The ``run`` command starts it earlier still, before
    # importing this module; a bad spec is raised below, where it always was.
    hint = narrowed(request.stages, request.apis)
    early = request.early or EarlyStart.begin(request.impl_spec, hint)
    try:
        baseline = Baseline.load(request.baseline) if request.baseline else Baseline()
        selection = Selection(request.cases, request.features, request.stages, request.apis)
        settings = RunSettings(timeout=request.timeout, max_restarts=request.max_restarts,
                               jobs=request.jobs, validate_protocol=request.validate_protocol)
        planner = Runner(corpus, settings)
        first = early.implementation
        cases = corpus.select(request.cases, request.features)
        if not cases:
            raise ConformanceError("no case matches the selection")
        if request.shard is not None:  # an empty shard is still a report: merge needs all
            cases = request.shard.select(cases, key=lambda case: case.id)
        # Every golden the selection could need, read before the run begins: a missing
        # or broken golden is an input problem (exit 2), not an error in the middle.
        planner.preflight([(case, [s for s in case.stages if selection.wants(s)], [])
                           for case in cases])
        corpus_id = reports.corpus_identity(corpus)
        hello = early.hello()
    except BaseException:
        early.discard()
        raise
    planned = planner.plan(hello, cases, selection)
    workers = max(1, min(request.jobs, sum(1 for _, ask, _ in planned if ask)))
    restarts = 0
    with contextlib.ExitStack() as stack:
        instances = stack.enter_context(started(request.impl_spec, workers, first, hint))
        path, stream = stack.enter_context(report_file(request.report_path))
        total = sum(len(ask) + len(skipped) for _, ask, skipped in planned)
        bar = stack.enter_context(progress_bar(request.progress))
        task = bar.add_task(hello.name, total=total, failures=0) if bar else None
        failing = 0

        def progress(result: StageResult) -> None:
            nonlocal failing
            if bar is not None:
                failing += result.counts_as_failure
                bar.update(task, advance=1, failures=failing,
                           description=f"{hello.name} {result.case}")

        streaming = stream_run(
            instances, corpus, stream, path=path, settings=settings, baseline=baseline,
            identity=corpus_id,
            selection=SelectionInfo(request.cases, request.features, request.stages,
                                    request.apis, request.impl_spec,
                                    str(request.shard) if request.shard else ""),
            on_result=progress)
        try:
            with streaming as run:
                run.runner.goldens.update(planner.goldens)
                try:
                    run.run(cases, selection, planned)
                finally:
                    restarts = run.runner.restarts
        except KeyboardInterrupt:
            pass  # the footer says interrupted; the renderings still get written
        close_report(stream, path)
        report = reports.read_report(path)
    return RunOutcome(report, restarts)
