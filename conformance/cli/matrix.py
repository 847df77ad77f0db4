"""CLI: ``pi-conformance matrix`` and ``pi-conformance adapters list|install``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import console, load_corpus, stderr, styled
from conformance.errors import ConformanceError


@click.command()
@click.option("--impl", "impls", multiple=True, metavar="NAME@VERSION",
              help="Only these known implementations (repeatable; default: all of them).")
@click.option("--out", "out_dir", default=Path("reports"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where to write the reports.")
@options.CASES
@options.TIMEOUT
@options.CORPUS
def matrix(impls: tuple[str, ...], out_dir: Path, cases: tuple[str, ...],
           timeout: float, corpus_path: Path | None) -> None:
    """Score every known implementation; write the matrix and drift.

    Also writes each implementation's own report, in --out.
    """
    from conformance.execution.matrix import run_matrix, select_entries
    from conformance.execution.plan import Limits, RunPlan
    from conformance.reporting.closest_release import closest_releases
    from conformance.reporting.drift import drift_data, write_drift
    from conformance.reporting.matrix import PI_RELEASES, matrix_data, write_matrix

    corpus = load_corpus(corpus_path)
    entries = select_entries(impls)
    selected = corpus.select(cases)
    if not selected:
        raise ConformanceError("no case matches " + " ".join(cases))
    plan = RunPlan("", limits=Limits(timeout=timeout))
    columns = run_matrix(corpus, entries, out_dir, plan, cases=selected,
                         on_start=lambda e: stderr().print(
                             styled("bold", f"{e.spec}:"), e.summary))
    data = matrix_data(corpus, columns, selected, closest=closest_releases(corpus, columns))
    written = write_matrix(data, out_dir)
    if sum(1 for c in columns if c.answers and c.name in PI_RELEASES) >= 2:
        written += write_drift(drift_data(corpus, columns), out_dir)
    for item in data["implementations"]:
        if "unavailable" in item:
            stderr().print(f"  {item['key']}:", styled("red", "unavailable"),
                           item["unavailable"])
        else:
            c = item["counts"]
            stderr().print(f"  {item['key']}: {c['pass']} pass, {c['fail']} fail, {c['error']} "
                         f"error, {c['skip']} skip, {c['info']} info")
    for path in written:
        stderr().print(f"wrote {path}")
    if any("unavailable" in item for item in data["implementations"]):
        sys.exit(2)


@click.group()
def adapters() -> None:
    """List or install the known implementations."""


@adapters.command("list")
def adapters_list() -> None:
    """List the known implementations, what they claim and whether they are installed."""
    from rich.table import Table

    from conformance.implementations.known import KNOWN

    table = Table()
    table.add_column("--impl", no_wrap=True)
    for column in ("language", "installed", "claims", "what"):
        table.add_column(column)
    for entry in KNOWN:
        table.add_row(entry.spec, entry.language, "yes" if entry.is_installed() else "no",
                      entry.claims, entry.summary)
    console().print(table)


@adapters.command("install")
@click.argument("specs", nargs=-1, metavar="[NAME@VERSION]...")
@click.option("--force", is_flag=True, help="Reinstall even if installed.")
def adapters_install(specs: tuple[str, ...], force: bool) -> None:
    """Install known implementations now (default: all), instead of on first use."""
    from conformance.execution.matrix import select_entries

    for entry in select_entries(specs):
        done = entry.install(force=force)
        how = f"installed in {done.seconds:.1f}s" if done.seconds else "already installed"
        stderr().print(f"{entry.spec}: {how} ({done.prefix})")

