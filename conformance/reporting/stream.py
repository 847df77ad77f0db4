"""The canonical report: one JSON-lines stream per run (schemas/report.schema.json).

Line 1 is a header (runner, corpus and implementation versions), then one line per stage
result, then a footer with the counts. Every other format (terminal, Markdown, JUnit, HTML,
diff) is rendered from this stream, and the reader refuses a stream that is truncated (no
footer, or a footer whose count disagrees) or that holds a result twice.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from conformance import __version__
from conformance.corpus.stages import stage_sort_key
from conformance.errors import ConformanceError
from conformance.judging.baseline import counts_as_failure
from conformance.judging.runner import STATUSES, StageResult

SCHEMA = "pi-conformance/report/1"


class ReportError(ConformanceError):
    """A report stream that cannot be trusted."""


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class Report:
    header: dict[str, Any]
    results: list[dict[str, Any]] = field(default_factory=list)
    footer: dict[str, Any] = field(default_factory=dict)

    @property
    def implementation(self) -> dict[str, Any]:
        return self.header.get("implementation", {})

    def counts(self) -> Counter[str]:
        return Counter(r["status"] for r in self.results)

    def sorted_results(self) -> list[dict[str, Any]]:
        return sorted(self.results, key=lambda r: (r["case"], stage_sort_key(r["stage"])))

    @property
    def stale_baseline(self) -> list[dict[str, Any]]:
        """Baseline entries that match nothing in the corpus (recorded in the footer)."""
        return list(self.footer.get("stale_baseline", []))

    def failed(self) -> bool:
        return any(counts_as_failure(r) for r in self.results) or bool(self.stale_baseline)


def header(implementation: dict[str, Any], capabilities: dict[str, Any], corpus: dict[str, Any],
           selection: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "header",
        "schema": SCHEMA,
        "runner": {"name": "pi-conformance", "version": __version__},
        "implementation": implementation,
        "capabilities": capabilities,
        "corpus": corpus,
        "selection": selection,
        "started": now(),
    }


def footer(results: Iterable[dict[str, Any]],
           stale_baseline: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    results, stale = list(results), list(stale_baseline)
    counts = Counter(r["status"] for r in results)
    failed = any(counts_as_failure(r) for r in results) or bool(stale)
    return {
        "type": "footer",
        "results": len(results),
        "counts": {status: counts.get(status, 0) for status in STATUSES},
        "known": sum(1 for r in results if r.get("baseline", {}).get("state") == "known"),
        "stale": sum(1 for r in results if r.get("baseline", {}).get("state") == "stale"),
        "stale_baseline": stale,
        "verdict": "failed" if failed else "passed",
        "finished": now(),
    }


class ReportWriter:
    """Writes the stream as results arrive, so a run that dies keeps what it had."""

    def __init__(self, stream: IO[bytes], head: dict[str, Any]):
        self.stream = stream
        self.report = Report(header=head)
        self._pending: dict[str, Any] | None = None
        self._write(head)

    def _write(self, line: dict[str, Any]) -> None:
        self.stream.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
        self.stream.flush()

    def add(self, result: StageResult) -> dict[str, Any]:
        line = self.add_pending(result)
        self.flush_pending()
        return line

    def add_pending(self, result: StageResult) -> dict[str, Any]:
        """Record a result that may still be annotated (by the baseline) before it is written."""
        line = {"type": "result", **result.to_json()}
        self.report.results.append(line)
        self._pending = line
        return line

    def flush_pending(self) -> None:
        if self._pending is not None:
            self._write(self._pending)
            self._pending = None

    def close(self, stale_baseline: Iterable[dict[str, Any]] = ()) -> Report:
        self.report.footer = footer(self.report.results, stale_baseline)
        self._write(self.report.footer)
        return self.report


def read_report(path: Path) -> Report:
    """Parse and verify a report stream; any inconsistency is a ReportError naming the line."""
    try:
        raw_lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise ReportError(f"cannot read: {exc.strerror}", path=path) from None
    report: Report | None = None
    seen: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ReportError(f"not JSON: {exc.msg}", path=path, line=number) from None
        kind = line.get("type") if isinstance(line, dict) else None
        if report is None:
            if kind != "header" or line.get("schema") != SCHEMA:
                raise ReportError(f"the first line must be a {SCHEMA} header", path=path,
                                  line=number)
            report = Report(header=line)
        elif report.footer:
            raise ReportError("content after the footer", path=path, line=number)
        elif kind == "result":
            key = (line.get("case"), line.get("stage"))
            if not all(isinstance(part, str) and part for part in key):
                raise ReportError("a result needs a case and a stage", path=path, line=number)
            if key in seen:
                raise ReportError(f"duplicate result for {key[0]} {key[1]} (first on line "
                                  f"{seen[key]})", path=path, line=number)
            if line.get("status") not in STATUSES:
                raise ReportError(f"unknown status {line.get('status')!r}", path=path,
                                  line=number)
            seen[key] = number  # type: ignore[index]
            report.results.append(line)
        elif kind == "footer":
            if line.get("results") != len(report.results):
                raise ReportError(
                    f"footer counts {line.get('results')} results, the stream has "
                    f"{len(report.results)}", path=path, line=number)
            counted = report.counts()
            for status, claimed in (line.get("counts") or {}).items():
                if claimed != counted.get(status, 0):
                    raise ReportError(
                        f"footer counts {claimed} {status} results, the stream has "
                        f"{counted.get(status, 0)}", path=path, line=number)
            report.footer = line
        else:
            raise ReportError(f"unknown line type {kind!r}", path=path, line=number)
    if report is None:
        raise ReportError("empty report", path=path)
    if not report.footer:
        raise ReportError("truncated: no footer (the run did not finish)", path=path)
    return report


def summary(report: Report) -> dict[str, Any]:
    """The machine summary printed by ``run --format json`` (schemas/summary.schema.json)."""
    counts = report.counts()
    per_stage: dict[str, Counter[str]] = {}
    for result in report.results:
        per_stage.setdefault(result["stage"], Counter())[result["status"]] += 1
    states = Counter(r.get("baseline", {}).get("state") for r in report.results)
    return {
        "implementation": report.implementation,
        "runner": report.header.get("runner", {}),
        "corpus": report.header.get("corpus", {}),
        "cases": len({r["case"] for r in report.results}),
        "results": len(report.results),
        "passed": counts.get("pass", 0),
        "failed": counts.get("fail", 0),
        "errored": counts.get("error", 0),
        "skipped": counts.get("skip", 0),
        "info": counts.get("info", 0),
        "known": states.get("known", 0),
        "stale": states.get("stale", 0),
        "stages": {
            stage: {
                "passed": c.get("pass", 0), "failed": c.get("fail", 0),
                "errored": c.get("error", 0), "skipped": c.get("skip", 0),
                "info": c.get("info", 0),
            }
            for stage, c in sorted(per_stage.items(), key=lambda kv: stage_sort_key(kv[0]))
        },
        "stale_baseline": report.stale_baseline,
        "verdict": "failed" if report.failed() else "passed",
    }
