"""The ``pi-conformance`` command line.

Exit codes: 0 success; 1 the run or check found failures, errors or stale goldens; 2 the
command could not do its job (bad input, missing reference, bad implementation spec).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from conformance import __version__, jsonio
from conformance.cli.capture import capture
from conformance.cli.coverage import coverage
from conformance.cli.discrepancies import discrepancies
from conformance.cli.fuzz import fuzz_command, promote_command
from conformance.cli.matrix import adapters, matrix
from conformance.cli.reports import COMMANDS as REPORT_COMMANDS
from conformance.cli.reports import output_options, write_outputs
from conformance.cli.smoke import smoke_command
from conformance.cli.support import (
    EXIT_FAILED,
    corpus_option,
    friendly_errors,
    load_corpus,
    stderr,
)
from conformance.corpus.stages import ALL_STAGES, APIS
from conformance.errors import ConformanceError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pi-conformance")
def main() -> None:
    """Score implementations of Pi's session and message formats against the real Pi."""


@main.command()
@click.option("--impl", "impl_spec", required=True, metavar="IMPL",
              help="reference, a known NAME@VERSION (pi-conformance adapters list), "
                   "process:CMD, oneshot:CMD, python:MODULE:ATTR or a .toml file.")
@click.option("-k", "--case", "cases", multiple=True, metavar="GLOB",
              help="Only cases whose id matches (repeatable).")
@click.option("--feature", "features", multiple=True, help="Only cases with this feature.")
@click.option("--stage", "stages", multiple=True, type=click.Choice(ALL_STAGES),
              help="Only this stage (repeatable).")
@click.option("--api", "apis", multiple=True, type=click.Choice(APIS),
              help="Only the request stage of this API (repeatable; adds to --stage).")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Parallel workers, each with its own implementation process.")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds an implementation may take for one case.")
@click.option("--max-restarts", default=10, show_default=True, type=click.IntRange(0),
              help="Restarts after crashes or hangs before the rest of the run is abandoned.")
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Known failures: listed failures do not fail the run, stale entries do.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the canonical JSON-lines report here.")
@click.option("--format", "output_format", default="terminal", show_default=True,
              type=click.Choice(["terminal", "json", "markdown"]),
              help="What to print on stdout at the end.")
