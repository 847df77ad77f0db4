"""People-facing renderings of a report: the terminal summary, Markdown, and the JSON summary.

Failures are shown with the JSON paths that differ and the two values, the way a reviewer
reads them; the full structured differences stay in the JSON-lines report.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance import report as reports
from conformance.baseline import counts_as_failure

MAX_SHOWN_DIFFERENCES = 8
MAX_VALUE = 160


def short(value: Any) -> str:
    text = value if isinstance(value, str) and value.startswith("<") else json.dumps(
        value, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def failure_lines(result: dict[str, Any]) -> list[str]:
    """A failing result as plain text lines: what, where, and the values."""
    lines = [f"{result['case']} [{result['stage']}] {result['status']}: {result.get('message', '')}"]
    diffs = result.get("differences", [])
    for diff in diffs[:MAX_SHOWN_DIFFERENCES]:
        lines.append(f"    {diff['path']} ({diff['kind']})")
        lines.append(f"      expected: {short(diff['expected'])}")
        lines.append(f"      actual:   {short(diff['actual'])}")
    if len(diffs) > MAX_SHOWN_DIFFERENCES:
        lines.append(f"    … and {len(diffs) - MAX_SHOWN_DIFFERENCES} more difference(s)")
    return lines


def stage_table(report: reports.Report) -> Table:
    summary = reports.summary(report)
    table = Table(title=f"{report.implementation.get('name')} "
                        f"{report.implementation.get('version')}")
    for column in ("stage", "passed", "failed", "errored", "skipped", "info"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, c in summary["stages"].items():
        table.add_row(stage, str(c["passed"]), str(c["failed"]), str(c["errored"]),
                      str(c["skipped"]), str(c["info"]))
    return table


def terminal(report: reports.Report, console: Console) -> None:
    failing = [r for r in report.sorted_results() if counts_as_failure(r)]
    for result in failing:
        for number, line in enumerate(failure_lines(result)):
            console.print(escape(line), style="bold red" if number == 0 else None,
                          soft_wrap=True)
    console.print(stage_table(report))
    s = reports.summary(report)
    verdict = "[bold red]FAILED[/]" if report.failed() else "[bold green]PASSED[/]"
    console.print(f"{verdict} {s['cases']} cases, {s['results']} results: {s['passed']} passed, "
                  f"{s['failed']} failed, {s['errored']} errored, {s['skipped']} skipped, "
                  f"{s['info']} info")


def markdown(report: reports.Report) -> str:
    s = reports.summary(report)
    impl = report.implementation
    out = [f"## pi-conformance: {impl.get('name')} {impl.get('version')}", "",
           f"**{'FAILED' if report.failed() else 'PASSED'}**: {s['cases']} cases, "
           f"{s['results']} results: {s['passed']} passed, {s['failed']} failed, "
           f"{s['errored']} errored, {s['skipped']} skipped, {s['info']} info", "",
           "| stage | passed | failed | errored | skipped | info |",
           "|---|---:|---:|---:|---:|---:|"]
    for stage, c in s["stages"].items():
        out.append(f"| `{stage}` | {c['passed']} | {c['failed']} | {c['errored']} | "
                   f"{c['skipped']} | {c['info']} |")
    failing = [r for r in report.sorted_results() if counts_as_failure(r)]
    if failing:
        out += ["", "<details><summary>Failures</summary>", "", "```"]
        for result in failing:
            out += failure_lines(result)
        out += ["```", "", "</details>"]
    return "\n".join(out) + "\n"


def render_stdout(outcome: Any, output_format: str) -> None:
    report = outcome.report
    if output_format == "json":
        summary = reports.summary(report)
        summary["stale_baseline"] = outcome.stale_baseline
        if outcome.failed:
            summary["verdict"] = "failed"
        click.echo(json.dumps(summary, indent=2))
    elif output_format == "markdown":
        click.echo(markdown(report), nl=False)
    else:
        console = Console(highlight=False)
        terminal(report, console)
        for entry in outcome.stale_baseline:
            console.print(f"[bold red]stale baseline entry:[/] {escape(entry)}")
