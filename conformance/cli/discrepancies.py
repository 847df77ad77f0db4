"""``pi-conformance corpus discrepancies``: the issue drafts, regenerated from data."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from conformance.cli import options
from conformance.cli.support import load_corpus, stderr, styled
from conformance.errors import ConformanceError


@click.command("discrepancies")
@click.option("--verify", is_flag=True,
              help="Re-run every reproducer against the real packages; exit 1 when one no "
                   "longer reproduces (it is marked resolved with the version).")
@click.option("--reports", "reports_dir", default="reports", show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where the run reports (*.jsonl) are.")
@click.option("--out", "out_dir", default="reports/discrepancies", show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where the drafts, README.md and index.json go.")
@click.option("--impl", "impl_specs", multiple=True, metavar="NAME=SPEC",
              help="How to start an implementation named in the reports (repeatable); "
                   "default: the --impl its report was made with.")
@click.option("--max-tests", default=400, show_default=True, type=click.IntRange(1),
              help="Most runs spent shrinking one reproducer.")
@options.TIMEOUT
@options.CORPUS
def discrepancies(verify: bool, reports_dir: Path, out_dir: Path, impl_specs: tuple[str, ...],
                  max_tests: int, timeout: float, corpus_path: Path | None) -> None:
    """Write an issue draft per discrepancy with Pi or its docs.

    Pi against its docs, and implementations against Pi, from the run reports.
    """
    from conformance.maintenance.discrepancies.build import Settings, build

    specs = {}
    for item in impl_specs:
        name, sep, spec = item.partition("=")
        if not sep or not name or not spec:
            raise ConformanceError(f"--impl wants NAME=SPEC, not {item!r}")
        specs[name] = spec
    outcome = build(Settings(
        corpus=load_corpus(corpus_path), reports=reports_dir, out=out_dir, verify=verify,
        impl_specs=specs, max_tests=max_tests, timeout=timeout,
        say=lambda message: stderr().print(message, highlight=False, soft_wrap=True)))
    entries = outcome.index["discrepancies"]
    targets: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        targets.setdefault(entry["target"], []).append(entry)
    for target, items in sorted(targets.items()):
        opened = sum(e["status"] == "open" for e in items)
        stderr().print(f"{target}: {len(items)} draft(s), {opened} open, "
                     f"{len(items) - opened} resolved", highlight=False)
    for problem in outcome.problems:
        what = "no longer reproduces" if "resolved" in problem else "problem"
        stderr().print(styled("red", f"{what}:"), problem, soft_wrap=True)
    stderr().print(f"wrote {len(outcome.written)} file(s) in {out_dir}", highlight=False)
    sys.exit(1 if outcome.problems and verify else 0)
