"""CLI: ``pi-conformance matrix`` and ``pi-conformance adapters list|install``."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from conformance.errors import ConformanceError

stderr = Console(stderr=True, highlight=False)


@click.command()
@click.option("--impl", "impls", multiple=True, metavar="NAME@VERSION",
              help="Only these known implementations (repeatable; default: all of them).")
@click.option("--out", "out_dir", default=Path("reports"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where to write the reports.")
@click.option("-k", "--case", "case_filters", multiple=True, metavar="GLOB",
              help="Only cases whose id matches (repeatable; default: the whole corpus).")
@click.option("--timeout", default=60.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds an implementation may take for one case.")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path, file_okay=False),
              help="A corpus directory (default: the one shipped with pi-conformance).")
def matrix(impls: tuple[str, ...], out_dir: Path, case_filters: tuple[str, ...],
           timeout: float, corpus_path: Path | None) -> None:
    """Run every known implementation; write per-implementation reports, the matrix and drift."""
    from conformance.cli.support import friendly_errors, load_corpus
    from conformance.judging.runner import RunSettings
    from conformance.reporting.drift import drift_data, write_drift
    from conformance.reporting.matrix import matrix_data, run_matrix, select_entries, write_matrix

    with friendly_errors():
        corpus = load_corpus(corpus_path)
        entries = select_entries(impls)
        cases = corpus.select(case_filters)
        if not cases:
            raise ConformanceError("no case matches " + " ".join(case_filters))
        columns = run_matrix(corpus, entries, out_dir, cases=cases,
                             settings=RunSettings(timeout=timeout),
                             on_start=lambda e: stderr.print(f"[bold]{e.spec}[/]: {e.summary}"))
        data = matrix_data(corpus, columns, cases)
        written = write_matrix(data, out_dir)
        if sum(1 for c in columns if c.answers) >= 2:
            written += write_drift(drift_data(corpus, columns), out_dir)
    for item in data["implementations"]:
        if "unavailable" in item:
            stderr.print(f"  {item['key']}: [red]unavailable[/] {item['unavailable']}")
        else:
            c = item["counts"]
            stderr.print(f"  {item['key']}: {c['pass']} pass, {c['fail']} fail, {c['error']} "
                         f"error, {c['skip']} skip, {c['info']} info")
    for path in written:
        stderr.print(f"wrote {path}")
    if any("unavailable" in item for item in data["implementations"]):
        sys.exit(2)


@click.group()
def adapters() -> None:
    """The known implementations and their on-demand installs."""


@adapters.command("list")
def adapters_list() -> None:
    """List the known implementations, what they claim and whether they are installed."""
    from conformance.implementations.known import KNOWN

    table = Table()
    table.add_column("--impl", no_wrap=True)
    for column in ("language", "installed", "claims", "what"):
        table.add_column(column)
    for entry in KNOWN:
        table.add_row(entry.spec, entry.language, "yes" if entry.is_installed() else "no",
                      entry.claims, entry.summary)
    Console().print(table)


@adapters.command("install")
@click.argument("specs", nargs=-1, metavar="[NAME@VERSION]...")
@click.option("--force", is_flag=True, help="Reinstall even if installed.")
def adapters_install(specs: tuple[str, ...], force: bool) -> None:
    """Install known implementations now (default: all), instead of on first use."""
    from conformance.cli.support import friendly_errors
    from conformance.reporting.matrix import select_entries

    with friendly_errors():
        for entry in select_entries(specs):
            done = entry.install(force=force)
            how = f"installed in {done.seconds:.1f}s" if done.seconds else "already installed"
            stderr.print(f"{entry.spec}: {how} ({done.prefix})")


__all__ = ["ConformanceError", "adapters", "matrix"]
