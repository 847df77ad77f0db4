"""Commands that work on finished reports: ``render``, ``diff`` and ``baseline --write``.

Also the ``run`` options that render a run's report to several files at once
(``--junit``, ``--html``, ``--markdown``), so CI needs one run for every artifact.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from conformance import jsonio
from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, console, echo, verdict_exit_code
from conformance.errors import ConformanceError
from conformance.files import replace_text
from conformance.reporting.formats import FORMATS

if TYPE_CHECKING:
    from conformance.reporting.model import Report


def write_text(path: Path, text: str) -> None:
    try:
        replace_text(path, text)
    except OSError as exc:
        raise ConformanceError(f"cannot write: {exc.strerror}", path=path) from None


def output_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--junit/--html/--markdown FILE`` for ``run``, gathered into one ``outputs`` dict."""
    formats = (("junit", "JUnit XML"), ("html", "a self-contained HTML report"),
               ("markdown", "Markdown (e.g. $GITHUB_STEP_SUMMARY)"))

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["outputs"] = {name: kwargs.pop(f"{name}_path") for name, _ in formats
                             if kwargs.get(f"{name}_path") is not None}
        for name, _ in formats:
            kwargs.pop(f"{name}_path", None)
        return fn(*args, **kwargs)

    for name, what in reversed(formats):
        wrapper = click.option(f"--{name}", f"{name}_path", metavar="FILE",
                               type=click.Path(path_type=Path, dir_okay=False),
                               help=f"Also write {what} here.")(wrapper)
    return wrapper


def write_outputs(report: Report, outputs: dict[str, Path]) -> None:
    """Render ``report`` once per requested format; errors are ConformanceErrors."""
    from conformance.reporting.renderers import renderer

    for output_format, path in outputs.items():
        write_text(path, renderer(output_format)(report))


def render_stdout(report: Report, output_format: str,
                  about: Mapping[str, str] | None = None) -> None:
    """What ``run`` and ``render`` print on stdout; the terminal format keeps its colours
    (and, with ``about``, each failing case's title and directory)."""
    if output_format == "terminal":
        from conformance.reporting.render import terminal

        terminal(report, console(), about)
    else:
        from conformance.reporting.renderers import renderer

        click.echo(renderer(output_format)(report), nl=False)


def say_interrupted(report: Report, path: Path) -> None:
    if report.interrupted:
        echo(f"{path}: the run was interrupted; the report holds only the results it "
             "reached", err=True)


@click.command()
@click.argument("report_path", metavar="REPORT.jsonl", type=options.REPORT_FILE)
@click.option("--format", "output_format", default="terminal", show_default=True,
              type=click.Choice(FORMATS),
              help="terminal text, Markdown, JUnit XML, HTML, or the JSON summary.")
@options.OUTPUT
def render(report_path: Path, output_format: str, output: Path | None) -> None:
    """Render a run's report: text, Markdown, JUnit, HTML or JSON.

    Exit 1 if that run failed or was interrupted.
    """
    from conformance.reporting.renderers import renderer
    from conformance.reporting.stream import read_report

    report = read_report(report_path)
    if output is not None:
        write_text(output, renderer(output_format)(report))
        echo(f"wrote the {output_format} rendering of {report_path} "
             f"({len(report.results)} results, {report.verdict}) to {output}", err=True)
    else:
        render_stdout(report, output_format)
    say_interrupted(report, report_path)
    sys.exit(verdict_exit_code(report))


@click.command("diff")
@click.argument("before", metavar="A.jsonl", type=options.REPORT_FILE)
@click.argument("after", metavar="B.jsonl", type=options.REPORT_FILE)
@click.option("--format", "output_format", default="text", show_default=True,
              type=click.Choice(["text", "json"]), help="For people, or schemas/diff.schema.json.")
def diff(before: Path, after: Path, output_format: str) -> None:
    """What changed from run A to run B; exit 1 on new failures."""

    from conformance.reporting import rundiff as diffs
    from conformance.reporting.stream import read_report

    a, b = read_report(before), read_report(after)
    say_interrupted(a, before)
    say_interrupted(b, after)
    result = diffs.compare(a, b)
    if output_format == "json":
        click.echo(jsonio.dumps_text(result, indent=2))
    else:
        click.echo(diffs.text(result), nl=False)
    sys.exit(EXIT_FAILED if result["new_failures"] else 0)


@click.command()
@click.option("--write", "report_path", required=True, metavar="REPORT.jsonl",
              type=options.REPORT_FILE, help="Write a baseline listing this report's failures.")
@options.OUTPUT
@click.option("--keep", "previous", type=click.Path(path_type=Path, dir_okay=False),
              help="An older baseline whose reasons and issue links are kept.")
def baseline(report_path: Path, output: Path | None, previous: Path | None) -> None:
    """Write a known-failures file from a report's failures.

    The file is what run --baseline (and pytest --pi-baseline) reads.
    """
    from conformance.judging import baseline as baselines
    from conformance.reporting.stream import read_report

    report = read_report(report_path)
    say_interrupted(report, report_path)
    old = baselines.Baseline.load(previous) if previous is not None else None
    text = baselines.render(report.sorted_results(), old)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_text(output, text)
        count = sum(1 for r in report.results if r.failing)
        echo(f"wrote {count} known failure(s) to {output}", err=True)


COMMANDS = (render, diff, baseline)
