"""``pi-conformance corpus bump --to X``: review what moving the pin to X changes; move it."""

from __future__ import annotations

from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import load_corpus, stderr
from conformance.errors import ConformanceError


@click.command()
@click.option("--to", "target", required=True, metavar="X.Y.Z",
              help="The release of @earendil-works/pi-coding-agent to pin.")
@options.CASES
@click.option("--out", "out_dir", default=Path("reports"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False),
              help="Where to write bump-pi@X.md and .json, the behaviour changelog.")
@click.option("--apply", is_flag=True,
              help="Then move the pin (package.json and package-lock.json of the reference), "
                   "install it and regenerate every golden; corpus check holds after.")
@options.TIMEOUT
@options.CORPUS
def bump(target: str, cases: tuple[str, ...], out_dir: Path,
         apply: bool, timeout: float, corpus_path: Path | None) -> None:
    """Run release X on the corpus, judged against the goldens of the pinned release, and
    write what changes (by root cause, with before and after) for review; with --apply,
    move the pin to X and regenerate the corpus."""
    from conformance.corpus.selection import Selection
    from conformance.execution.executor import execute
    from conformance.execution.plan import Limits, RunPlan
    from conformance.implementations import known
    from conformance.maintenance.bump import changelog, write_changelog

    spec = known.release_spec(target)
    pinned = known.KNOWN[0].spec
    if not spec.startswith("pi@"):
        raise ConformanceError(f"--to {target}: the pin is a release of "
                               "@earendil-works/pi-coding-agent (X.Y.Z)")
    if spec == pinned:
        raise ConformanceError(f"--to {target}: {pinned} is the pinned release already")
    known.lookup(spec)  # a release too old for the corpus is refused here, saying why
    corpus = load_corpus(corpus_path)
    stderr().print(f"running {spec} on the corpus, judged against {pinned}'s goldens")
    outcome = execute(RunPlan(spec, Selection(cases), Limits(timeout=timeout)), corpus)
    data = changelog(outcome.report, pinned, spec)
    for path in write_changelog(data, out_dir):
        stderr().print(f"wrote {path}")
    stderr().print(f"{data['changed']} of {data['judged']} results change, in "
                   f"{len(data['causes'])} change(s) by root cause")
    if apply:
        _apply(spec.partition("@")[2], corpus_path)


def _apply(version: str, corpus_path: Path | None) -> None:
    """Move the pin, install it, and regenerate every golden (as corpus regenerate does)."""
    from conformance.implementations import reference
    from conformance.maintenance.bump import write_pin
    from conformance.maintenance.regenerate import refresh_models, regenerate

    write_pin(version, reference.MANIFEST, reference.LOCKFILE)
    stderr().print(f"pinned {version}: {reference.MANIFEST}, {reference.LOCKFILE}")
    reference.install()
    corpus = load_corpus(corpus_path)
    if refresh_models(corpus):
        stderr().print("models.json updated from Pi's catalog")
    written = regenerate(corpus, list(corpus.cases))
    stderr().print(f"wrote {written} golden file(s); now: pi-conformance corpus check, read "
                   "the diff of the goldens, and record what changed in CHANGELOG.md")
