"""The implementations matrix as a document: every known implementation's run side by side,
by implementation, by stage and by feature, as Markdown, HTML and JSON
(schemas/matrix.schema.json); every failure appears with its readable diff.

The runs themselves are ``execution/matrix.py``'s (the one executor, once per known
implementation); this module only renders the ``Column``s they give.
"""

from __future__ import annotations

import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance import __version__, jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.stages import ALL_STAGES, stage_sort_key
from conformance.files import replace_text
from conformance.judging.results import STATUSES, Status
from conformance.reporting import pages
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Report
from conformance.reporting.text import failure_lines

SCHEMA = "pi-conformance/matrix/1"
# The releases of Pi itself, whose answers the drift report compares.
PI_RELEASES = ("pi", "pi-mariozechner")


@dataclass
class Column:
    """One implementation's run: its report, or why it could not run."""

    key: str  # its --impl spec
    name: str
    version: str
    summary: str
    language: str
    report: Report | None = None
    unavailable: str = ""
    install_seconds: float = 0.0
    run_seconds: float = 0.0
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def claimed(self) -> list[str]:
        return self.report.header.claimed_stages if self.report is not None else []


def report_name(key: str) -> str:
    return key.replace("/", "_")


def portable_corpus_identity(corpus: Corpus) -> CorpusIdentity:
    """The report header's corpus identity, with the root relative when it can be (published
    reports should not carry one machine's paths)."""
    identity = reports.corpus_identity(corpus)
    try:
        root = str(corpus.root.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        root = corpus.root.name
    return replace(identity, root=root)


# ---------------------------------------------------------------------------------------------
# The matrix document


def _cell(counter: Counter[Status]) -> dict[str, int]:
    return {status: counter.get(status, 0) for status in STATUSES}


def matrix_data(corpus: Corpus, columns: list[Column], cases: list[Case] | None = None, *,
                closest: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The matrix as data (schemas/matrix.schema.json); Markdown and HTML render this.
    ``closest``: each port's closest Pi release (closest_release.py), when several ran."""
    cases = list(corpus.cases) if cases is None else cases
    features_of = {case.id: case.features for case in cases}
    implementations = []
    for column in columns:
        item: dict[str, Any] = {
            "key": column.key, "name": column.name, "version": column.version,
            "summary": column.summary, "language": column.language,
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
            "report": f"implementations/{report_name(column.key)}.jsonl",
            "counts": _cell(report.counts()),
            "stages": {s: _cell(c) for s, c in sorted(by_stage.items(),
                                                      key=lambda kv: stage_sort_key(kv[0]))},
            "features": {f: _cell(c) for f, c in sorted(by_feature.items())},
            "verdict": report.verdict,
            "failures": [{"case": r.case, "stage": r.stage, "status": r.status,
                          "lines": failure_lines(r)} for r in report.failures()],
        })
        if closest and column.key in closest:
            item["closest_release"] = closest[column.key]
        implementations.append(item)
    return {
        "schema": SCHEMA,
        "runner": {"name": "pi-conformance", "version": __version__},
        "generated": reports.now(),
        "corpus": {"cases": len(cases),
                   **{k: v for k, v in portable_corpus_identity(corpus).to_json().items()
                      if k in ("root", "sha256", "reference")}},
        "stages": list(ALL_STAGES),
        "features": sorted({f for case in cases for f in case.features}),
        "implementations": implementations,
    }


# Words, not emoji: a matrix page is read in CI logs and browsers without an emoji font, where
# ✅ and ❌ were empty boxes.
PASSED_MARK = "pass"
FAILED_MARK = "FAIL"


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
    mark = PASSED_MARK if judged == cell["pass"] else FAILED_MARK
    return f"{mark} {cell['pass']}/{judged}"


def _rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]], list[list[str]],
                                         list[list[str]]]:
    """Header, the implementation rows, the stage rows and the feature rows, as text cells."""
    header = [i["key"] for i in data["implementations"]]
    impl_rows = []
    for item in data["implementations"]:
        if "unavailable" in item:
            impl_rows.append([item["key"], item["language"], "unavailable", "", "", "", "", "",
                              "", "", item["unavailable"].splitlines()[0][:120]])
            continue
        c = item["counts"]
        partial = "; partial: " + ", ".join(
            f"{s} ({', '.join(p)})" for s, p in item["partial"].items()) if item["partial"] else ""
        impl_rows.append([item["key"], item["language"], item["verdict"], str(c["pass"]),
                          str(c["fail"]), str(c["error"]), str(c["skip"]), str(c["info"]),
                          str(c.get("as-documented", 0)), _closest_text(item),
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
                "as documented", "closest release", "claimed stages"]


def _closest_text(item: dict[str, Any]) -> str:
    """``pi@1.3.0 (812/900 equal)``: the release a port answers like most often."""
    closest = item.get("closest_release")
    if not closest:
        return ""
    return f"{closest['release']} ({closest['equal']}/{closest['compared']} equal)"


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
    replace_text(written[0], jsonio.dumps_pretty(data))
    replace_text(written[1], markdown(data))
    replace_text(written[2], html_page(data))
    failures_dir = out_dir / "failures"
    if failures_dir.is_dir():
        shutil.rmtree(failures_dir)  # pages of a previous run must not linger
    for item in data["implementations"]:
        for stage, (path, failures) in failure_pages(item).items():
            page = out_dir / path
            page.parent.mkdir(parents=True, exist_ok=True)
            replace_text(page, failure_page(item, stage, failures))
            written.append(page)
    return written
