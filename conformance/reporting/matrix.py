"""``pi-conformance matrix``: every known implementation on the same corpus, side by side.

For each registry entry (conformance/implementations/known) it installs the implementation
if need be, runs the corpus through the ordinary runner and writes that implementation's canonical
report (JSON lines, plus its Markdown rendering). It keeps every stage answer of Pi's own
releases on the side, so drift.py can say which releases agree with which on each case.
Then it writes the matrix: by implementation, by stage and by feature, as Markdown, HTML and
JSON (schemas/matrix.schema.json); every failure appears with its readable diff.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance import __version__, jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.stages import ALL_STAGES, stage_sort_key
from conformance.errors import ConformanceError
from conformance.implementations.known import KNOWN, Entry
from conformance.implementations.specs import known_implementation
from conformance.implementations.transports import Implementation
from conformance.judging.runner import RunSettings, Selection
from conformance.judging.verdicts import STATUSES, Status
from conformance.reporting import pages
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Report, SelectionInfo
from conformance.reporting.run import stream_run
from conformance.reporting.stream import read_report
from conformance.reporting.text import failure_lines

SCHEMA = "pi-conformance/matrix/1"
# The releases of Pi itself, whose answers the drift report compares.
PI_RELEASES = ("pi", "pi-mariozechner")


class Recording(Implementation):
    """Wraps an implementation and keeps every stage answer, keyed by case id."""

    def __init__(self, inner: Implementation):
        self.inner = inner
        self.spec = inner.spec
        self.answers: dict[str, dict[str, Any]] = {}

    def start(self) -> Any:
        self.hello = self.inner.start()
        return self.hello

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        return self._record(request, self.inner.run(request, timeout))

    @property
    def isolates_misbehaving(self) -> bool:  # type: ignore[override]
        return self.inner.isolates_misbehaving

    def run_isolated(self, request: dict[str, Any], timeout: float, *,
                     another_follows: bool = True) -> Any:
        return self._record(request, self.inner.run_isolated(
            request, timeout, another_follows=another_follows))

    def _record(self, request: dict[str, Any], answer: Any) -> Any:
        if isinstance(answer, dict) and isinstance(answer.get("results"), dict):
            self.answers.setdefault(request["case"]["id"], {}).update(answer["results"])
        return answer

    def restart(self) -> None:
        self.inner.restart()

    def close(self) -> None:
        self.inner.close()


@dataclass
class Column:
    """One implementation's run: its report, or why it could not run."""

    entry: Entry
    report: Report | None = None
    unavailable: str = ""
    install_seconds: float = 0.0
    run_seconds: float = 0.0
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.entry.spec

    @property
    def claimed(self) -> list[str]:
        return self.report.header.claimed_stages if self.report is not None else []


def report_name(entry: Entry) -> str:
    return entry.spec.replace("/", "_")


