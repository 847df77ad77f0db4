"""Plain-text pieces every renderer shares: a failure as lines, the counts, the title.

Implementations and sessions write what they like into messages and values, so everything
shown here goes through ``printable``: control characters (ESC, NUL, the C1 range, ...)
become ``\\xNN`` escapes and never reach a terminal, a Markdown page or an XML file raw.
"""

from __future__ import annotations

import re
from typing import Any

from conformance import jsonio
from conformance.controls import printable
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult, StaleEntry
from conformance.reporting.model import Report, Verdict

MAX_SHOWN_DIFFERENCES = 8
MAX_VALUE = 160

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable_text(text: str) -> str:
    """A whole rendered document that UTF-8 can hold: a lone surrogate (an implementation's
    text) written as ``\\uXXXX``, everything else as it is."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def short(value: Any, limit: int = MAX_VALUE) -> str:
    """A value as one line of JSON, cut at ``limit`` characters; ``<...>`` notes as they are."""
    text = value if isinstance(value, str) and value.startswith("<") else jsonio.dumps_text(
        value, compact=False)
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def baseline_note(result: StageResult) -> str:
    if result.baseline is None:
        return ""
    if result.baseline.state == "stale":
        return "stale baseline entry: it passes now, remove it from the baseline"
    issue = f" ({printable(result.baseline.issue)})" if result.baseline.issue else ""
    return f"known failure: {printable(result.baseline.reason)}{issue}"


def status_label(result: StageResult) -> str:
    return result.status + (f" ({result.error_kind})" if result.error_kind else "")


def difference_head(diff: Difference) -> str:
    """``$.a[3] (changed)``; with the answer's path when alignment moved it, and the note:
    ``$.a[3] -> answer $.a[2] (changed)``, ``$.a[0] (missing item: user message)``."""
    where = printable(diff.path)
    if diff.actual_path is not None and diff.actual_path != diff.path:
        where += f" -> answer {printable(diff.actual_path)}"
    item_note = diff.note.split(":")[0] in ("missing item", "extra item")
    label = diff.note if item_note else diff.kind
    extra = diff.note if diff.note and not item_note else ""
    return f"{where} ({printable(label)})" + (f": {printable(extra)}" if extra else "")


def failure_lines(result: StageResult, limit: int | None = MAX_SHOWN_DIFFERENCES) -> list[str]:
    """A failing result as plain text lines: what, where, and the values."""
    head = f"{printable(result.case)} [{printable(result.stage)}] {status_label(result)}"
    lines = [f"{head}: {printable(result.message)}" if result.message else head]
    note = baseline_note(result)
    if note:
        lines.append(f"    {note}")
    diffs = result.differences
    shown = diffs if limit is None else diffs[:limit]
    for diff in shown:
        lines.append(f"    {difference_head(diff)}")
        lines.append(f"      expected: {short(diff.expected)}")
        lines.append(f"      actual:   {short(diff.actual)}")
    if len(diffs) > len(shown):
        lines.append(f"    … and {len(diffs) - len(shown)} more difference(s)")
    return lines


def stale_entry_line(entry: StaleEntry) -> str:
    return f"stale baseline entry: {printable(entry.describe())}"


def counts_line(report: Report) -> str:
    c = report.status_counts()
    text = (f"{report.case_count} cases, {len(report.results)} results: {c.passed} passed, "
            f"{c.failed} failed, {c.errored} errored, {c.skipped} skipped, {c.info} info")
    if c.as_documented:
        text += f", {c.as_documented} as documented"
    known, stale = report.known_count, report.stale_count + len(report.stale_baseline)
    if known or stale:
        text += f"; baseline: {known} known, {stale} stale"
    return text


VERDICT_WORDS: dict[Verdict, str] = {"passed": "PASSED", "failed": "FAILED",
                                     "interrupted": "INTERRUPTED",
                                     "nothing-judged": "NOTHING JUDGED"}


def nothing_judged_note(report: Report, limit: int = 5) -> str:
    """Why nothing was judged: the skips' reasons, most common first; empty otherwise."""
    if not report.nothing_judged:
        return ""
    if not report.results:
        return "nothing judged: the run has no result (no case or stage was selected)"
    reasons = report.skip_reasons().most_common()
    said = "; ".join(f"{reason}: {count}" for reason, count in reasons[:limit])
    more = f"; {len(reasons) - limit} other reason(s)" if len(reasons) > limit else ""
    return (f"nothing judged: every result was skipped ({said}{more}); pass --allow-empty "
            "if that is what this run is for")
INTERRUPTED_NOTE = ("the run was interrupted before every result was in: these are the "
                    "results it reached")


def title(report: Report) -> str:
    return printable(report.header.title)
