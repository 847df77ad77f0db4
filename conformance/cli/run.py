"""``pi-conformance run``: score an implementation against the corpus."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli import options
from conformance.cli.reports import output_options, render_stdout, write_outputs
from conformance.cli.support import exit_code, load_corpus, stderr
from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from conformance.corpus.cases import Corpus
    from conformance.corpus.selection import Selection
    from conformance.corpus.shards import Shard
    from conformance.execution.plan import RunPlan
    from conformance.execution.reference_goldens import ReferenceGoldens
    from conformance.implementations.early import EarlyStart
    from conformance.reporting.model import CorpusIdentity, Report


@click.command()
@options.IMPLEMENTATION
@options.CASES
@click.option("--feature", "features", multiple=True, help="Only cases with this feature.")
@options.STAGES
@options.APIS_OPTION
@options.JOBS
@options.TIMEOUT
@options.MAX_RESTARTS
@options.BASELINE
@options.REPORT
@options.RUN_FORMAT
@click.option("--validate-protocol", is_flag=True,
              help="Check every answer against the protocol's JSON Schemas.")
@options.ALLOW_EMPTY
@click.option("--against", "against", metavar="RELEASE",
              help="Judge with this Pi release's answers instead of the corpus's goldens "
                   "(pi@1.3.0: the release a port follows), asked now as corpus regenerate "
                   "asks Pi; stages the release cannot answer are skipped, saying so.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@options.shard_option("a stable partition of the cases by id")
@output_options
@options.CORPUS
def run(impl_spec: str, cases: tuple[str, ...], features: tuple[str, ...],
        stages: tuple[str, ...], apis: tuple[str, ...], jobs: int, timeout: float,
        max_restarts: int, baseline: Path | None, report_path: Path | None,
        output_format: str, validate_protocol: bool, allow_empty: bool,
        against: str | None, quiet: bool, shard: Shard | None, corpus_path: Path | None,
        outputs: dict[str, Path]) -> None:
    """Score an implementation against the corpus.

    Exit 1 when a stage fails or errors (known failures aside) or a baseline entry is stale;
    5 when nothing was judged (every result skipped; --allow-empty makes that a pass); 130
    when interrupted, 143 on SIGTERM (the report and the renderings are still written,
    marked so).
    """
    from conformance.corpus.selection import Selection
    from conformance.implementations.early import EarlyStart

    selection = Selection(cases, features, stages, apis)
    # The implementation starts now, and its handshake overlaps loading the runner and
    # the corpus; execute() owns it from the moment it is called. A run narrowed to some
    # stages says which, so that it loads only what they need (PI_CONFORMANCE_STAGES).
    early = EarlyStart.begin(impl_spec, selection.hint)
    try:
        from conformance.cli.progress import progress_bar
        from conformance.execution.executor import execute
        from conformance.execution.plan import Limits, RunPlan

        plan = RunPlan(impl_spec, selection,
                       Limits(timeout=timeout, max_restarts=max_restarts, jobs=jobs,
                              validate_protocol=validate_protocol),
                       shard=shard, baseline=baseline, report=report_path,
                       allow_empty=allow_empty)
        corpus = load_corpus(corpus_path)
        bar = progress_bar(not quiet and output_format == "terminal")
    except KeyboardInterrupt:  # still loading: --report says so all the same
        early.discard()
        _report_early_interrupt(impl_spec, selection, report_path, corpus_path)
        raise
    except BaseException:
        early.discard()
        raise
    with contextlib.ExitStack() as stack:
        goldens, identity = None, None
        if against is not None:
            goldens, identity = _against(against, corpus, plan, stack, early)
        stack.enter_context(bar or contextlib.nullcontext())
        outcome = execute(plan, corpus, early=early, watcher=bar, goldens=goldens,
                          identity=identity)
    write_outputs(outcome.report, outputs)
    render_stdout(outcome.report, output_format, case_lines(corpus, outcome.report))
    if outcome.interrupted:
        stderr().print("interrupted")
    sys.exit(exit_code(outcome.report))


def _against(spec: str, corpus: Corpus, plan: RunPlan, stack: contextlib.ExitStack,
             early: EarlyStart) -> tuple[ReferenceGoldens, CorpusIdentity]:
    """``--against``: the release as the golden source, started (it says which stages it
    answers), and the report's corpus naming it as the reference judged against."""
    from dataclasses import replace

    from conformance.execution.answer_cache import AnswerCache
    from conformance.execution.reference_goldens import ReferenceGoldens
    from conformance.implementations import known
    from conformance.implementations.specs import known_implementation
    from conformance.reporting.stream import corpus_identity

    try:
        entry = known.lookup(spec)
        if entry is None or entry.name not in ("pi", "pi-mariozechner"):
            raise ConformanceError(f"--against {spec}: name a release of Pi, e.g. pi@1.3.0")
        goldens = ReferenceGoldens(stage_timeout=plan.limits.timeout, hint=plan.hint,
                                   release=lambda variation: known_implementation(entry,
                                                                                  variation),
                                   cache=AnswerCache(entry.spec))
        stack.callback(goldens.close)
        stack.callback(_say_cached, goldens)
        goldens.start()
    except BaseException:
        early.discard()
        raise
    versions = " ".join(f"{k}@{v}" for k, v in sorted(goldens.versions.items()))
    identity = replace(corpus_identity(corpus),
                       reference=(f"judged against {entry.spec}: {versions}",))
    return goldens, identity


def _report_early_interrupt(impl_spec: str, selection: Selection, report_path: Path | None,
                            corpus_path: Path | None) -> None:
    """A Ctrl-C before the corpus was read: the report names no case and no digest."""
    from conformance.execution.executor import report_interrupted_start
    from conformance.execution.plan import RunPlan

    report_interrupted_start(RunPlan(impl_spec, selection, report=report_path), None,
                             corpus_path)


def _say_cached(goldens: ReferenceGoldens) -> None:
    cache = goldens.cache
    if cache is not None:
        stderr().print(f"answers of {cache.release}: {cache.hits} from the cache, "
                       f"{cache.misses} asked now ({cache.directory})", soft_wrap=True)


def case_lines(corpus: Corpus, report: Report) -> dict[str, str]:
    """Each failing case's title and directory (relative to the working directory when it
    is under it), shown under its failure: what a reader opens next."""
    failing = {result.case for result in report.failures()}
    lines = {}
    for case in corpus.cases:
        if case.id in failing:
            try:
                where = case.directory.resolve().relative_to(Path.cwd())
            except ValueError:
                where = case.directory
            lines[case.id] = f"{case.title} ({where})"
    return lines
