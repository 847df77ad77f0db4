"""``pi-conformance corpus ...``: the commands for people who maintain the corpus.

Users score implementations (``run``, ``smoke``, ``fuzz``, the report commands); maintainers
write goldens from the real Pi, check them, record captures, promote fuzzer finds and keep the
clause coverage and the discrepancy drafts up to date. Those live in this group.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from conformance.cli import options
from conformance.cli.bump import bump
from conformance.cli.capture import capture
from conformance.cli.coverage import coverage
from conformance.cli.discrepancies import discrepancies
from conformance.cli.fuzz import promote
from conformance.cli.history import history
from conformance.cli.responses import responses
from conformance.cli.support import EXIT_FAILED, load_corpus, stderr, styled
from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from conformance.corpus.cases import Case


@click.group()
def corpus() -> None:
    """Goldens, captures, fuzzer finds, coverage, discrepancies."""


def _progress_printer(total: int) -> Any:
    count = 0

    def progress(case: Any) -> None:
        nonlocal count
        count += 1
        stderr().print(f"[{count}/{total}] {case.id}", highlight=False)

    return progress


@corpus.command()
@click.argument("filters", nargs=-1, metavar="[GLOB]...")
@options.CORPUS
def regenerate(filters: tuple[str, ...], corpus_path: Path | None) -> None:
    """Write goldens from the reference for cases matching GLOB.

    Without GLOB: every case, and models.json from Pi's catalog.
    """
    from conformance.maintenance.regenerate import refresh_models
    from conformance.maintenance.regenerate import regenerate as write_goldens

    corpus = load_corpus(corpus_path)
    if not filters and refresh_models(corpus):
        stderr().print("models.json updated from Pi's catalog")
    cases = corpus.select(filters)
    if not cases:
        raise ConformanceError(f"no case matches {' '.join(filters)}")
    written = write_goldens(corpus, cases, _progress_printer(len(cases)))
    stderr().print(f"wrote {written} golden file(s) for {len(cases)} case(s)")


def generated_staleness(case: Case) -> list[str]:
    """Why a ``[generate]`` case's session or goldens do not match a fresh build: the cached
    session differs, or a golden records another session's sha256 (written from a damaged or
    older build). Checked with --lint-only too: no reference is needed."""
    from conformance.corpus.goldens import read_golden

    assert case.generated is not None
    reason = case.generated.verify()
    if reason:
        return [reason]
    fresh = case.generated.sha256()
    found = []
    for stage in case.stages:
        if not case.expected_path(stage).is_file():
            continue  # the lint says so
        recorded = read_golden(case, stage).provenance.get("session", {}).get("sha256")
        if recorded != fresh:
            found.append(f"the {stage} golden was written from a session with sha256 "
                         f"{recorded} (a fresh build: {fresh}); run: pi-conformance corpus "
                         f"regenerate {case.id}")
    return found


@corpus.command()
@click.option("--lint-only", is_flag=True, help="Skip the freshness check against the reference.")
@click.option("--skip-captures", is_flag=True,
              help="Do not re-record the capture scenarios (the slowest part of the check).")
@click.argument("filters", nargs=-1, metavar="[GLOB]...")
@options.CORPUS
def check(lint_only: bool, skip_captures: bool, filters: tuple[str, ...],
          corpus_path: Path | None) -> None:
    """Lint the corpus; check every golden against the reference.

    Sessions of [generate] cases are built again from their seed and compared with the
    cached ones, --lint-only included.

    A golden is stale when the reference writes something else today; captures are
    re-recorded and compared too unless --skip-captures.
    """
    from conformance import jsonio
    from conformance.cli.capture import stale_captures
    from conformance.maintenance.regenerate import freshness, reference_models

    say = stderr()
    corpus = load_corpus(corpus_path)
    problems = corpus.lint()
    for problem in problems:
        say.print(styled("red", "lint:"), problem.describe(), soft_wrap=True)
    stale: list[object] = []
    for case in corpus.select(filters) if not problems else []:
        if case.generated is not None:
            for reason in generated_staleness(case):
                stale.append(case.id)
                say.print(styled("red", "stale:"), f"{case.id}: {reason}", soft_wrap=True)
    if not problems and not lint_only:
        fresh_models = reference_models()
        if jsonio.read_json(corpus.root / "models.json") != fresh_models:
            stale.append("models.json")
            say.print(styled("red", "stale:"), "models.json differs from Pi's catalog")
        cases = corpus.select(filters)
        for item in freshness(corpus, cases):
            stale.append(item)
            say.print(styled("red", "stale:"), f"{item.case} {item.stage}: {item.reason}",
                      soft_wrap=True)
            for diff in item.differences[:5]:
                say.print(f"    {diff.path}: golden {diff.expected!r:.80} "
                          f"reference {diff.actual!r:.80}", soft_wrap=True)
        if not skip_captures and not filters:
            for stale_file in stale_captures(corpus):
                stale.append(stale_file)
                say.print(styled("red", "stale capture:"), stale_file, soft_wrap=True)
    cases_total = len(corpus.case_directories())
    if problems or stale:
        say.print(f"check failed: {len(problems)} lint problem(s), {len(stale)} stale "
                  f"golden(s) in {cases_total} case(s)")
        sys.exit(EXIT_FAILED)
    what = "lint" if lint_only else "lint and freshness against the reference"
    say.print(f"check passed: {cases_total} case(s), {what}")


@corpus.command("block-matrix")
@click.option("--overwrite", is_flag=True,
              help="Rewrite matrix cases that exist (curated edits to them are lost).")
@options.CORPUS
def block_matrix(overwrite: bool, corpus_path: Path | None) -> None:
    """Write the generated cases of the content-block x provider matrix.

    Then write their goldens: pi-conformance corpus regenerate 'matrix.*'.
    """
    from conformance.maintenance.block_matrix import write_matrix

    written = write_matrix(load_corpus(corpus_path), overwrite)
    stderr().print(f"wrote {len(written)} matrix case(s); now run: "
                   "pi-conformance corpus regenerate 'matrix.*'", highlight=False)


for _command in (capture, promote, coverage, discrepancies, history, bump, responses):
    corpus.add_command(_command)

#: The corpus commands that had a top-level name before the group (kept as hidden aliases),
#: in the order ``pi-conformance corpus --help`` lists them.
COMMANDS = (regenerate, check, capture, promote, coverage, discrepancies)
