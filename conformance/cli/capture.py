"""``pi-conformance corpus capture``: record scenarios with the real CLI, derive their cases.

Recording writes ``corpus/captures/<scenario>/`` and the inputs of
``corpus/cases/captured/<scenario>/``, then asks the reference harness for the other goldens
of those cases (the same path as ``pi-conformance corpus regenerate 'captured.*'``). ``--check``
records into memory only and reports every file that would change. Scenarios are recorded
``--jobs`` at a time: each run has its own sandbox, provider port and Pi process.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, load_corpus, stderr, styled

if TYPE_CHECKING:
    from conformance.corpus.cases import Corpus

DEFAULT_JOBS = 2


def recorded(corpus: Corpus, names: Iterable[str] = (), jobs: int = DEFAULT_JOBS
             ) -> Iterator[tuple[Any, float]]:
    """(produced capture, seconds it took) per scenario, in scenario order."""
    from concurrent.futures import ThreadPoolExecutor

    from conformance.implementations.reference import require_installation
    from conformance.maintenance.captures.run import produce, select

    installation = require_installation()

    def timed(scenario: Any) -> tuple[Any, float]:
        started = time.perf_counter()
        return produce(scenario, installation), time.perf_counter() - started

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(timed, select(corpus, names))


def stale_captures(corpus: Corpus, names: Iterable[str] = (), jobs: int = DEFAULT_JOBS,
                   progress: Callable[[Any, float], None] | None = None) -> list[str]:
    """Re-record scenarios and return a description of every stored file that differs."""
    from conformance.maintenance.captures.run import differences

    problems: list[str] = []
    for produced, seconds in recorded(corpus, names, jobs):
        problems += differences(corpus, produced)
        if progress is not None:
            progress(produced.scenario, seconds)
    return problems


@click.command("capture")
@click.argument("names", nargs=-1, metavar="[SCENARIO]...")
@click.option("--check", "check_only", is_flag=True,
              help="Re-record without writing; fail if any stored file would change.")
@click.option("--no-regenerate", is_flag=True,
              help="Do not regenerate the derived cases' harness goldens afterwards.")
@click.option("-j", "--jobs", default=DEFAULT_JOBS, show_default=True,
              type=click.IntRange(1, 16), help="Scenarios recorded at the same time.")
@options.CORPUS
def capture(names: tuple[str, ...], check_only: bool, no_regenerate: bool, jobs: int,
            corpus_path: Path | None) -> None:
    """Record scenarios with the real pi CLI and a fake provider.

    Default: every scenario. The derived cases' harness goldens are regenerated afterwards.
    """
    from conformance.maintenance.captures.run import case_directory, select, write
    from conformance.maintenance.regenerate import regenerate

    corpus = load_corpus(corpus_path)
    scenarios = select(corpus, names)
    started = time.perf_counter()

    def report(scenario: Any, seconds: float, count: list[int] = [0]) -> None:  # noqa: B006
        count[0] += 1
        stderr().print(f"[{count[0]}/{len(scenarios)}] {scenario.name} {seconds:.1f}s",
                     highlight=False)

    if check_only:
        problems = stale_captures(corpus, names, jobs, report)
        for problem in problems:
            stderr().print(styled("red", "stale:"), problem, soft_wrap=True)
        stderr().print(f"{len(scenarios)} scenario(s) re-recorded in "
                     f"{time.perf_counter() - started:.1f}s, {len(problems)} stale file(s)")
        sys.exit(EXIT_FAILED if problems else 0)
    for produced, seconds in recorded(corpus, names, jobs):
        write(corpus, produced)
        report(produced.scenario, seconds)
    stderr().print(f"recorded {len(scenarios)} scenario(s) in "
                 f"{time.perf_counter() - started:.1f}s")
    if not no_regenerate:
        fresh = load_corpus(corpus_path)
        directories = {case_directory(fresh, s).resolve() for s in scenarios}
        cases = [c for c in fresh.cases if c.directory.resolve() in directories]
        written = regenerate(fresh, cases)
        stderr().print(f"wrote {written} harness golden(s) for {len(cases)} derived case(s)")
