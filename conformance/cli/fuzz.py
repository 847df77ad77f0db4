"""``pi-conformance fuzz`` and ``pi-conformance corpus promote``: the differential fuzzer's CLI.

Users fuzz their implementation; maintainers promote what it finds into the corpus.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, EXIT_UNUSABLE, echo, load_corpus, stderr, styled

if TYPE_CHECKING:
    from conformance.corpus.shards import Shard
    from conformance.maintenance.fuzz import Differential


@click.command("fuzz")
@options.IMPLEMENTATION
@click.option("--max-examples", default=200, show_default=True, type=click.IntRange(1),
              help="Generated sessions to try (shrinking comes on top).")
@click.option("--seed", type=int, help="Make the run reproducible.")
@options.STAGES
@click.option("--sessions", "kind", default="all", show_default=True,
              type=click.Choice(["all", "valid", "edge", "legacy"]),
              help="Which generated sessions: valid v3 trees, edge cases, legacy v1/v2 files.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False),
              default=Path("fuzz-candidates"), show_default=True,
              help="Where candidate cases are written.")
@options.TIMEOUT
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Pairs of processes (implementation and reference) answering at once.")
@options.shard_option("each shard fuzzes its own seed, SEED*N+K-1; needs --seed",
                      "fuzz writes candidates, not a report: collect each shard's --out.")
@click.option("--responses", is_flag=True,
              help="Instead of generating sessions, cut the body of every provider response of "
                   "the corpus (response.<api> stages IMPL claims) where Hypothesis chooses "
                   "(--max-examples cuts each), judged against Pi's golden: a stream parser's "
                   "answer must not depend on where the bytes were cut.")
@options.CASES
@options.CORPUS
def fuzz(impl_spec: str, max_examples: int, seed: int | None, stages: tuple[str, ...],
         kind: str, out: Path, timeout: float, jobs: int, shard: Shard | None,
         responses: bool, cases: tuple[str, ...], corpus_path: Path | None) -> None:
    """Fuzz IMPL against Pi with generated sessions.

    Each disagreement is shrunk and written as a candidate case in --out. Every session stage
    both answer is compared unless --stage says otherwise. With --responses, the corpus's
    provider responses are cut instead, and each cut judged against Pi's golden.
    """
    if responses:
        _fuzz_responses(impl_spec, max_examples, seed, out, timeout, cases, corpus_path)
        return
    from conformance.implementations.specs import resolve
    from conformance.maintenance.fuzz import (
        Differential,
        fuzz_seed,
        start_generators,
        write_candidate,
    )
    from conformance.maintenance.fuzz import fuzz as run_fuzzer

    if shard is not None:
        if seed is None:
            raise click.UsageError("--shard needs --seed, so that the shards draw disjoint "
                                   "seeds (e.g. --seed $GITHUB_RUN_ID)")
        seed = shard.seed(seed)
        stderr().print(f"shard {shard}: seed {seed}")
    command = "pi-conformance fuzz " + shlex.join(
        ["--impl", impl_spec, "--max-examples", str(max_examples), "--sessions", kind]
        + (["--seed", str(seed)] if seed is not None else [])
        + [arg for stage in stages for arg in ("--stage", stage)])
    with contextlib.ExitStack() as stack:
        seed = fuzz_seed(seed)  # the generators start while Node does
        generators = start_generators(kind, max_examples, seed, jobs)
        stack.callback(generators.close)
        pairs = _started_pairs(stack, jobs, lambda: Differential(
            resolve(impl_spec), stages=stages, timeout=timeout))
        differential = pairs[0]
        name = differential.impl.hello.name
        stderr().print(f"fuzzing {name} against Pi on {', '.join(differential.stages)}"
                       + (f" ({jobs} pairs of processes)" if jobs > 1 else ""))

        def tick(n: int) -> None:
            if n % 100 == 0:
                stderr().print(f"  {n} sessions", highlight=False)

        outcome = run_fuzzer(pairs, max_examples=max_examples, seed=seed,
                             sessions=generators, on_example=tick)
        stderr().print(f"{outcome.examples} sessions in {outcome.elapsed:.1f}s "
                       f"({outcome.rate:.0f}/s)"
                       + (f", then {outcome.shrink_elapsed:.1f}s shrinking"
                          if outcome.findings else ""))
        if outcome.flaky:
            stderr().print(styled("yellow", "warning:"), "a disagreement did not reproduce "
                           "on replay (the implementation is not deterministic)")
        unwritten = 0
        for finding in outcome.findings:
            entries = finding.session.count(b"\n")
            try:
                directory = write_candidate(finding, out, name, command, differential.stages)
            except OSError as exc:  # a full disk: the finding is printed, not lost
                unwritten += 1
                echo(f"disagreement ({entries} line(s)) -> not written "
                     f"({os.fsdecode(exc.filename or out)}: {exc.strerror}); its session:")
                click.echo(finding.session.decode("utf-8", errors="replace"), nl=False)
            else:
                echo(f"disagreement ({entries} line(s)) -> {directory}")
            for stage, what in finding.stages.items():
                echo(f"  {stage}: {what}")
        if unwritten:
            echo(f"error: {unwritten} candidate(s) could not be written under {out}; "
                 "their sessions are on standard output", err=True)
            sys.exit(EXIT_UNUSABLE)
    if not outcome.findings:
        echo(f"no disagreement in {outcome.examples} sessions")
    sys.exit(EXIT_FAILED if outcome.findings else 0)


def _fuzz_responses(impl_spec: str, max_examples: int, seed: int | None, out: Path,
                    timeout: float, cases: tuple[str, ...], corpus_path: Path | None) -> None:
    """``fuzz --responses``: the chunk-boundary search (maintenance/response_fuzz.py)."""
    from conformance.implementations.specs import resolve
    from conformance.maintenance.fuzz import fuzz_seed
    from conformance.maintenance.response_fuzz import fuzz_cuts, write_cut_candidate

    corpus = load_corpus(corpus_path)
    chosen = [case for case in corpus.select(cases) if case.response_stages()]
    seed = fuzz_seed(seed)
    command = "pi-conformance fuzz --responses " + shlex.join(
        ["--impl", impl_spec, "--max-examples", str(max_examples), "--seed", str(seed)]
        + [arg for pattern in cases for arg in ("-k", pattern)])
    with resolve(impl_spec) as impl:
        name = impl.hello.name
        stderr().print(f"cutting {sum(len(c.response_stages()) for c in chosen)} response(s) "
                       f"of {len(chosen)} case(s) for {name}, {max_examples} cuts each")
        findings = fuzz_cuts(impl, corpus, chosen, max_examples=max_examples, seed=seed,
                             timeout=timeout)
        for finding in findings:
            directory = write_cut_candidate(finding, out, name, command)
            echo(f"{finding.case.id} {finding.stage}: cut at {list(finding.cuts)} -> {directory}")
            echo(f"  {finding.detail.splitlines()[0] if finding.detail else ''}")
    if not findings:
        echo(f"no response answered otherwise once cut ({max_examples} cuts each)")
    sys.exit(EXIT_FAILED if findings else 0)


def _started_pairs(stack: contextlib.ExitStack, jobs: int,
                   make: Callable[[], Differential]) -> list[Differential]:
    """``jobs`` started pairs, all started at once; every one is closed by ``stack``."""
    from concurrent.futures import ThreadPoolExecutor

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


@click.command()
@click.argument("candidate", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--id", "case_id", metavar="AREA.SLUG",
              help="The case's permanent id (default: the candidate's slug in --area).")
@click.option("--area", help="Area for an --id without one (default: the candidate's own, "
                             "fuzz or compare).")
@click.option("--anonymize", is_flag=True,
              help="Replace the session's text, ids, paths, signatures and images by synthetic "
                   "values of the same shape, and keep the case only if IMPL still differs "
                   "from Pi the same way on it.")
@click.option("--impl", "impl_spec", metavar="IMPL",
              help=f"With --anonymize: the implementation that showed the difference "
                   f"(default: the one the candidate names): {options.IMPL_SPECS}.")
@options.CORPUS
def promote(candidate: Path, case_id: str | None, area: str | None, anonymize: bool,
            impl_spec: str | None, corpus_path: Path | None) -> None:
    """Turn a fuzzer or compare candidate into a corpus case.

    Its goldens are written by the reference, as regenerate writes them.
    """
    from conformance.maintenance.promote import promote as add_to_corpus

    area = area or _candidate_area(candidate)
    if anonymize:
        from conformance.maintenance.anonymized_promotion import promote_anonymized

        done = promote_anonymized(candidate, load_corpus(corpus_path), case_id, area,
                                  impl_spec)
        case = done.case
        stderr().print("anonymized; the same difference on "
                       + ", ".join(done.signatures))
    else:
        case = add_to_corpus(candidate, load_corpus(corpus_path), case_id, area)
    stderr().print(f"promoted {candidate} -> {case.directory} as {case.id} "
                   f"({len(case.stages)} golden(s) from the reference)")


def _candidate_area(candidate: Path) -> str:
    """The area of the candidate's own id (``compare.compare-1a2b`` -> compare), else fuzz."""
    import tomllib

    try:
        meta = tomllib.loads((candidate / "case.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "fuzz"  # promote itself says what is wrong with the candidate
    area = str(meta.get("id", "")).split(".", 1)[0]
    return area if area in ("fuzz", "compare") else "fuzz"
