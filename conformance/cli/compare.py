"""``pi-conformance compare``: an implementation against the real Pi on your own session files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli import options
from conformance.cli.reports import output_options, render_stdout, write_outputs
from conformance.cli.support import exit_code, stderr

if TYPE_CHECKING:
    from conformance.corpus.shards import Shard


@click.command()
@options.IMPLEMENTATION
@click.argument("paths", nargs=-1, required=True, metavar="PATH...",
                type=click.Path(path_type=Path, exists=True))
@options.STAGES
@options.APIS_OPTION
@options.TIMEOUT
@options.MAX_RESTARTS
@options.BASELINE
@options.REPORT
@click.option("--candidates", type=click.Path(path_type=Path, file_okay=False),
              help="Shrink every new disagreement and write it here as a candidate case "
                   "(corpus promote --anonymize turns one into a public case).")
@click.option("--max-tests", default=400, show_default=True, type=click.IntRange(1),
              help="Runs of both sides a shrink may take.")
@options.ALLOW_EMPTY
@options.RUN_FORMAT
@options.shard_option("a stable partition of the files by path")
@output_options
def compare(impl_spec: str, paths: tuple[Path, ...], stages: tuple[str, ...],
            apis: tuple[str, ...], timeout: float, max_restarts: int, baseline: Path | None,
            report_path: Path | None, candidates: Path | None, max_tests: int,
            allow_empty: bool, output_format: str, shard: Shard | None,
            outputs: dict[str, Path]) -> None:
    """Run session files through IMPL and the real Pi; Pi's answers are the goldens.

    PATH may be a directory (e.g. ~/.pi/agent/sessions): every *.jsonl under it. Each file is
    judged as run judges a case, on every stage both answer, into the same report as run
    (--report, --junit, --html, --baseline). Pi and IMPL only ever see copies of one
    snapshot of each file. Exit 1 on a difference, 5 when nothing was judged, 130 when
    interrupted.
    """
    from conformance.corpus.selection import Selection
    from conformance.execution.plan import Limits, RunPlan
    from conformance.maintenance.compare import compare as run_compare
    from conformance.maintenance.compare import root_cause_lines

    def say(message: str) -> None:
        stderr().print(message, soft_wrap=True)

    plan = RunPlan(impl_spec, Selection(stages=stages, apis=apis),
                   Limits(timeout=timeout, max_restarts=max_restarts), shard=shard,
                   baseline=baseline, report=report_path, allow_empty=allow_empty)
    outcome = run_compare(plan, paths, candidates=candidates, max_tests=max_tests, say=say)
    write_outputs(outcome.report, outputs)
    render_stdout(outcome.report, output_format)
    causes = root_cause_lines(outcome.report)
    if causes:
        say(f"{len(causes)} root cause(s):")
        for line in causes:
            say(f"  {line}")
    for candidate in outcome.candidates:
        say(f"candidate: {candidate.directory} ({candidate.original_lines} -> "
            f"{candidate.lines} line(s); made for {candidate.atom.describe()})")
    if outcome.interrupted:
        say("interrupted")
    sys.exit(exit_code(outcome.report))
