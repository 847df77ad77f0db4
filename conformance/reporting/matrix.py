"""``pi-conformance matrix``: every known implementation on the same corpus, side by side.

For each registry entry (conformance/implementations/known) it installs the implementation
if need be, runs the corpus through the ordinary runner and writes that implementation's canonical
report (JSON lines, plus its Markdown rendering). It keeps every stage answer of Pi's own
releases on the side, so drift.py can say which releases agree with which on each case.
Then it writes the matrix: by implementation, by stage and by feature, as Markdown, HTML and
JSON (schemas/matrix.schema.json); every failure appears with its readable diff.
"""

from __future__ import annotations

import html
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import __version__, jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.identity import corpus_identity as identity_of
from conformance.corpus.stages import ALL_STAGES, stage_sort_key
from conformance.errors import ConformanceError
from conformance.implementations.known import KNOWN, Entry
from conformance.implementations.specs import known_implementation
from conformance.implementations.transports import Implementation
from conformance.judging.baseline import counts_as_failure
from conformance.judging.runner import Runner, RunSettings, Selection, StageResult
from conformance.reporting import render
from conformance.reporting import stream as reports

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
        answer = self.inner.run(request, timeout)
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
    report: reports.Report | None = None
    unavailable: str = ""
    install_seconds: float = 0.0
    run_seconds: float = 0.0
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.entry.spec

    @property
    def claimed(self) -> list[str]:
        if self.report is None:
            return []
        stages = self.report.header.get("capabilities", {}).get("stages", [])
        return sorted(stages, key=stage_sort_key)


def report_name(entry: Entry) -> str:
    return entry.spec.replace("/", "_")


