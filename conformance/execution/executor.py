"""The one executor: a run plan, an implementation and a golden source become a report.

``opened`` starts what a run needs (the implementation's processes, the runner with its
golden source, the report stream) and yields an ``Execution``; ``execute`` runs a whole
selection through it and reads the report back. ``run``, ``compare``, ``matrix``, ``smoke``
and the pytest plugin all go through here, so every verdict is reached the same way:
the same plan, the same inputs, the same golden checks, the same judging, the same report.

Each result is judged against the baseline and written as it arrives; the footer is written
on the way out, marked interrupted on Ctrl-C, and says when nothing was judged at all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from conformance import __version__
from conformance._paths import corpus_root
from conformance.corpus.cases import Case, Corpus
from conformance.errors import ConformanceError
from conformance.execution import interrupts
from conformance.execution.goldens import CorpusGoldens, GoldenSource
from conformance.execution.plan import RunPlan
from conformance.execution.processes import started
from conformance.execution.rechunking import Rechunking
from conformance.execution.runner import KeepAnswers, Planned, Runner
from conformance.execution.runner import plan as plan_cases
from conformance.implementations.early import EarlyStart
from conformance.implementations.protocol import Hello
from conformance.implementations.transports import Implementation
from conformance.judging.baseline import Baseline
from conformance.judging.results import StageResult
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Footer, Report, RunScope


@dataclass
class RunOutcome:
    report: Report
    restarts: int = 0

    @property
    def stale_baseline(self) -> list[str]:
        """Baseline entries naming a case or stage the corpus lacks, as ``case stage: why``."""
        return [entry.describe() for entry in self.report.stale_baseline]

    @property
    def interrupted(self) -> bool:
        return self.report.interrupted

    @property
    def failed(self) -> bool:
        return self.report.failed()


class Watcher:
    """What a command wants to see of a run as it goes (a progress bar, per-file lines);
    every hook is optional."""

    def planned(self, hello: Hello, planned: Sequence[Planned]) -> None:
        """The run is planned: ``planned`` is every case it will report."""

    def result(self, result: StageResult) -> None:
        """One result, as written to the report."""

    def case_done(self, item: Planned, results: list[StageResult]) -> None:
        """Every result of one case is in."""


class Execution:
    """One run under way: its runner (one per run, goldens checked once), its started
    implementation processes and its report stream (or none: ``writer`` None)."""

    def __init__(self, plan: RunPlan, runner: Runner, implementations: list[Implementation],
                 writer: reports.ReportWriter | None, baseline: Baseline,
                 watcher: Watcher | None = None, universe: Sequence[Case] | None = None):
        """``universe``: every case a baseline entry may name (default: the corpus's)."""
        self.plan = plan
        self.universe = universe
        self.runner = runner
        self.implementations = implementations
        self.writer = writer
        self.baseline = baseline
        self.watcher = watcher or Watcher()
        self._pending: dict[str, tuple[Planned, list[StageResult]]] = {}

    @property
    def hello(self) -> Hello:
        return self.implementations[0].hello

    def schedule(self, cases: Sequence[Case]) -> list[Planned]:
        """Plan ``cases`` from the hello and check every golden they need (a broken or
        missing one is a CorpusError naming it, before anything is asked)."""
        return self.runner.prepare(plan_cases(self.hello, cases, self.plan.selection,
                                              self.runner.goldens.unavailable),
                                   self.hello.inputs)

    def run(self, planned: Sequence[Planned]) -> None:
        """Ask and judge ``planned`` (from ``schedule``); every result is written."""
        for item in planned:
            self._pending[item.case.id] = (item, [])
        self.runner.run(self.implementations, planned, self._emit)

    def run_cases(self, cases: Sequence[Case]) -> None:
        self.run(self.schedule(cases))

    def _emit(self, result: StageResult) -> None:
        judged = self.baseline.judge(result)
        written = self.writer.add(judged) if self.writer is not None else judged
        self.watcher.result(written)
        waiting = self._pending.get(written.case)
        if waiting is not None:
            item, results = waiting
            results.append(written)
            if len(results) == item.results:
                del self._pending[written.case]
                self.watcher.case_done(item, results)

    @property
    def footer(self) -> Footer | None:
        return self.writer.footer if self.writer is not None else None

    def close(self, *, interrupted: bool = False) -> Footer | None:
        """Write the footer (once). Entries that pass again are marked stale on their result
        lines; an entry for a case or stage the corpus lacks can only be found here."""
        if self.writer is None:
            return None
        if self.writer.footer is not None:
            return self.writer.footer
        # A shard is not judged empty on its own (it may hold no case, or only cases its
        # implementation skips): the merged report is, by report merge (docs/sharding.md).
        shard = self.plan.shard is not None
        universe = self.universe if self.universe is not None else self.runner.corpus.cases
        return self.writer.close(self.baseline.unmatched(universe),
                                 interrupted=interrupted,
                                 allow_empty=self.plan.allow_empty or shard)


def split_seed(plan: RunPlan) -> int | None:
    """The seed the plan cuts provider responses by, for the report's header."""
    return plan.rechunking.seed if isinstance(plan.rechunking, Rechunking) else None


@contextlib.contextmanager
def opened(plan: RunPlan, corpus: Corpus, implementations: list[Implementation], *,
           goldens: GoldenSource | None = None, stream: IO[bytes] | None = None,
           path: Path | None = None, identity: CorpusIdentity | None = None,
           baseline: Baseline | None = None, watcher: Watcher | None = None,
           universe: Sequence[Case] | None = None) -> Iterator[Execution]:
    """An ``Execution`` of ``plan`` on already started ``implementations`` (one per worker),
    judging against ``goldens`` (default: the corpus's files), reporting into ``stream``
    (None: no report, the watcher alone sees the results). ``universe``: every case a
    baseline entry may name (default: the corpus's; a ``compare``, every file given).

    The header comes from the first implementation's hello; the footer is written on the way
    out, marked interrupted on Ctrl-C (which is then raised again). A write failure (a full
    disk) is raised as a ReportError once the footer is due.
    """
    source = goldens or CorpusGoldens(corpus.root)
    writer = None
    if stream is not None:
        hello = implementations[0].hello
        head = reports.header(implementation=hello.implementation,
                              capabilities=hello.raw.get("capabilities", {}),
                              corpus=identity or reports.corpus_identity(corpus),
                              scope=RunScope(plan.selection, plan.implementation,
                                             str(plan.shard) if plan.shard else "",
                                             split_seed(plan)))
        writer = reports.ReportWriter(stream, head, path)
        writer.raise_failure()  # not even the header could be written: say so before running
    runner = Runner(corpus, source, plan.limits, plan.rechunking)
    execution = Execution(plan, runner, implementations, writer,
                          baseline or load_baseline(plan), watcher, universe)
    try:
        yield execution
    except KeyboardInterrupt:
        with interrupts.held():  # the footer is written whatever Ctrl-C comes next
            execution.close(interrupted=True)
            runner.close()
        raise
    except BaseException:
        runner.close()
        raise
    with interrupts.held():  # a Ctrl-C now would cut the footer of a finished run
        runner.close()
        execution.close()
    if writer is not None:
        writer.raise_failure()


def report_interrupted_start(plan: RunPlan, identity: CorpusIdentity | None,
                             root: Path | None = None) -> None:
    """Ctrl-C (or SIGTERM) before the implementation said hello: with ``--report``, a report
    that says so (the implementation named by its spec, no result, a footer marked
    interrupted); a second Ctrl-C does not cut it short. Without the corpus's identity (the
    interrupt came while it was being read), the corpus is named by its ``root`` alone."""
    if plan.report is None:
        return
    if identity is None:
        identity = CorpusIdentity(root=str(root or corpus_root()), version=__version__,
                                  cases=0, sha256="")
    head = reports.header(implementation={"name": plan.implementation, "version": "unknown"},
                          capabilities={}, corpus=identity,
                          scope=RunScope(plan.selection, plan.implementation,
                                         str(plan.shard) if plan.shard else "",
                                         split_seed(plan)))
    with interrupts.held():
        reports.write_interrupted(plan.report, head)


def load_baseline(plan: RunPlan) -> Baseline:
    return Baseline.load(plan.baseline) if plan.baseline else Baseline()


def selected(plan: RunPlan, corpus: Corpus) -> list[Case]:
    """The plan's cases of ``corpus``, its shard's share (an empty shard is still a report:
    ``report merge`` needs every shard's)."""
    cases = corpus.select(plan.selection.cases, plan.selection.features)
    if not cases:
        raise ConformanceError("no case matches the selection")
    if plan.shard is not None:
        cases = plan.shard.select(cases, key=lambda case: case.id)
    return cases


def execute(plan: RunPlan, corpus: Corpus, *, cases: Sequence[Case] | None = None,
            goldens: GoldenSource | None = None, identity: CorpusIdentity | None = None,
            early: EarlyStart | None = None, watcher: Watcher | None = None,
            keep_answers: KeepAnswers | None = None) -> RunOutcome:
    """A whole run: ``cases`` (default: the plan's selection of ``corpus``) into the report
    at ``plan.report`` (a temporary file without one), read back and returned.

    The implementation starts (for Node, about a second) while the corpus is read and the
    goldens checked: a one-case run waits for the slower of the two, not for both. ``early``
    is one already being started (the ``run`` command starts it before importing this
    module); it is owned, and closed, from here. ``keep_answers`` sees every case's raw
    stage answers (the matrix keeps Pi's releases' for the drift report). A Ctrl-C during
    the run still returns: the report ends with a footer marked interrupted, and the outcome
    says so.
    """
    early = early or EarlyStart.begin(plan.implementation, plan.hint)
    source = goldens or CorpusGoldens(corpus.root)
    try:
        baseline = load_baseline(plan)
        chosen = list(cases) if cases is not None else selected(plan, corpus)
        # Every golden the selection could need, read before the run begins: a missing or
        # broken golden is an input problem (exit 2), not an error in the middle.
        source.check((case, stage) for case in chosen for stage in case.stages
                     if plan.selection.wants(stage))
        identity = identity or reports.corpus_identity(corpus)
        first = early.implementation
        early.hello()
    except KeyboardInterrupt:
        early.discard()
        report_interrupted_start(plan, identity, corpus.root)
        raise
    except BaseException:
        early.discard()
        raise
    restarts = 0
    with contextlib.ExitStack() as stack:
        try:
            planned = plan_cases(first.hello, chosen, plan.selection, source.unavailable)
        except BaseException:
            early.discard()
            raise
        workers = max(1, min(plan.limits.jobs, sum(1 for item in planned if item.ask)))
        instances = stack.enter_context(started(plan.implementation, workers, first,
                                                plan.hint))
        path, stream = stack.enter_context(reports.report_file(plan.report))
        try:
            with opened(plan, corpus, instances, goldens=source, stream=stream, path=path,
                        identity=identity, baseline=baseline, watcher=watcher) as execution:
                execution.runner.keep_answers = keep_answers
                try:
                    planned = execution.runner.prepare(planned, execution.hello.inputs)
                    (watcher or Watcher()).planned(execution.hello, planned)
                    execution.run(planned)
                finally:
                    restarts = execution.runner.restarts
        except KeyboardInterrupt:
            pass  # the footer says interrupted; the renderings still get written
        reports.close_report(stream, path)
        report = reports.read_report(path)
    return RunOutcome(report, restarts)


__all__ = ["Execution", "RunOutcome", "Watcher", "execute", "load_baseline", "opened",
           "report_interrupted_start", "selected"]
