"""``pi-conformance fuzz`` and ``pi-conformance promote``: the differential fuzzer's CLI."""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli.support import EXIT_FAILED, corpus_option, friendly_errors, load_corpus, stderr
from conformance.corpus.stages import ALL_STAGES

if TYPE_CHECKING:
    from conformance.maintenance.fuzz import Differential


@click.command("fuzz")
@click.option("--impl", "impl_spec", required=True, metavar="IMPL",
              help="reference, process:CMD, oneshot:CMD, python:MODULE:ATTR or a .toml file.")
@click.option("--max-examples", default=200, show_default=True, type=click.IntRange(1),
              help="Generated sessions to try (shrinking comes on top).")
@click.option("--seed", type=int, help="Make the run reproducible.")
@click.option("--stage", "stages", multiple=True, type=click.Choice(ALL_STAGES),
              help="Compare only this stage (repeatable; default: every session stage both "
                   "answer).")
@click.option("--sessions", "kind", default="all", show_default=True,
              type=click.Choice(["all", "valid", "edge", "legacy"]),
              help="Which generated sessions: valid v3 trees, edge cases, legacy v1/v2 files.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False),
              default=Path("fuzz-candidates"), show_default=True,
              help="Where candidate cases are written.")
@click.option("--timeout", default=20.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds each side may take for one session.")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Pairs of processes (implementation and reference) answering at once.")
def fuzz_command(impl_spec: str, max_examples: int, seed: int | None, stages: tuple[str, ...],
                 kind: str, out: Path, timeout: float, jobs: int) -> None:
    """Run generated sessions through IMPL and the reference; shrink and save disagreements."""
    from conformance.implementations.specs import resolve
    from conformance.implementations.transports import reference
    from conformance.maintenance.fuzz import Differential, fuzz, fuzz_sessions, write_candidate

    command = "pi-conformance fuzz " + shlex.join(
        ["--impl", impl_spec, "--max-examples", str(max_examples), "--sessions", kind]
        + (["--seed", str(seed)] if seed is not None else [])
        + [arg for stage in stages for arg in ("--stage", stage)])
    with friendly_errors(), contextlib.ExitStack() as stack:
        pairs = _started_pairs(stack, jobs, lambda: Differential(
            resolve(impl_spec), reference(), stages, timeout=timeout))
        differential = pairs[0]
        name = differential.impl.hello.name
        stderr.print(f"fuzzing {name} against Pi on {', '.join(differential.stages)}"
                     + (f" ({jobs} pairs of processes)" if jobs > 1 else ""))

        def tick(n: int) -> None:
            if n % 100 == 0:
                stderr.print(f"  {n} sessions", highlight=False)

        outcome = fuzz(pairs, max_examples=max_examples, seed=seed,
                       sessions=fuzz_sessions(kind), on_example=tick)
        stderr.print(f"{outcome.examples} sessions in {outcome.elapsed:.1f}s "
                     f"({outcome.rate:.0f}/s)"
                     + (f", then {outcome.shrink_elapsed:.1f}s shrinking"
                        if outcome.findings else ""))
        if outcome.flaky:
            stderr.print("[yellow]warning:[/] a disagreement did not reproduce on replay "
                         "(the implementation is not deterministic)")
        for finding in outcome.findings:
            directory = write_candidate(finding, out, name, command, differential.stages)
            entries = finding.session.count(b"\n")
            click.echo(f"disagreement ({entries} line(s)) -> {directory}")
            for stage, what in finding.stages.items():
                click.echo(f"  {stage}: {what}")
    if not outcome.findings:
        click.echo(f"no disagreement in {outcome.examples} sessions")
    sys.exit(EXIT_FAILED if outcome.findings else 0)


def _started_pairs(stack: contextlib.ExitStack, jobs: int,
                   make: Callable[[], Differential]) -> list[Differential]:
    """``jobs`` started pairs, all started at once; every one is closed by ``stack``."""
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(make().__enter__) for _ in range(jobs)]
        pairs: list[Differential] = []
        errors: list[BaseException] = []
        for future in futures:
            try:
                pairs.append(stack.enter_context(_Entered(future.result())))
            except BaseException as exc:  # the others are still closed by the stack
                errors.append(exc)
    if errors:
        raise errors[0]
    return pairs


class _Entered:
    """An already entered context manager, handed to an ExitStack for its exit."""

    def __init__(self, pair: Differential):
        self.pair = pair

    def __enter__(self) -> Differential:
        return self.pair

    def __exit__(self, *exc: object) -> None:
        self.pair.__exit__()


@click.command("promote")
@click.argument("candidate", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--id", "case_id", metavar="AREA.SLUG",
              help="The case's permanent id (default: the candidate's slug in --area).")
@click.option("--area", default="fuzz", show_default=True,
              help="Area for an --id without one.")
@corpus_option
def promote_command(candidate: Path, case_id: str | None, area: str,
                    corpus_path: Path | None) -> None:
    """Turn a fuzzer candidate into a corpus case, with goldens written by the reference."""
    from conformance.maintenance.promote import promote

    with friendly_errors():
        case = promote(candidate, load_corpus(corpus_path), case_id, area)
    stderr.print(f"promoted {candidate} -> {case.directory} as {case.id} "
                 f"({len(case.stages)} golden(s) from the reference)")
