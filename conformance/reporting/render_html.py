"""A self-contained HTML report: one file, no external assets, safe to open from a CI artifact.

Session content reaches this page (messages, tool names, values in differences, the
implementation's own name and error text), so every string goes through Jinja's autoescape;
the only unescaped text is our own script, and a Content-Security-Policy allows that script
alone (by hash). Links are made only from http(s) URLs, never ``javascript:``.
tests/test_render_html_browser.py proves in headless Chromium that nothing is injected.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from functools import cache
from typing import Any

import jinja2

from conformance import jsonio
from conformance._paths import PACKAGE_DIR
from conformance.judging.results import StageResult
from conformance.reporting.model import Report
from conformance.reporting.text import (
    INTERRUPTED_NOTE,
    baseline_note,
    counts_line,
    printable_text,
    title,
)

MAX_DIFFERENCES = 200
MAX_VALUE = 20_000
STATUS_ORDER = ("fail", "error", "stale", "known", "info", "as-documented", "skip", "pass")
SHOWN_BY_DEFAULT = ("fail", "error", "stale", "known", "info", "as-documented")

# Filters the result rows by status checkboxes and a search box; reads only data-*
# attributes and class names, never puts text into the page.
SCRIPT = """
(function () {
  var boxes = document.querySelectorAll('#filters input[name=status]');
  var search = document.getElementById('search');
  var rows = document.querySelectorAll('#results tbody.result');
  var shown = document.getElementById('shown-count');
  function apply() {
    var wanted = {};
    boxes.forEach(function (b) { wanted[b.value] = b.checked; });
    var needle = search.value.toLowerCase();
    var count = 0;
    rows.forEach(function (row) {
      var ok = wanted[row.dataset.status] &&
        (!needle || row.dataset.text.indexOf(needle) !== -1);
      row.classList.toggle('hidden', !ok);
      if (ok) { count += 1; }
    });
    shown.textContent = count + ' of ' + rows.length + ' shown';
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  search.addEventListener('input', apply);
  apply();
})();
"""


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE_DIR / "reporting" / "templates"),
        autoescape=True,  # every {{ }} is escaped unless marked safe; only SCRIPT is
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.jinja")


def web_link(url: Any) -> str:
    """``url`` if it is an http(s) URL, else empty: no ``javascript:`` or ``data:`` links."""
    text = str(url or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else ""


def shown_value(value: Any) -> str:
    text = value if isinstance(value, str) and value.startswith("<") else \
        jsonio.dumps_text(value, indent=2)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE] + "\n… (truncated)"


def filter_status(result: StageResult) -> str:
    return result.baseline_state or result.status


def _row(result: StageResult) -> dict[str, Any]:
    status = filter_status(result)
    diffs = result.differences
    return {
        "case": result.case,
        "stage": result.stage,
        "filter_status": status,
        "label": result.status + (f" ({status})" if status != result.status else "")
        + (f" ({result.error_kind})" if result.error_kind else ""),
        "message": result.message,
        "note": baseline_note(result),
        "issue": web_link(result.baseline.issue if result.baseline else ""),
        "differences": [
            {"path": d.path, "kind": d.kind, "expected": shown_value(d.expected),
             "actual": shown_value(d.actual), "actual_path": d.actual_path or "",
             "note": d.note}
            for d in diffs[:MAX_DIFFERENCES]
        ],
        "total": len(diffs),
        "more": len(diffs) > MAX_DIFFERENCES,
        "open": result.counts_as_failure,
        "search_text": f"{result.case} {result.stage} {status} {result.message}".lower(),
    }


def html(report: Report) -> str:
    rows = [_row(r) for r in report.sorted_results()]
    present = Counter(row["filter_status"] for row in rows)
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    return printable_text(_template().render(
        title=title(report),
        verdict=report.verdict,
        stages=report.stage_counts(),
        show_as_documented=bool(report.status_counts().as_documented),
        counts_line=counts_line(report),
        interrupted_note=INTERRUPTED_NOTE if report.interrupted else "",
        implementation={"name": "?", "version": "?", "language": "", **report.implementation},
        homepage=web_link(report.implementation.get("homepage")),
        runner=report.header.runner,
        corpus=report.header.corpus,
        started=report.header.started,
        finished=report.footer.finished,
        stale_baseline=report.stale_baseline,
        status_counts=[(s, present[s]) for s in STATUS_ORDER if present[s]],
        shown_by_default=SHOWN_BY_DEFAULT if set(present) & set(SHOWN_BY_DEFAULT)
        else STATUS_ORDER,
        rows=rows,
        script=SCRIPT,
        script_hash=f"sha256-{digest}",
    ))
