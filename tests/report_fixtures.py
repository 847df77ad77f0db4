"""Fixed reports for the renderer, diff and baseline tests, built with the real writer.

``hostile`` puts markup where session content and implementation text reach a report:
messages, difference values, paths, baseline reasons, the implementation's name.
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from conformance.judging.comparison import Difference
from conformance.judging.results import BaselineMark, StageResult, StaleEntry
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Report, RunScope

IMPLEMENTATION = {"name": "demo-port", "version": "2.1.0", "language": "rust",
                  "homepage": "https://example.org/demo-port"}
CORPUS = {"root": "/corpus", "version": "0.1.0", "cases": 3, "sha256": "ab" * 32,
          "reference": ("@earendil-works/pi-coding-agent@1.6.0 node@22.23.3",)}
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
          implementation: dict[str, Any] | None = None,
          interrupted: bool = False) -> tuple[Report, bytes]:
    """A finished report (read back, as every consumer gets one) and its JSON-lines bytes,
    with fixed timestamps."""
    impl = dict(implementation or IMPLEMENTATION)
    if hostile:
        impl["name"] = "demo" + SCRIPT
        impl["homepage"] = "javascript:alert(1)"
    stream = io.BytesIO()
    head = replace(reports.header(impl, {"stages": ["entries", "context", "stats"]},
                                  CorpusIdentity(**CORPUS),
                                  RunScope(impl="python:demo:impl")),
                   started="2026-01-01T00:00:00Z")
    writer = reports.ReportWriter(stream, head)
    for result in result_list if result_list is not None else results(hostile):
        if known and (result.case, result.stage) in known:
            result = result.with_baseline(BaselineMark(**known[(result.case, result.stage)]))
        writer.add(result)
    stale = tuple(StaleEntry(**entry) for entry in stale_baseline or [])
    footer = writer.tally.footer(stale, "2026-01-01T00:00:05Z", interrupted=interrupted)
    stream.write(orjson.dumps(footer.to_json(), option=orjson.OPT_APPEND_NEWLINE))
    data = stream.getvalue()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "report.jsonl"
        path.write_bytes(data)
        return reports.read_report(path), data


def write(path: Path, **kwargs: Any) -> Path:
    path.write_bytes(build(**kwargs)[1])
    return path


def report(results: list[StageResult], *, name: str = "demo-port", version: str = "1",
           stages: list[str] | None = None, impl: str = "") -> Report:
    """A report of ``results`` as a value, without a file: for matrix, drift and grouping."""
    from conformance.reporting.model import Tally

    tally = Tally()
    for result in results:
        tally.add(result)
    head = reports.Header(implementation={"name": name, "version": version},
                          capabilities={"stages": stages or []},
                          corpus=CorpusIdentity(**CORPUS), selection=RunScope(impl=impl),
                          started="2026-01-01T00:00:00Z")
    return Report(head, tuple(results), tally.footer((), "2026-01-01T00:00:05Z"))
