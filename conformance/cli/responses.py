"""``pi-conformance corpus responses``: write the response corpus (or check it is current)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, load_corpus, stderr


@click.command()
@click.option("--check", is_flag=True,
              help="Write nothing; fail if a response case's input would change.")
@options.CORPUS
def responses(check: bool, corpus_path: Path | None) -> None:
    """Write cases/response: every content kind x ending x usage shape, HTTP errors and the
    captured turns, as each API's wire sends them.

    Then write their goldens: pi-conformance corpus regenerate 'response.*'.
    """
    from conformance.maintenance.responses.construct import write

    corpus = load_corpus(corpus_path)
    changes = write(corpus.root, corpus.models, check=check)
    say = stderr()
    for path in (*changes.written, *changes.removed)[:20] if check else ():
        say.print(f"  would change: cases/response/{path}", highlight=False)
    if check:
        if changes:
            say.print(f"responses check failed: {len(changes.written)} file(s) to write, "
                      f"{len(changes.removed)} to remove; run: pi-conformance corpus "
                      "responses", highlight=False)
            sys.exit(EXIT_FAILED)
        say.print("responses check passed: cases/response is what the encoders write",
                  highlight=False)
        return
    say.print(f"wrote {len(changes.written)} file(s), removed {len(changes.removed)}; now run: "
              "pi-conformance corpus regenerate 'response.*'", highlight=False)
