"""People-facing renderings of a report: the terminal summary, Markdown, and the JSON summary.

Failures are shown with the JSON paths that differ and the two values, the way a reviewer
reads them; the full structured differences stay in the JSON-lines report. JUnit XML and
HTML live in render_junit.py and render_html.py; ``formats.renderer`` picks one by name.
Everything from the report passes ``text.printable``: no control character reaches a
terminal or a page raw; and it reaches rich as ``Text``, never parsed as markup.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance import jsonio
from conformance.controls import printable
from conformance.judging.results import Status
from conformance.reporting.model import Report, summary
from conformance.reporting.text import (
    INTERRUPTED_NOTE,
    VERDICT_WORDS,
    counts_line,
    failure_lines,
    nothing_judged_note,
    stale_entry_line,
    title,
)

MAX_MARKDOWN_FAILURES = 50  # GitHub caps a step summary at 1 MiB
_COLUMNS = (("passed", "passed"), ("failed", "failed"), ("errored", "errored"),
            ("skipped", "skipped"), ("info", "info"), ("as documented", "as_documented"))


def stage_columns(report: Report) -> list[tuple[str, str]]:
    """The stage table's count columns: "as documented" only when a result has that status."""
    shown = report.status_counts().as_documented
    return [c for c in _COLUMNS if c[1] != "as_documented" or shown]


def stage_rows(report: Report) -> list[tuple[str, list[int]]]:
    columns = stage_columns(report)
    return [(stage, [getattr(c, key) for _, key in columns])
            for stage, c in report.stage_counts().items()]


def stage_table(report: Report) -> Table:
    table = Table(title=Text(title(report)))
    table.add_column("stage", justify="left")
    for name, _ in stage_columns(report):
        table.add_column(name, justify="right")
    for stage, counts in stage_rows(report):
        table.add_row(Text(printable(stage)), *map(str, counts))
    return table


_VERDICT_STYLE = {"passed": "bold green", "failed": "bold red", "interrupted": "bold yellow",
                  "nothing-judged": "bold yellow"}


#: What a newcomer reads under the table: the statuses that never fail a run, explained.
_NEVER_FAILS: tuple[tuple[Status, str], ...] = (
    ("skip", "skipped: a stage or feature the implementation does not claim"),
    ("info", "info: no behaviour is required there (Pi itself misbehaves, or it is "
             "implementation-defined)"),
    ("as-documented", "as documented: follows Pi's docs where Pi does not"),
)


def legend(report: Report) -> str:
    """One line explaining the run's skip, info and as-documented results; empty if none."""
    counts = report.counts()
    said = [text for status, text in _NEVER_FAILS if counts.get(status)]
    return "; ".join(said) + ". None fails a run (docs/reports.md)." if said else ""


def terminal(report: Report, console: Console,
             about: Mapping[str, str] | None = None) -> None:
    """The failures (each with what ``about`` says of its case: its title and directory,
    when the caller has the corpus), the stage table, the legend and the verdict."""
    for result in report.failures():
        for number, line in enumerate(failure_lines(result)):
            console.print(Text(line), style="bold red" if number == 0 else None,
                          soft_wrap=True, highlight=False)
            if number == 0 and about and result.case in about:
                console.print(Text(f"    {about[result.case]}"), style="dim",
                              soft_wrap=True, highlight=False)
    for entry in report.stale_baseline:
        console.print(Text(stale_entry_line(entry)), style="bold red", soft_wrap=True,
                      highlight=False)
    console.print(stage_table(report))
    if legend(report):  # under the table it explains, above the verdict (a CI log's last line)
        console.print(Text(legend(report)), style="dim", highlight=False, soft_wrap=True)
    if report.interrupted:
        console.print(Text(INTERRUPTED_NOTE), style="bold yellow", soft_wrap=True)
    if nothing_judged_note(report):
        console.print(Text(nothing_judged_note(report)), style="bold yellow", soft_wrap=True,
                      highlight=False)
    style = _VERDICT_STYLE[report.verdict]
    console.print(Text.assemble((VERDICT_WORDS[report.verdict], style), " ", counts_line(report)),
                  highlight=False, soft_wrap=True)


def terminal_text(report: Report, width: int = 100) -> str:
    """The terminal rendering as plain text, for ``render -o FILE`` and snapshots."""
    buffer = io.StringIO()
    terminal(report, Console(file=buffer, width=width, color_system=None, highlight=False,
                             emoji=False))
    return buffer.getvalue()


# Markdown. Everything that comes from a report is either inside a code fence longer than any
# backtick run it holds, or escaped, so session text cannot open HTML or break the layout.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>&~])")


def md_text(text: Any) -> str:
    """Inline text safe in Markdown: specials backslash-escaped, HTML characters as entities,
    control characters as ``\\xNN``."""
    escaped = _MD_SPECIAL.sub(r"\\\1", printable(text).replace("\n", " "))
    return escaped.replace("\\<", "&lt;").replace("\\>", "&gt;").replace("\\&", "&amp;")


def md_fence(lines: list[str], info: str = "text") -> list[str]:
    body = printable("\n".join(lines))
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def markdown(report: Report) -> str:
    runner, corpus = report.header.runner, report.header.corpus
    columns = stage_columns(report)
    out = [f"## pi-conformance: {md_text(title(report))}", "",
           f"**{VERDICT_WORDS[report.verdict]}**: {md_text(counts_line(report))}", ""]
    if report.interrupted:
        out += [f"*{md_text(INTERRUPTED_NOTE)}*", ""]
    if nothing_judged_note(report):
        out += [f"*{md_text(nothing_judged_note(report))}*", ""]
    out += [f"Runner {md_text(runner.name)} {md_text(runner.version)}, "
            f"corpus {md_text(corpus.version)} (sha256 {md_text(corpus.sha256[:12])}, "
            f"{corpus.cases} cases)", "",
            "| stage | " + " | ".join(name for name, _ in columns) + " |",
            "|---|" + "---:|" * len(columns)]
    for stage, counts in stage_rows(report):
        out.append(f"| {md_text(stage)} | " + " | ".join(map(str, counts)) + " |")
    failing = report.failures()
    if failing:
        out += ["", f"### Failures ({len(failing)})", ""]
        for result in failing[:MAX_MARKDOWN_FAILURES]:
            out += [f"<details><summary>{md_text(result.case)} "
                    f"[{md_text(result.stage)}] {md_text(result.status)}</summary>", ""]
            out += md_fence(failure_lines(result))
            out += ["", "</details>", ""]
        if len(failing) > MAX_MARKDOWN_FAILURES:
            out.append(f"… and {len(failing) - MAX_MARKDOWN_FAILURES} more: see the full report.")
    while out[-1] == "":
        out.pop()
    if report.stale_baseline:
        out += ["", "### Stale baseline entries", ""]
        out += [f"- {md_text(stale_entry_line(e))}" for e in report.stale_baseline]
    known = [r for r in report.sorted_results() if r.baseline_state == "known"]
    if known:
        out += ["", f"<details><summary>Known failures ({len(known)})</summary>", "",
                "| case | stage | reason | issue |", "|---|---|---|---|"]
        for r in known:
            assert r.baseline is not None
            out.append(f"| {md_text(r.case)} | {md_text(r.stage)} | "
                       f"{md_text(r.baseline.reason)} | {md_text(r.baseline.issue)} |")
        out += ["", "</details>"]
    return "\n".join(out).rstrip("\n") + "\n"


def json_summary(report: Report) -> str:
    return jsonio.dumps_text(summary(report), indent=2) + "\n"
