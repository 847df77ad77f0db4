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

if TYPE_CHECKING:
    from conformance.corpus.cases import Corpus
    from conformance.corpus.selection import Selection
    from conformance.corpus.shards import Shard
    from conformance.execution.against import ReleaseJudging
    from conformance.execution.plan import RunPlan
    from conformance.implementations.early import EarlyStart
    from conformance.reporting.model import Report


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
@options.SPLIT_RESPONSES
@click.option("--against", "against", metavar="RELEASE",
              help="Judge with this Pi release's answers instead of the corpus's goldens "
                   "(pi@1.3.0: the release a port follows; default: the release the "
                   "implementation's hello targets, if any; reference: the pinned one), "
                   "built on first use as corpus regenerate builds goldens, then cached; "
                   "stages the release cannot answer are skipped, saying so.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@options.shard_option("a stable partition of the cases by id")
@output_options
@options.CORPUS
def run(impl_spec: str, cases: tuple[str, ...], features: tuple[str, ...],
        stages: tuple[str, ...], apis: tuple[str, ...], jobs: int, timeout: float,
        max_restarts: int, baseline: Path | None, report_path: Path | None,
        output_format: str, validate_protocol: bool, allow_empty: bool,
        split_seed: int | None, against: str | None, quiet: bool, shard: Shard | None,
        corpus_path: Path | None,
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
        from conformance.execution.rechunking import Rechunking

        plan = RunPlan(impl_spec, selection,
                       Limits(timeout=timeout, max_restarts=max_restarts, jobs=jobs,
                              validate_protocol=validate_protocol),
                       shard=shard, baseline=baseline, report=report_path,
                       allow_empty=allow_empty, against=against,
                       rechunking=None if split_seed is None else Rechunking(split_seed))
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
        judging = _against(plan, corpus, stack, early)
        goldens = judging.goldens if judging else None
        identity = judging.identity if judging else None
        stack.enter_context(bar or contextlib.nullcontext())
        outcome = execute(plan, corpus, early=early, watcher=bar, goldens=goldens,
                          identity=identity)
    write_outputs(outcome.report, outputs)
    render_stdout(outcome.report, output_format, case_lines(corpus, outcome.report))
    if outcome.interrupted:
        stderr().print("interrupted")
    sys.exit(exit_code(outcome.report))


def _against(plan: RunPlan, corpus: Corpus, stack: contextlib.ExitStack,
             early: EarlyStart) -> ReleaseJudging | None:
    """The release judged against (``--against``, else the one the hello targets), started
    as the golden source, or None: the corpus's goldens. A hello's ``targets`` needs the
    handshake first; a failed start is reported by ``execute``, as without it."""
    from conformance.execution.against import judged_release, release_goldens, targeted_note

    try:
        hello = early.settled_hello() if plan.against is None else None
        spec = judged_release(plan.against, hello)
        if spec is None:
            return None
        note = targeted_note(plan.against, hello, spec)
        if note:
            stderr().print(note, soft_wrap=True)
        judging = release_goldens(spec, corpus, plan)
    except KeyboardInterrupt:  # waiting for the hello: --report says so all the same
        early.discard()
        from conformance.execution.executor import report_interrupted_start

        report_interrupted_start(plan, None, corpus.root)
        raise
    except BaseException:
        early.discard()
        raise
    stack.callback(judging.close)
    stack.callback(lambda: stderr().print(judging.summary(), soft_wrap=True))
    return judging


def _report_early_interrupt(impl_spec: str, selection: Selection, report_path: Path | None,
                            corpus_path: Path | None) -> None:
    """A Ctrl-C before the corpus was read: the report names no case and no digest."""
    from conformance.execution.executor import report_interrupted_start
    from conformance.execution.plan import RunPlan

    report_interrupted_start(RunPlan(impl_spec, selection, report=report_path), None,
                             corpus_path)


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
