"""The canonical report: one JSON-lines stream per run (schemas/report.schema.json).

Line 1 is a header (runner, corpus and implementation versions), then one line per stage
result, then a footer with the counts. Every other format (terminal, Markdown, JUnit, HTML,
diff) is rendered from this stream, and the reader refuses a stream that is truncated (no
footer, or a footer whose count disagrees), that holds a result twice, or whose lines do not
fit the model (reporting/model.py), naming the line.

The writer streams: it keeps the counts the footer needs, not the lines. It bounds each
result line (``MAX_DIFFERENCES``, ``MAX_VALUE_BYTES``, ``MAX_MESSAGE_CHARS``,
``MAX_LINE_BYTES``; docs/reports.md), saying in the line what it left out, and a result it
cannot serialize at all becomes a stated error result: no write problem drops a result.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from conformance import jsonio
from conformance.corpus import identity
from conformance.errors import ConformanceError
from conformance.judging.comparison import Difference
from conformance.judging.results import ModelError, StageResult, StaleEntry
from conformance.reporting.model import (
    CorpusIdentity,
    Footer,
    Header,
    Report,
    RunScope,
    Tally,
)

if TYPE_CHECKING:
    from conformance.corpus.cases import Corpus

MAX_DIFFERENCES = 200  # differences kept per result line
MAX_VALUE_BYTES = 16_384  # JSON bytes kept per expected or actual value
MAX_MESSAGE_CHARS = 16_384  # characters kept of a message
MAX_LINE_BYTES = 1_048_576  # a result line, all told


class ReportError(ConformanceError):
    """A report stream that cannot be trusted, or cannot be written."""


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def header(implementation: dict[str, Any], capabilities: dict[str, Any],
           corpus: CorpusIdentity, scope: RunScope) -> Header:
    return Header(implementation=implementation, capabilities=capabilities, corpus=corpus,
                  selection=scope, started=now())


def corpus_identity(corpus: Corpus) -> CorpusIdentity:
    """Which corpus a run used (corpus/identity.py), as the header's typed value."""
    return CorpusIdentity.from_json(identity.corpus_fingerprint(corpus))


# -- bounding a result line ------------------------------------------------------------------

def bounded_value(value: Any) -> Any:
    """``value`` if its JSON fits ``MAX_VALUE_BYTES``; else a ``<...>`` note saying what it
    was (too big, with its first bytes, or not serializable, e.g. nested too deep)."""
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    try:
        encoded = jsonio.dumps(value)
    except (TypeError, ValueError) as exc:
        return f"<not kept in the report: {exc}>"
    if len(encoded) <= MAX_VALUE_BYTES:
        return value
    head = encoded[:200].decode("utf-8", errors="ignore")
    return f"<truncated: {len(encoded)} bytes of JSON, the first 200: {head}…>"


def bounded(result: StageResult) -> StageResult:
    """``result`` cut to the report's caps, with a note in its message for what was left out."""
    notes = []
    kept: list[Difference] = []
    changed = False
    size = 0
    for diff in result.differences:
        if len(kept) >= MAX_DIFFERENCES:
            break
        small = replace(diff, path=diff.path[:1000], kind=diff.kind[:200],
                        expected=bounded_value(diff.expected), actual=bounded_value(diff.actual),
                        actual_path=diff.actual_path[:1000] if diff.actual_path else None,
                        note=diff.note[:1000])
        try:
            size += len(jsonio.dumps(small.to_json()))
        except (TypeError, ValueError):  # a path or kind that is not UTF-8, say
            small = Difference("$", "<not kept in the report>", None, None)
        if size > MAX_LINE_BYTES // 2 and kept:
            break
        changed = changed or any(a is not b for a, b in zip(
            (small.path, small.kind, small.expected, small.actual, small.actual_path, small.note),
            (diff.path, diff.kind, diff.expected, diff.actual, diff.actual_path, diff.note),
            strict=True))
        kept.append(small)
    if len(kept) < len(result.differences):
        notes.append(f"the report keeps the first {len(kept)} of {len(result.differences)} "
                     "differences")
    message = result.message
    if len(message) > MAX_MESSAGE_CHARS:
        notes.append(f"the report keeps the first {MAX_MESSAGE_CHARS} of {len(message)} "
                     "characters of the message")
        message = message[:MAX_MESSAGE_CHARS] + "…"
    if notes:
        message = (message + " " if message else "") + "(" + "; ".join(notes) + ")"
    if not notes and not changed:
        return result
    return replace(result, message=message, differences=tuple(kept))


def encode_result(result: StageResult) -> tuple[StageResult, bytes]:
    """The line to write for ``result`` and the result it says: the bounded result, or, if
    even that cannot be serialized, an error result that says so (never nothing)."""
    result = bounded(result)
    try:
        return result, jsonio.dumps_line(result.to_json())
    except (TypeError, ValueError) as exc:
        stand_in = StageResult(result.case, result.stage, "error",
                               f"the runner could not write this result ({result.status}): "
                               f"{exc}", outcome=result.outcome, duration=result.duration,
                               error_kind="harness", baseline=result.baseline
                               if result.baseline and result.baseline.state == "known"
                               else None)
        return stand_in, jsonio.dumps_line(stand_in.to_json())


