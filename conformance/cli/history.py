"""``pi-conformance corpus history``: Pi's behaviour across releases, in words."""

from __future__ import annotations

from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import load_corpus, stderr, styled
from conformance.errors import ConformanceError


@click.command()
@click.option("--impl", "impls", multiple=True, metavar="pi@X.Y.Z",
              help="A release to compare (repeatable; newest first is not needed). Default: "
                   "every release on the npm registry that reads version-3 sessions: all of "
                   "@earendil-works/pi-coding-agent, and @mariozechner/pi-coding-agent from "
                   "0.37.2 (each installed on first use: an hour or more).")
@click.option("--from-drift", "drift_path", type=click.Path(path_type=Path, dir_okay=False,
                                                            exists=True),
              help="Write the history from this drift.json (a matrix run's) instead.")
@click.option("--out", "out_dir", default=Path("reports/history"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False), help="Where to write it.")
@options.TIMEOUT
@options.CORPUS
def history(impls: tuple[str, ...], drift_path: Path | None, out_dir: Path, timeout: float,
            corpus_path: Path | None) -> None:
    """Run Pi's releases on the corpus; write each behaviour of the newest with the release
    it first appeared in (history.md, history.json), and the matrix and drift they come from.
    """
    from conformance import jsonio
    from conformance.reporting.history import history_data, write_history

    written: list[Path] = []
    if drift_path is not None:
        drift = jsonio.read_json(drift_path)
    else:
        drift, written = _run_releases(impls, out_dir, timeout, corpus_path)
    written += write_history(history_data(drift), out_dir)
    for path in written:
        stderr().print(f"wrote {path}")


def _run_releases(impls: tuple[str, ...], out_dir: Path, timeout: float,
                  corpus_path: Path | None) -> tuple[dict[str, object], list[Path]]:
    from conformance.execution.matrix import run_matrix, select_entries
    from conformance.execution.plan import Limits, RunPlan
    from conformance.implementations.known.releases import registry_releases
    from conformance.reporting.closest_release import closest_releases
    from conformance.reporting.drift import drift_data, without_lines, write_drift
    from conformance.reporting.matrix import PI_RELEASES, matrix_data, write_matrix

    specs = list(impls) or ["reference", *registry_releases("pi"),
                            *registry_releases("pi-mariozechner")]
    entries = select_entries(specs)
    if sum(1 for e in entries if e.name in PI_RELEASES) < 2:
        raise ConformanceError("a history needs at least two releases of Pi (--impl pi@X.Y.Z)")
    corpus = load_corpus(corpus_path)
    columns = run_matrix(corpus, entries, out_dir, RunPlan("", limits=Limits(timeout=timeout)),
                         on_start=lambda e: stderr().print(styled("bold", f"{e.spec}:"),
                                                           e.summary))
    written = write_matrix(matrix_data(corpus, columns, list(corpus.cases),
                                       closest=closest_releases(corpus, columns)), out_dir)
    drift = drift_data(corpus, columns)
    written += write_drift(drift, out_dir)
    return without_lines(drift), written
