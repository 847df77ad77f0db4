"""``pi-conformance capture``: record scenarios with the real CLI, derive their cases.

Recording writes ``corpus/captures/<scenario>/`` and the inputs of
``corpus/cases/captured/<scenario>/``, then asks the reference harness for the other goldens
of those cases (the same path as ``pi-conformance regenerate 'captured.*'``). ``--check``
records into memory only and reports every file that would change.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from conformance.corpus import Corpus


def stale_captures(corpus: Corpus, names: Iterable[str] = (),
                   progress: Callable[[Any], None] | None = None) -> list[str]:
    """Re-record scenarios and return a description of every stored file that differs."""
    from conformance.captures.run import differences, produce, select
    from conformance.reference import require_installation

    installation = require_installation()
    problems: list[str] = []
    for scenario in select(corpus, names):
        problems += differences(corpus, produce(scenario, installation))
        if progress is not None:
            progress(scenario)
    return problems


@click.command("capture")
@click.argument("names", nargs=-1, metavar="[SCENARIO]...")
@click.option("--check", "check_only", is_flag=True,
              help="Re-record without writing; fail if any stored file would change.")
@click.option("--no-regenerate", is_flag=True,
              help="Do not regenerate the derived cases' harness goldens afterwards.")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path, file_okay=False),
              help="A corpus directory (default: the one shipped with pi-conformance).")
def capture(names: tuple[str, ...], check_only: bool, no_regenerate: bool,
            corpus_path: Path | None) -> None:
    """Record scenarios (default: all) by running the real pi CLI against a fake provider."""
    from conformance._cli import EXIT_FAILED, friendly_errors, load_corpus, stderr
    from conformance.captures.run import case_directory, produce, select, write
    from conformance.reference import require_installation
    from conformance.regenerate import regenerate

    with friendly_errors():
        corpus = load_corpus(corpus_path)
        scenarios = select(corpus, names)
        started = time.perf_counter()
        if check_only:
            problems = stale_captures(corpus, names, lambda s: stderr.print(f"recorded {s.name}"))
            for problem in problems:
                stderr.print(f"[red]stale:[/] {problem}", soft_wrap=True)
            stderr.print(f"{len(scenarios)} scenario(s) re-recorded in "
                         f"{time.perf_counter() - started:.1f}s, {len(problems)} stale file(s)")
            sys.exit(EXIT_FAILED if problems else 0)
        installation = require_installation()
        for count, scenario in enumerate(scenarios, 1):
            write(corpus, produce(scenario, installation))
            stderr.print(f"[{count}/{len(scenarios)}] {scenario.name}", highlight=False)
        recorded = time.perf_counter() - started
        stderr.print(f"recorded {len(scenarios)} scenario(s) in {recorded:.1f}s")
        if not no_regenerate:
            fresh = load_corpus(corpus_path)
            directories = {case_directory(fresh, s).resolve() for s in scenarios}
            cases = [c for c in fresh.cases if c.directory.resolve() in directories]
            written = regenerate(fresh, cases)
            stderr.print(f"wrote {written} harness golden(s) for {len(cases)} derived case(s)")
