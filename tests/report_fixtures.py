"""Fixed reports for the renderer, diff and baseline tests, built with the real writer.

``hostile`` puts markup where session content and implementation text reach a report:
messages, difference values, paths, baseline reasons, the implementation's name.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from conformance.judging.comparison import Difference
from conformance.judging.runner import StageResult
from conformance.reporting import stream as reports

IMPLEMENTATION = {"name": "demo-port", "version": "2.1.0", "language": "rust",
                  "homepage": "https://example.org/demo-port"}
CORPUS = {"root": "/corpus", "version": "0.1.0", "cases": 3, "sha256": "ab" * 32,
          "reference": ["@earendil-works/pi-coding-agent@1.6.0 node@22.23.3"]}
# Each payload, if it ever ran, would mark the page: <html data-pwned="...">.
SCRIPT = "<script>document.documentElement.dataset.pwned='script'</script>"
IMG = '<img src=x onerror="document.documentElement.dataset.pwned=\'img\'">'
FENCE = "```\n</details><b>broken</b>"


def results(hostile: bool = False) -> list[StageResult]:
    text = SCRIPT + IMG if hostile else "Hi"
    return [
        StageResult("traps.two-timestamps", "entries", "pass", duration=0.01),
        StageResult("traps.two-timestamps", "context", "fail", "2 difference(s)", [
            Difference("$.messages[1].content", "changed", "Hello", text),
            Difference("$.messages[1].timestamp", "type changed", 1733234401000,
                       "2024-12-03T14:00:01.000Z"),
        ], expected_kind="output", actual_kind="output", duration=0.02),
        StageResult("traps.two-timestamps", "stats", "error",
                    (IMG + FENCE) if hostile else "the implementation stopped: exit code 1",
                    duration=0.5, error_kind="crash"),
        StageResult("traps.two-timestamps", "request.openai-responses", "skip",
                    "stage not claimed"),
        StageResult("compaction.basic", "context", "fail", "1 difference(s)", [
            Difference("$.messages[0]" + ("['<svg onload=alert(1)>']" if hostile else ""),
                       "missing key", {"role": "user", "content": text}, "<missing>"),
        ], duration=0.03),
        StageResult("compaction.basic", "branch", "pass", duration=0.01),
        StageResult("migrations.v1", "entries", "info", "Pi itself misbehaves here (hang)",
                    outcome="reference-misbehaves"),
    ]


def build(result_list: list[StageResult] | None = None, *, hostile: bool = False,
          known: dict[tuple[str, str], dict[str, Any]] | None = None,
          stale_baseline: list[dict[str, Any]] | None = None,
          implementation: dict[str, Any] | None = None) -> tuple[reports.Report, bytes]:
    """A finished report and its JSON-lines bytes, with fixed timestamps."""
    impl = dict(implementation or IMPLEMENTATION)
    if hostile:
        impl["name"] = "demo" + SCRIPT
        impl["homepage"] = "javascript:alert(1)"
    stream = io.BytesIO()
    head = reports.header(impl, {"stages": ["entries", "context", "stats"]}, CORPUS,
                          {"cases": [], "features": [], "stages": [], "apis": [],
                           "impl": "python:demo:impl"})
    head["started"] = "2026-01-01T00:00:00Z"
    writer = reports.ReportWriter(stream, head)
    for result in result_list if result_list is not None else results(hostile):
        line = writer.add_pending(result)
        if known and (result.case, result.stage) in known:
            line["baseline"] = known[(result.case, result.stage)]
        writer.flush_pending()
    writer.report.footer = reports.footer(writer.report.results, stale_baseline or [])
    writer.report.footer["finished"] = "2026-01-01T00:00:05Z"
    writer._write(writer.report.footer)
    return writer.report, stream.getvalue()


def write(path: Path, **kwargs: Any) -> Path:
    path.write_bytes(build(**kwargs)[1])
    return path