class ReportWriter:
    """Writes the stream as results arrive, so a run that dies keeps what it had.

    It keeps only the tally the footer needs. A write that fails (a full disk, ``/dev/full``)
    is kept in ``failure`` (a ReportError naming the file) and stops further writing; the
    run goes on and the caller raises it at the end, so no worker dies of it.
    """

    def __init__(self, stream: IO[bytes], head: Header, path: Path | str | None = None):
        self.stream = stream
        self.header = head
        self.path = path if path is not None else getattr(stream, "name", None)
        self.tally = Tally()
        self.failure: ReportError | None = None
        self.footer: Footer | None = None
        self._write(jsonio.dumps_line(head.to_json()))

    def _write(self, data: bytes) -> None:
        if self.failure is not None:
            return
        try:
            self.stream.write(data)
            self.stream.flush()
        except OSError as exc:
            self.failure = ReportError(f"cannot write the report: {exc.strerror or exc}",
                                       path=self.path if isinstance(self.path, (str, Path))
                                       else None)

    def add(self, result: StageResult) -> StageResult:
        """Write one result; returns the result as written (bounded, or its stand-in)."""
        written, line = encode_result(result)
        self.tally.add(written)
        self._write(line)
        return written

    def close(self, stale_baseline: Iterable[StaleEntry] = (), *,
              interrupted: bool = False, allow_empty: bool = False) -> Footer:
        self.footer = self.tally.footer(stale_baseline, now(), interrupted=interrupted,
                                        allow_empty=allow_empty)
        self._write(jsonio.dumps_line(self.footer.to_json()))
        return self.footer

    def raise_failure(self) -> None:
        if self.failure is not None:
            raise self.failure


@contextlib.contextmanager
def report_file(path: Path | None) -> Iterator[tuple[Path, IO[bytes]]]:
    """The report file (a temporary one without a path: renderings read it back). Failing
    to open or to close it is a ReportError naming the file, never an OSError."""
    with contextlib.ExitStack() as stack:
        if path is None:
            path = Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix="pi-conformance-report-"))) / "run.jsonl"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            stream = path.open("wb")
        except OSError as exc:
            raise ReportError(f"cannot write the report: {exc.strerror or exc}",
                              path=path) from None
        try:
            yield path, stream
        finally:
            with contextlib.suppress(OSError):  # what could not be written was said already
                stream.close()


def write_interrupted(path: Path, head: Header) -> None:
    """The report of a run interrupted before it began (Pi or the implementation still
    starting): its header and a footer marked interrupted, and no result, so that CI finds a
    report that says what happened rather than none."""
    with report_file(path) as (where, stream):
        writer = ReportWriter(stream, head, where)
        writer.close(interrupted=True, allow_empty=True)
        close_report(stream, where)
    writer.raise_failure()


def close_report(stream: IO[bytes], path: Path) -> None:
    try:
        stream.close()
    except OSError as exc:
        raise ReportError(f"cannot write the report: {exc.strerror or exc}", path=path) \
            from None


def read_report(path: Path) -> Report:
    """Parse and verify a report stream; any inconsistency is a ReportError naming the line."""
    try:
        raw_lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise ReportError(f"cannot read: {exc.strerror}", path=path) from None
    head: Header | None = None
    results: list[StageResult] = []
    footer: Footer | None = None
    seen: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        try:
            line = jsonio.loads(raw)
        except jsonio.JSONDecodeError as exc:
            raise ReportError(f"not JSON: {exc.msg}", path=path, line=number) from None
        kind = line.get("type") if isinstance(line, dict) else None
        try:
            if head is None:
                head = Header.from_json(line)
            elif footer is not None:
                raise ReportError("content after the footer", path=path, line=number)
            elif kind == "result":
                result = StageResult.from_json(line)
                key = (result.case, result.stage)
                if key in seen:
                    raise ReportError(f"duplicate result for {key[0]} {key[1]} (first on "
                                      f"line {seen[key]})", path=path, line=number)
                seen[key] = number
                results.append(result)
            elif kind == "footer":
                footer = Footer.from_json(line)
                _check_footer(footer, results, path, number)
            else:
                raise ReportError(f"unknown line type {kind!r}", path=path, line=number)
        except ModelError as exc:
            raise ReportError(str(exc), path=path, line=number) from None
    if head is None:
        raise ReportError("empty report", path=path)
    if footer is None:
        raise ReportError("truncated: no footer (the run did not finish)", path=path)
    return Report(head, tuple(results), footer)


def _check_footer(footer: Footer, results: list[StageResult], path: Path, number: int) -> None:
    if footer.results != len(results):
        raise ReportError(f"footer counts {footer.results} results, the stream has "
                          f"{len(results)}", path=path, line=number)
    counted = Tally()
    for result in results:
        counted.add(result)
    for status, claimed in footer.counts.items():
        if claimed != counted.counts.get(status, 0):
            raise ReportError(f"footer counts {claimed} {status} results, the stream has "
                              f"{counted.counts.get(status, 0)}", path=path, line=number)
