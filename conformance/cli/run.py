"""``pi-conformance run``: score an implementation against the corpus."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli import options
from conformance.cli.reports import output_options, render_stdout, write_outputs
from conformance.cli.support import (
    EXIT_FAILED,
    friendly_errors,
    interrupted_exit_code,
    load_corpus,
    stderr,
)

if TYPE_CHECKING:
    from conformance.corpus.shards import Shard


@click.command()
@options.IMPLEMENTATION
@options.CASES
@click.option("--feature", "features", multiple=True, help="Only cases with this feature.")
@options.STAGES
@options.APIS_OPTION
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Parallel workers, each with its own implementation process.")
@options.TIMEOUT
@click.option("--max-restarts", default=10, show_default=True, type=click.IntRange(0),
              help="Restarts after crashes or hangs before the rest of the run is abandoned.")
@options.BASELINE
@options.REPORT
@options.RUN_FORMAT
@click.option("--validate-protocol", is_flag=True,
              help="Check every answer against the protocol's JSON Schemas.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@options.shard_option("a stable partition of the cases by id")
@output_options
@options.CORPUS
def run(impl_spec: str, cases: tuple[str, ...], features: tuple[str, ...],
        stages: tuple[str, ...], apis: tuple[str, ...], jobs: int, timeout: float,
        max_restarts: int, baseline: Path | None, report_path: Path | None,
        output_format: str, validate_protocol: bool, quiet: bool,
        shard: Shard | None, corpus_path: Path | None, outputs: dict[str, Path]) -> None:
    """Score an implementation against the corpus.

    Exit 1 when a stage fails or errors (known failures aside) or a baseline entry is stale;
    130 when interrupted, 143 on SIGTERM (the report and the renderings are still written,
    marked so).
    """
    with friendly_errors():
        from conformance.corpus.stages import narrowed
        from conformance.implementations.early import EarlyStart

        # The implementation starts now, and its handshake overlaps loading the runner and
        # the corpus; execute() owns it from the moment it is called. A run narrowed to some
        # stages says which, so that it loads only what they need (PI_CONFORMANCE_STAGES).
        early = EarlyStart.begin(impl_spec, narrowed(stages, apis))
        try:
            from conformance.reporting.run import RunRequest, execute

            request = RunRequest(
                corpus=load_corpus(corpus_path), impl_spec=impl_spec, cases=cases,
                features=features, stages=stages, apis=apis, jobs=jobs, timeout=timeout,
                max_restarts=max_restarts, baseline=baseline, report_path=report_path,
                validate_protocol=validate_protocol,
                progress=not quiet and output_format == "terminal", shard=shard, early=early)
        except BaseException:
            early.discard()
            raise
        outcome = execute(request)
        write_outputs(outcome.report, outputs)
        render_stdout(outcome.report, output_format)
    if outcome.interrupted:
        stderr().print("interrupted")
        sys.exit(interrupted_exit_code())
    sys.exit(EXIT_FAILED if outcome.failed else 0)
