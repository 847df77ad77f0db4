"""``pi-conformance smoke``: the wiring check (conformance.judging.smoke), for people."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from conformance.cli.support import friendly_errors
from conformance.corpus.cases import Corpus
from conformance.judging.smoke import smoke


@click.command("smoke")
@click.option("--impl", "impl_spec", required=True, metavar="IMPL",
              help="reference, process:CMD, oneshot:CMD, python:MODULE:ATTR or a .toml file.")
@click.option("-k", "--case", "cases", multiple=True, metavar="GLOB",
              help="Choose the cases to try among these (default: the smallest it claims).")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds the implementation may take for one case.")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path, file_okay=False),
              help="A corpus directory (default: the one shipped with pi-conformance).")
def smoke_command(impl_spec: str, cases: tuple[str, ...], timeout: float,
                  corpus_path: Path | None) -> None:
    """Check that an adapter is wired correctly: hello, one or two tiny cases, bye."""
    with friendly_errors():
        checks = smoke(impl_spec, Corpus(corpus_path), cases, timeout)
    for check in checks:
        click.echo(check.line())
    failed = [c for c in checks if not c.ok]
    click.echo(f"smoke {'FAILED' if failed else 'passed'}: {len(checks) - len(failed)} of "
               f"{len(checks)} checks passed")
    sys.exit(1 if failed else 0)