def corpus_identity(corpus: Corpus) -> dict[str, Any]:
    """The report header's corpus identity, with the root relative when it can be (published
    reports should not carry one machine's paths)."""
    identity = identity_of(corpus)
    try:
        identity["root"] = str(corpus.root.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        identity["root"] = corpus.root.name
    return identity


def run_one(entry: Entry, corpus: Corpus, cases: list[Case], out_dir: Path,
            settings: RunSettings, keep_answers: bool,
            identity: dict[str, Any] | None = None) -> Column:
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
        with path.open("wb") as stream:
            head = reports.header(
                implementation=impl.hello.implementation,
                capabilities=impl.hello.raw.get("capabilities", {}),
                corpus=identity or corpus_identity(corpus),
                selection={"cases": [], "features": [], "stages": [], "apis": [],
                           "impl": entry.spec},
            )
            writer = reports.ReportWriter(stream, head)

            def emit(result: StageResult) -> None:
                writer.add(result)

            Runner(corpus, settings).run([impl], cases, Selection(), emit)
            column.report = writer.close()
    finally:
        impl.close()
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


def _cell(counter: Counter[str]) -> dict[str, int]:
    return {status: counter.get(status, 0) for status in ("pass", "fail", "error", "skip", "info")}


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
        by_stage: dict[str, Counter[str]] = {}
        by_feature: dict[str, Counter[str]] = {}
        for result in report.results:
            by_stage.setdefault(result["stage"], Counter())[result["status"]] += 1
            for feature in features_of.get(result["case"], ()):
                by_feature.setdefault(feature, Counter())[result["status"]] += 1
        failures = [r for r in report.sorted_results() if counts_as_failure(r)]
        item.update({
            "implementation": report.implementation,
            "claimed_stages": column.claimed,
            "partial": report.header.get("capabilities", {}).get("fields", {}),
            "run_seconds": round(column.run_seconds, 1),
            "report": f"implementations/{report_name(column.entry)}.jsonl",
            "counts": _cell(report.counts()),
            "stages": {s: _cell(c) for s, c in sorted(by_stage.items(),
                                                      key=lambda kv: stage_sort_key(kv[0]))},
            "features": {f: _cell(c) for f, c in sorted(by_feature.items())},
            "verdict": "failed" if report.failed() else "passed",
            "failures": [{"case": r["case"], "stage": r["stage"], "status": r["status"],
                          "lines": render.failure_lines(r)} for r in failures],
        })
        implementations.append(item)
    return {
        "schema": SCHEMA,
        "runner": {"name": "pi-conformance", "version": __version__},
        "generated": reports.now(),
        "corpus": {"cases": len(cases), **{k: v for k, v in corpus_identity(corpus).items()
                                              if k in ("root", "sha256", "reference")}},
        "stages": list(ALL_STAGES),
        "features": sorted({f for case in cases for f in case.features}),
        "implementations": implementations,
    }


def cell_text(cell: dict[str, int] | None, claimed: bool) -> str:
    """``passed/judged``, where judged excludes skips and info; ``—`` when not claimed."""
    if cell is None or not claimed:
        return "—"
    judged = cell["pass"] + cell["fail"] + cell["error"]
    if judged == 0:
        return "skip" if cell["skip"] else ("info" if cell["info"] else "—")
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
                              item["unavailable"].splitlines()[0][:120]])
            continue
        c = item["counts"]
        partial = "; partial: " + ", ".join(
            f"{s} ({', '.join(p)})" for s, p in item["partial"].items()) if item["partial"] else ""
        impl_rows.append([item["key"], item["language"], item["verdict"], str(c["pass"]),
                          str(c["fail"]), str(c["error"]), str(c["skip"]), str(c["info"]),
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
                "claimed stages"]


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    out = ["| " + " | ".join(esc(h) for h in head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


def markdown(data: dict[str, Any]) -> str:
    header, impl_rows, stage_rows, feature_rows = _rows(data)
    out = ["# pi-conformance: implementations matrix", "",
           f"Generated {data['generated']} by pi-conformance {data['runner']['version']} on "
           f"{data['corpus']['cases']} case(s). Cells are passed/judged (skips and info results "
           "are not judged); — means the implementation does not claim the stage. "
           "See [drift.md](drift.md) for how Pi's own releases differ.", "",
           "## Implementations", ""]
    out += _md_table(IMPL_COLUMNS, impl_rows)
    out += ["", "## By stage", ""]
    out += _md_table(["stage", *header], stage_rows)
    out += ["", "## By feature", ""]
    out += _md_table(["feature", *header], feature_rows)
    out += ["", "## Failures", "",
            "Every failing or erroring result, with its diff, one page per implementation and "
            "stage (the same diffs are inline in [matrix.html](matrix.html)).", ""]
    for item in data["implementations"]:
        if "unavailable" in item:
            out += [f"### {item['key']}", "", "Not run: " + item["unavailable"], ""]
            continue
        out += [f"### {item['key']}", "",
                f"{item['summary']}. Full report: [{item['report']}]({item['report']}).", ""]
        pages = failure_pages(item)
        if not pages:
            out += ["No failures.", ""]
            continue
        out += [", ".join(f"[`{stage}`: {len(failures)}]({path})"
                          for stage, (path, failures) in pages.items()), ""]
    return "\n".join(out).rstrip() + "\n"


def failure_pages(item: dict[str, Any]) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Per stage, the relative path of its failures page and the failures it lists."""
    pages: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    for failure in item.get("failures", []):
        stage = failure["stage"]
        path = f"failures/{item['key'].replace('/', '_')}/{stage}.md"
        pages.setdefault(stage, (path, []))[1].append(failure)
    return dict(sorted(pages.items(), key=lambda kv: stage_sort_key(kv[0])))


def failure_page(item: dict[str, Any], stage: str, failures: list[dict[str, Any]]) -> str:
    out = [f"# {item['key']}: `{stage}` failures", "",
           f"{len(failures)} failing result(s) of {item['summary']}, each with the JSON paths "
           "that differ and both values (expected: what Pi 1.6.0 wrote; actual: this "
           "implementation). Back to the [matrix](../../matrix.md).", "", "```"]
    for failure in failures:
        out += failure["lines"]
    out += ["```"]
    return "\n".join(out) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:90em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em}
th{background:#f4f4f4;text-align:left}td.ok{background:#e8f7e8}td.bad{background:#fbe6e6}
pre{background:#f8f8f8;padding:1em;overflow-x:auto}"""


def _html_table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = []
        for text in row:
            css = ' class="ok"' if text.startswith("✅") else (
                ' class="bad"' if text.startswith("❌") else "")
            cells.append(f"<td{css}>{html.escape(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return out


def html_page(data: dict[str, Any]) -> str:
    header, impl_rows, stage_rows, feature_rows = _rows(data)
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>pi-conformance: implementations matrix</title>",
           f"<style>{_CSS}</style></head><body>",
           "<h1>pi-conformance: implementations matrix</h1>",
           f"<p>Generated {html.escape(data['generated'])} on {data['corpus']['cases']} case(s). "
           "Cells are passed/judged; — means the stage is not claimed. "
           '<a href="drift.md">Drift between Pi releases</a>.</p>',
           "<h2>Implementations</h2>"]
    out += _html_table(IMPL_COLUMNS, impl_rows)
    out += ["<h2>By stage</h2>", *_html_table(["stage", *header], stage_rows)]
    out += ["<h2>By feature</h2>", *_html_table(["feature", *header], feature_rows)]
    out.append("<h2>Failures</h2>")
    for item in data["implementations"]:
        out.append(f"<h3>{html.escape(item['key'])}</h3>")
        if "unavailable" in item:
            out.append(f"<p>Not run: {html.escape(item['unavailable'])}</p>")
            continue
        report = html.escape(item["report"])
        out.append(f"<p>{html.escape(item['summary'])}. Full report: "
                   f'<a href="{report}">{report}</a>.</p>')
        if not item["failures"]:
            out.append("<p>No failures.</p>")
            continue
        out.append(f"<details><summary>{len(item['failures'])} failing result(s)</summary><pre>")
        for failure in item["failures"]:
            out.append(html.escape("\n".join(failure["lines"])))
        out.append("</pre></details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


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
