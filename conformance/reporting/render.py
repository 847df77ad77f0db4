"""People-facing renderings of a report: the terminal summary, Markdown, and the JSON summary.

Failures are shown with the JSON paths that differ and the two values, the way a reviewer
reads them; the full structured differences stay in the JSON-lines report. JUnit XML and
HTML live in render_junit.py and render_html.py; ``render`` picks one by name.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from conformance.judging.baseline import counts_as_failure
from conformance.reporting import stream as reports

MAX_SHOWN_DIFFERENCES = 8
MAX_VALUE = 160
MAX_MARKDOWN_FAILURES = 50  # GitHub caps a step summary at 1 MiB


def short(value: Any) -> str:
    text = value if isinstance(value, str) and value.startswith("<") else json.dumps(
        value, ensure_ascii=False)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def baseline_note(result: dict[str, Any]) -> str:
    baseline = result.get("baseline")
    if not baseline:
        return ""
    if baseline["state"] == "stale":
        return "stale baseline entry: it passes now, remove it from the baseline"
    issue = f" ({baseline['issue']})" if baseline.get("issue") else ""
    return f"known failure: {baseline['reason']}{issue}"


def failure_lines(result: dict[str, Any], limit: int | None = MAX_SHOWN_DIFFERENCES) -> list[str]:
    """A failing result as plain text lines: what, where, and the values."""
    kind = f" ({result['error_kind']})" if result.get("error_kind") else ""
    head = f"{result['case']} [{result['stage']}] {result['status']}{kind}"
    message = result.get("message", "")
    lines = [f"{head}: {message}" if message else head]
    note = baseline_note(result)
    if note:
        lines.append(f"    {note}")
    diffs = result.get("differences", [])
    shown = diffs if limit is None else diffs[:limit]
    for diff in shown:
        lines.append(f"    {diff['path']} ({diff['kind']})")
        lines.append(f"      expected: {short(diff['expected'])}")
        lines.append(f"      actual:   {short(diff['actual'])}")
    if len(diffs) > len(shown):
        lines.append(f"    … and {len(diffs) - len(shown)} more difference(s)")
    return lines


def stale_entry_line(entry: dict[str, Any]) -> str:
    return f"stale baseline entry: {entry['case']} {entry['stage']}: {entry['problem']}"


def counts_line(summary: dict[str, Any]) -> str:
    s = summary
    text = (f"{s['cases']} cases, {s['results']} results: {s['passed']} passed, "
            f"{s['failed']} failed, {s['errored']} errored, {s['skipped']} skipped, "
            f"{s['info']} info")
    if s["known"] or s["stale"] or s["stale_baseline"]:
        text += (f"; baseline: {s['known']} known, "
                 f"{s['stale'] + len(s['stale_baseline'])} stale")
    return text


def title(report: reports.Report) -> str:
    impl = report.implementation
    return f"{impl.get('name', '?')} {impl.get('version', '?')}"


def stage_table(report: reports.Report) -> Table:
    summary = reports.summary(report)
    table = Table(title=escape(title(report)))
    for column in ("stage", "passed", "failed", "errored", "skipped", "info"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, c in summary["stages"].items():
        table.add_row(escape(stage), str(c["passed"]), str(c["failed"]), str(c["errored"]),
                      str(c["skipped"]), str(c["info"]))
    return table


def terminal(report: reports.Report, console: Console) -> None:
    failing = [r for r in report.sorted_results() if counts_as_failure(r)]
    for result in failing:
        for number, line in enumerate(failure_lines(result)):
            console.print(escape(line), style="bold red" if number == 0 else None,
                          soft_wrap=True, highlight=False)
    for entry in report.stale_baseline:
        console.print(escape(stale_entry_line(entry)), style="bold red", soft_wrap=True,
                      highlight=False)
    console.print(stage_table(report))
    s = reports.summary(report)
    verdict = "[bold red]FAILED[/]" if report.failed() else "[bold green]PASSED[/]"
    console.print(f"{verdict} {escape(counts_line(s))}", highlight=False, soft_wrap=True)


def terminal_text(report: reports.Report, width: int = 100) -> str:
    """The terminal rendering as plain text, for ``render -o FILE`` and snapshots."""
    buffer = io.StringIO()
    terminal(report, Console(file=buffer, width=width, color_system=None, highlight=False,
                             emoji=False))
    return buffer.getvalue()


# Markdown. Everything that comes from a report is either inside a code fence longer than any
# backtick run it holds, or escaped, so session text cannot open HTML or break the layout.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>&~])")


def md_text(text: Any) -> str:
    """Inline text safe in Markdown: specials backslash-escaped, HTML characters as entities."""
    escaped = _MD_SPECIAL.sub(r"\\\1", str(text).replace("\n", " "))
    return escaped.replace("\\<", "&lt;").replace("\\>", "&gt;").replace("\\&", "&amp;")


def md_fence(lines: list[str], info: str = "text") -> list[str]:
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def markdown(report: reports.Report) -> str:
    s = reports.summary(report)
    runner, corpus = report.header.get("runner", {}), report.header.get("corpus", {})
    out = [f"## pi-conformance: {md_text(title(report))}", "",
           f"**{'FAILED' if report.failed() else 'PASSED'}**: {md_text(counts_line(s))}", "",
           f"Runner {md_text(runner.get('name', '?'))} {md_text(runner.get('version', '?'))}, "
           f"corpus {md_text(corpus.get('version', '?'))} "
           f"(sha256 {md_text(str(corpus.get('sha256', '?'))[:12])}, "
           f"{md_text(corpus.get('cases', '?'))} cases)", "",
           "| stage | passed | failed | errored | skipped | info |",
           "|---|---:|---:|---:|---:|---:|"]
    for stage, c in s["stages"].items():
        out.append(f"| {md_text(stage)} | {c['passed']} | {c['failed']} | {c['errored']} | "
                   f"{c['skipped']} | {c['info']} |")
    failing = [r for r in report.sorted_results() if counts_as_failure(r)]
    if failing:
        out += ["", f"### Failures ({len(failing)})", ""]
        for result in failing[:MAX_MARKDOWN_FAILURES]:
            out += [f"<details><summary>{md_text(result['case'])} "
                    f"[{md_text(result['stage'])}] {md_text(result['status'])}</summary>", ""]
            out += md_fence(failure_lines(result))
            out += ["", "</details>", ""]
        if len(failing) > MAX_MARKDOWN_FAILURES:
            out.append(f"… and {len(failing) - MAX_MARKDOWN_FAILURES} more: see the full report.")
    while out[-1] == "":
        out.pop()
    if report.stale_baseline:
        out += ["", "### Stale baseline entries", ""]
        out += [f"- {md_text(stale_entry_line(e))}" for e in report.stale_baseline]
    known = [r for r in report.sorted_results() if r.get("baseline", {}).get("state") == "known"]
    if known:
        out += ["", f"<details><summary>Known failures ({len(known)})</summary>", "",
                "| case | stage | reason | issue |", "|---|---|---|---|"]
        for r in known:
            b = r["baseline"]
            out.append(f"| {md_text(r['case'])} | {md_text(r['stage'])} | "
                       f"{md_text(b['reason'])} | {md_text(b.get('issue') or '')} |")
        out += ["", "</details>"]
    return "\n".join(out).rstrip("\n") + "\n"


def json_summary(report: reports.Report) -> str:
    return json.dumps(reports.summary(report), indent=2, ensure_ascii=False) + "\n"


def renderer(output_format: str) -> Callable[[reports.Report], str]:
    """The function that renders a report as ``output_format`` (one of formats.FORMATS)."""
    from conformance.reporting import render_html, render_junit

    return {
        "terminal": terminal_text,
        "markdown": markdown,
        "junit": render_junit.junit,
        "html": render_html.html,
        "json": json_summary,
    }[output_format]


def render_stdout(outcome: Any, output_format: str) -> None:
    """What ``run`` prints at the end; the terminal format keeps its colours."""
    report = outcome.report if hasattr(outcome, "report") else outcome
    if output_format == "terminal":
        terminal(report, Console(highlight=False))
    else:
        import click

        click.echo(renderer(output_format)(report), nl=False)