def corpus_identity(corpus: Corpus) -> CorpusIdentity:
    """The report header's corpus identity, with the root relative when it can be (published
    reports should not carry one machine's paths)."""
    identity = reports.corpus_identity(corpus)
    try:
        root = str(corpus.root.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        root = corpus.root.name
    return replace(identity, root=root)


def run_one(entry: Entry, corpus: Corpus, cases: list[Case], out_dir: Path,
            settings: RunSettings, keep_answers: bool,
            identity: CorpusIdentity | None = None) -> Column:
    """Install (if need be) and run one implementation; failures become ``unavailable``."""
    column = Column(entry)
    try:
        column.install_seconds = entry.install().seconds
        impl = Recording(known_implementation(entry))
    except ConformanceError as exc:
        column.unavailable = f"could not install: {exc.describe()}"
        return column
    path = out_dir / "implementations" / f"{report_name(entry)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        impl.start()
    except ConformanceError as exc:
        column.unavailable = f"could not start: {exc.describe()}"
        return column
    try:
        with path.open("wb") as stream, stream_run(
                [impl], corpus, stream, path=path, settings=settings, identity=identity
                or corpus_identity(corpus), selection=SelectionInfo(impl=entry.spec)) as run:
            run.run(cases, Selection())
    finally:
        impl.close()
    column.report = read_report(path)
    column.run_seconds = time.perf_counter() - started
    if keep_answers:
        column.answers = impl.answers
    return column


def run_matrix(corpus: Corpus, entries: Iterable[Entry], out_dir: Path, *,
               cases: list[Case] | None = None, settings: RunSettings | None = None,
               on_start: Callable[[Entry], None] | None = None) -> list[Column]:
    """Run ``cases`` (default: the whole corpus) through each entry in turn."""
    settings = settings or RunSettings()
    cases = list(corpus.cases) if cases is None else cases
    identity = corpus_identity(corpus)
    columns = []
    for entry in entries:
        if on_start is not None:
            on_start(entry)
        columns.append(run_one(entry, corpus, cases, out_dir, settings,
                               keep_answers=entry.name in PI_RELEASES, identity=identity))
    return columns


# ---------------------------------------------------------------------------------------------
# The matrix document


def _cell(counter: Counter[Status]) -> dict[str, int]:
    return {status: counter.get(status, 0) for status in STATUSES}


def matrix_data(corpus: Corpus, columns: list[Column],
                cases: list[Case] | None = None) -> dict[str, Any]:
    """The matrix as data (schemas/matrix.schema.json); Markdown and HTML render this."""
    cases = list(corpus.cases) if cases is None else cases
    features_of = {case.id: case.features for case in cases}
    implementations = []
    for column in columns:
        item: dict[str, Any] = {
            "key": column.key, "name": column.entry.name, "version": column.entry.version,
            "summary": column.entry.summary, "language": column.entry.language,
            "install_seconds": round(column.install_seconds, 1),
        }
        if column.report is None:
            item["unavailable"] = column.unavailable
            implementations.append(item)
            continue
        report = column.report
        by_stage: dict[str, Counter[Status]] = {}
        by_feature: dict[str, Counter[Status]] = {}
        for result in report.results:
            by_stage.setdefault(result.stage, Counter())[result.status] += 1
            for feature in features_of.get(result.case, ()):
                by_feature.setdefault(feature, Counter())[result.status] += 1
        item.update({
            "implementation": dict(report.implementation),
            "claimed_stages": column.claimed,
            "partial": report.header.capabilities.get("fields", {}),
            "run_seconds": round(column.run_seconds, 1),
            "report": f"implementations/{report_name(column.entry)}.jsonl",
            "counts": _cell(report.counts()),
            "stages": {s: _cell(c) for s, c in sorted(by_stage.items(),
                                                      key=lambda kv: stage_sort_key(kv[0]))},
            "features": {f: _cell(c) for f, c in sorted(by_feature.items())},
            "verdict": report.verdict,
            "failures": [{"case": r.case, "stage": r.stage, "status": r.status,
                          "lines": failure_lines(r)} for r in report.failures()],
        })
        implementations.append(item)
    return {
        "schema": SCHEMA,
        "runner": {"name": "pi-conformance", "version": __version__},
        "generated": reports.now(),
        "corpus": {"cases": len(cases), **{k: v for k, v in corpus_identity(corpus).to_json()
                                              .items() if k in ("root", "sha256", "reference")}},
        "stages": list(ALL_STAGES),
        "features": sorted({f for case in cases for f in case.features}),
        "implementations": implementations,
    }


def cell_text(cell: dict[str, int] | None, claimed: bool) -> str:
    """``passed/judged``, where judged excludes skips, info and as-documented results (none
    of them a failure); ``—`` when not claimed."""
    if cell is None or not claimed:
        return "—"
    judged = cell["pass"] + cell["fail"] + cell["error"]
    if judged == 0:
        if cell["skip"]:
            return "skip"
        return "info" if cell["info"] else ("as documented" if cell.get("as-documented")
                                            else "—")
    mark = "✅" if judged == cell["pass"] else "❌"
    return f"{mark} {cell['pass']}/{judged}"


def _rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]], list[list[str]],
                                         list[list[str]]]:
    """Header, the implementation rows, the stage rows and the feature rows, as text cells."""
    header = [i["key"] for i in data["implementations"]]
    impl_rows = []
    for item in data["implementations"]:
        if "unavailable" in item:
            impl_rows.append([item["key"], item["language"], "unavailable", "", "", "", "", "",
                              "", item["unavailable"].splitlines()[0][:120]])
            continue
        c = item["counts"]
        partial = "; partial: " + ", ".join(
            f"{s} ({', '.join(p)})" for s, p in item["partial"].items()) if item["partial"] else ""
        impl_rows.append([item["key"], item["language"], item["verdict"], str(c["pass"]),
                          str(c["fail"]), str(c["error"]), str(c["skip"]), str(c["info"]),
                          str(c.get("as-documented", 0)),
                          ", ".join(item["claimed_stages"]) + partial])
    stage_rows = []
    for stage in data["stages"]:
        row = [stage]
        for item in data["implementations"]:
            if "unavailable" in item:
                row.append("n/a")
            else:
                row.append(cell_text(item["stages"].get(stage), stage in item["claimed_stages"]))
        stage_rows.append(row)
    feature_rows = []
    for feature in data["features"]:
        row = [feature]
        for item in data["implementations"]:
            if "unavailable" in item:
                row.append("n/a")
            else:
                row.append(cell_text(item["features"].get(feature), True))
        feature_rows.append(row)
    return header, impl_rows, stage_rows, feature_rows