@click.option("--validate-protocol", is_flag=True,
              help="Check every answer against the protocol's JSON Schemas.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@output_options
@corpus_option
def run(impl_spec: str, cases: tuple[str, ...], features: tuple[str, ...],
        stages: tuple[str, ...], apis: tuple[str, ...], jobs: int, timeout: float,
        max_restarts: int, baseline: Path | None, report_path: Path | None,
        output_format: str, validate_protocol: bool, quiet: bool,
        corpus_path: Path | None, outputs: dict[str, Path]) -> None:
    """Score an implementation against the corpus."""
    from conformance.reporting.run import RunRequest, execute

    with friendly_errors():
        outcome = execute(RunRequest(
            corpus=load_corpus(corpus_path), impl_spec=impl_spec, cases=cases,
            features=features, stages=stages, apis=apis, jobs=jobs, timeout=timeout,
            max_restarts=max_restarts, baseline=baseline, report_path=report_path,
            validate_protocol=validate_protocol, progress=not quiet and output_format == "terminal",
        ))
        write_outputs(outcome.report, outputs)
    from conformance.reporting.render import render_stdout

    render_stdout(outcome, output_format)
    sys.exit(EXIT_FAILED if outcome.failed else 0)


@main.group()
def reference() -> None:
    """The pinned, real Pi used as the reference."""


@reference.command("install")
@click.option("--force", is_flag=True, help="Reinstall even if it is already installed.")
def reference_install(force: bool) -> None:
    """Install Node 22 and the pinned Pi from the npm registry (npm ci of our lockfile)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from conformance.implementations import reference as ref

    with friendly_errors():
        installation = ref.default_installation()
        if installation.is_complete() and not force:
            stderr.print(f"already installed in {installation.prefix}")
        else:
            columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
            with Progress(*columns, console=stderr, transient=True) as progress:
                task = progress.add_task("npm ci (pinned Pi and Node 22)")
                fetched = 0

                def on_line(line: str) -> None:
                    nonlocal fetched
                    if "fetch" in line or "GET" in line:
                        fetched += 1
                    progress.update(task, description=f"npm ci: {fetched} fetches; {line[-70:]}")
                    if not sys.stderr.isatty():
                        stderr.print(line)

                installation = ref.install(force=force, on_line=on_line)
        versions = installation.versions()
        versions["node"] = installation.node_version()
        for name, version in versions.items():
            stderr.print(f"  {name} {version}")
        stderr.print(f"reference ready in {installation.prefix}")


@reference.command("status")
def reference_status() -> None:
    """Say whether the reference is installed, and where."""
    from conformance.implementations import reference as ref

    installation = ref.default_installation()
    if not installation.is_complete():
        stderr.print(f"not installed (expected in {installation.prefix}); run: {ref.INSTALL_HINT}")
        sys.exit(EXIT_FAILED)
    click.echo(jsonio.dumps_pretty({
        "prefix": str(installation.prefix), "lock_sha256": ref.lock_sha256(),
        "versions": {**installation.versions(), "node": installation.node_version()},
    }), nl=False)


def _progress_printer(total: int) -> Any:
    count = 0

    def progress(case: Any) -> None:
        nonlocal count
        count += 1
        stderr.print(f"[{count}/{total}] {case.id}", highlight=False)

    return progress


@main.command()
@click.argument("filters", nargs=-1, metavar="[GLOB]...")
@corpus_option
def regenerate(filters: tuple[str, ...], corpus_path: Path | None) -> None:
    """Write goldens from the reference for the cases matching GLOB (default: all)."""
    from conformance.maintenance.regenerate import refresh_models
    from conformance.maintenance.regenerate import regenerate as write_goldens

    with friendly_errors():
        corpus = load_corpus(corpus_path)
        if not filters and refresh_models(corpus):
            stderr.print("models.json updated from Pi's catalog")
        cases = corpus.select(filters)
        if not cases:
            raise ConformanceError(f"no case matches {' '.join(filters)}")
        written = write_goldens(corpus, cases, _progress_printer(len(cases)))
        stderr.print(f"wrote {written} golden file(s) for {len(cases)} case(s)")


@main.command()
@click.option("--lint-only", is_flag=True, help="Skip the freshness check against the reference.")
@click.option("--skip-captures", is_flag=True,
              help="Do not re-record the capture scenarios (the slowest part of the check).")
@click.argument("filters", nargs=-1, metavar="[GLOB]...")
@corpus_option
def check(lint_only: bool, skip_captures: bool, filters: tuple[str, ...],
          corpus_path: Path | None) -> None:
    """Lint the corpus and verify every golden is what the reference writes today."""
    from conformance.maintenance.regenerate import freshness, reference_models

    with friendly_errors():
        corpus = load_corpus(corpus_path)
        problems = corpus.lint()
        for problem in problems:
            stderr.print(f"[red]lint:[/] {problem.describe()}", soft_wrap=True)
        stale: list[object] = []
        if not problems and not lint_only:
            fresh_models = reference_models()
            if jsonio.read_json(corpus.root / "models.json") != fresh_models:
                stale.append("models.json")
                stderr.print("[red]stale:[/] models.json differs from Pi's catalog")
            cases = corpus.select(filters)
            for item in freshness(corpus, cases):
                stale.append(item)
                stderr.print(f"[red]stale:[/] {item.case} {item.stage}: {item.reason}",
                             soft_wrap=True)
                for diff in item.differences[:5]:
                    stderr.print(f"    {diff.path}: golden {diff.expected!r:.80} "
                                 f"reference {diff.actual!r:.80}", soft_wrap=True)
            if not skip_captures and not filters:
                from conformance.cli.capture import stale_captures

                for stale_file in stale_captures(corpus):
                    stale.append(stale_file)
                    stderr.print(f"[red]stale capture:[/] {stale_file}", soft_wrap=True)
        cases_total = len(corpus.case_directories())
        if problems or stale:
            stderr.print(f"check failed: {len(problems)} lint problem(s), {len(stale)} stale "
                         f"golden(s) in {cases_total} case(s)")
            sys.exit(EXIT_FAILED)
        what = "lint" if lint_only else "lint and freshness against the reference"
        stderr.print(f"check passed: {cases_total} case(s), {what}")


for _command in (coverage, smoke_command, *REPORT_COMMANDS, fuzz_command, promote_command,
                 capture, matrix, adapters, discrepancies):
    main.add_command(_command)


if __name__ == "__main__":
    main()
