"""``pi-conformance smoke``: the wiring check (conformance.execution.smoke), for people."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, echo, load_corpus


@click.command("smoke")
@options.IMPLEMENTATION
@options.CASES
@options.TIMEOUT
@options.CORPUS
def smoke(impl_spec: str, cases: tuple[str, ...], timeout: float,
          corpus_path: Path | None) -> None:
    """Check an adapter's wiring: hello, one or two tiny cases, bye.

    The cases tried are the smallest the implementation claims, among those -k selects.
    """
    from conformance.execution.smoke import smoke as checks_of

    checks = checks_of(impl_spec, load_corpus(corpus_path), cases, timeout)
    for check in checks:
        echo(check.line())
    failed = [c for c in checks if not c.ok]
    echo(f"smoke {'FAILED' if failed else 'passed'}: {len(checks) - len(failed)} of "
         f"{len(checks)} checks passed")
    sys.exit(EXIT_FAILED if failed else 0)