IMPL_COLUMNS = ["implementation", "language", "verdict", "pass", "fail", "error", "skip", "info",
                "as documented", "claimed stages"]


def _context(data: dict[str, Any]) -> dict[str, Any]:
    header, impl_rows, stage_rows, feature_rows = _rows(data)
    return {"data": data, "header": header, "impl_columns": IMPL_COLUMNS,
            "impl_rows": impl_rows, "stage_rows": stage_rows, "feature_rows": feature_rows,
            "pages_of": failure_pages}


def markdown(data: dict[str, Any]) -> str:
    return pages.page("matrix.md.jinja", **_context(data)).rstrip() + "\n"


def failure_pages(item: dict[str, Any]) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Per stage, the relative path of its failures page and the failures it lists."""
    pages: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for failure in item.get("failures", []):
        stage = failure["stage"]
        path = f"failures/{item['key'].replace('/', '_')}/{stage}.md"
        pages.setdefault(stage, (path, []))[1].append(failure)
    return dict(sorted(pages.items(), key=lambda kv: stage_sort_key(kv[0])))


def failure_page(item: dict[str, Any], stage: str, failures: list[dict[str, Any]]) -> str:
    lines = [line for failure in failures for line in failure["lines"]]
    return pages.page("matrix-failures.md.jinja", item=item, stage=stage, failures=failures,
                      lines=lines)


def html_page(data: dict[str, Any]) -> str:
    return pages.page("matrix.html.jinja", **_context(data))


def write_matrix(data: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "matrix.json", out_dir / "matrix.md", out_dir / "matrix.html"]
    written[0].write_text(jsonio.dumps_pretty(data), encoding="utf-8")
    written[1].write_text(markdown(data), encoding="utf-8")
    written[2].write_text(html_page(data), encoding="utf-8")
    failures_dir = out_dir / "failures"
    if failures_dir.is_dir():
        shutil.rmtree(failures_dir)  # pages of a previous run must not linger
    for item in data["implementations"]:
        for stage, (path, failures) in failure_pages(item).items():
            page = out_dir / path
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(failure_page(item, stage, failures), encoding="utf-8")
            written.append(page)
    return written


def select_entries(specs: Iterable[str]) -> list[Entry]:
    """The registry entries named by ``--impl`` values (all when none), in registry order."""
    from conformance.implementations.known import lookup

    specs = list(specs)
    if not specs:
        return list(KNOWN)
    chosen = []
    for spec in specs:
        entry = lookup("pi@1.6.0" if spec == "reference" else spec)
        if entry is None:
            raise ConformanceError(f"{spec!r} is not a known implementation; known: "
                                   + ", ".join(e.spec for e in KNOWN))
        chosen.append(entry)
    return [e for e in KNOWN if e in chosen]
