"""Discrepancy records: what Pi's docs claim, what Pi does, and a check that tells them apart.

One TOML file per record in ``corpus/discrepancies/`` (schema:
``schemas/discrepancy-record.schema.json``). Each names the doc clause (file, section, quote),
the corpus cases that show Pi's behaviour, and a ``[check]``: a stage, a JSON path into that
stage's output, the value the doc implies and the value Pi gave. ``evaluate`` re-decides,
from a golden or from a fresh answer of the real Pi and from the docs Pi ships, whether the
discrepancy is still open or has been resolved, by Pi's behaviour or by its docs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus import jsonpath
from conformance.corpus.cases import Corpus, read_toml
from conformance.errors import CorpusError
from conformance.judging.comparison import differences
from conformance.maintenance.discrepancies.shipped_docs import ShippedDocs


@dataclass(frozen=True)
class Record:
    id: str
    title: str
    kind: str
    package: str
    summary: str
    cases: tuple[str, ...]
    doc: dict[str, Any]
    check: dict[str, Any]
    path: Path
    clauses: tuple[str, ...] = ()
    issue: str = ""
    resolved: dict[str, Any] | None = None

    @property
    def doc_value(self) -> Any:
        return _value(self.check, "doc")

    @property
    def pi_value(self) -> Any:
        return _value(self.check, "pi")


def _value(check: dict[str, Any], prefix: str) -> Any:
    if f"{prefix}_json" in check:
        return jsonio.loads(check[f"{prefix}_json"])
    return check[f"{prefix}_value"]


@cache
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(
        jsonio.read_json(SCHEMA_DIR / "discrepancy-record.schema.json"))


def records_dir(corpus: Corpus) -> Path:
    return corpus.root / "discrepancies"


def load_record(path: Path) -> Record:
    data = read_toml(path)
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = ".".join(str(p) for p in errors[0].path) or "(top level)"
        raise CorpusError(f"invalid discrepancy record at {where}: {errors[0].message}", path=path)
    if data["id"] != path.stem:
        raise CorpusError(f"record id {data['id']!r} must equal the file name {path.stem!r}",
                          path=path)
    for prefix in ("doc", "pi"):
        if f"{prefix}_json" in data["check"]:
            try:
                jsonio.loads(data["check"][f"{prefix}_json"])
            except ValueError as exc:
                raise CorpusError(f"check.{prefix}_json is not JSON: {exc}", path=path) from None
    try:
        jsonpath.parse(data["check"]["path"])
    except CorpusError:
        raise
    except Exception as exc:
        raise CorpusError(f"check.path: {exc}", path=path) from None
    return Record(
        id=data["id"], title=data["title"], kind=data["kind"], package=data["package"],
        summary=data["summary"].strip(), cases=tuple(data["cases"]), doc=data["doc"],
        check=data["check"], path=path, clauses=tuple(data.get("clauses", ())),
        issue=data.get("issue", ""), resolved=data.get("resolved"),
    )


def load_records(corpus: Corpus) -> list[Record]:
    """Every record, sorted by id; a malformed one is a CorpusError naming its file."""
    directory = records_dir(corpus)
    if not directory.is_dir():
        return []
    return sorted((load_record(p) for p in sorted(directory.glob("*.toml"))), key=lambda r: r.id)


def lint(corpus: Corpus, records: list[Record]) -> list[CorpusError]:
    """Records that cite a case, stage or clause the corpus does not have."""
    problems = []
    cases = {case.id: case for case in corpus.cases}
    for record in records:
        for case_id in {*record.cases, record.check["case"]}:
            if case_id not in cases:
                problems.append(CorpusError(f"unknown case {case_id!r}", path=record.path))
        if record.check["case"] not in record.cases:
            problems.append(CorpusError("check.case must be one of cases", path=record.path))
        case = cases.get(record.check["case"])
        if case is not None and record.check["stage"] not in case.stages:
            problems.append(CorpusError(
                f"case {case.id} has no stage {record.check['stage']!r}", path=record.path))
        for clause in record.clauses:
            if clause not in corpus.clauses:
                problems.append(CorpusError(f"unknown clause {clause!r}", path=record.path))
    return problems


@dataclass
class Verdict:
    """What one evaluation found. ``status`` is open or resolved; ``how`` says by what."""

    record: str
    status: str
    behaviour: str  # as-recorded | matches-doc | changed
    docs: str  # claims | withdrawn | silent | documented
    version: str
    observed: Any
    source: str  # golden | reference
    how: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        """Pi now answers something that is neither what was recorded nor what the doc says."""
        return self.behaviour == "changed"

    def to_json(self) -> dict[str, Any]:
        data = {"status": self.status, "behaviour": self.behaviour, "docs": self.docs,
                "version": self.version, "observed": _jsonable(self.observed),
                "source": self.source}
        if self.how:
            data["how"] = self.how
        if self.notes:
            data["notes"] = self.notes
        return data


def _jsonable(value: Any) -> Any:
    return None if value is jsonpath.MISSING else value


def _same(expected: Any, actual: Any) -> bool:
    if expected is jsonpath.MISSING or actual is jsonpath.MISSING:
        return expected is actual
    return not differences(expected, actual, frozenset())


def evaluate(record: Record, output: Any, docs: ShippedDocs, source: str) -> Verdict:
    """Decide the record's status from Pi's stage ``output`` and the docs Pi ships."""
    observed = jsonpath.get(output, record.check["path"])
    if _same(record.doc_value, observed):
        behaviour = "matches-doc"
    elif _same(record.pi_value, observed):
        behaviour = "as-recorded"
    else:
        behaviour = "changed"
    notes = []
    doc = record.doc
    if record.kind == "undocumented-rule":
        text = docs.text(doc["file"]) or ""
        found = [m for m in doc.get("mentions", ())
                 if docs.section_mentions(doc["file"], doc["section"], m)]
        docs_state = "documented" if found else "silent"
        if found:
            notes.append(f"{doc['file']} ({doc['section']}) now mentions "
                         f"{', '.join(map(repr, found))}")
        if not text:
            notes.append(f"{doc['file']} is not shipped in {docs.version}")
    else:
        docs_state = "claims" if docs.contains(doc["file"], doc["quote"]) else "withdrawn"
        if docs_state == "withdrawn":
            notes.append(f"the quoted claim is no longer in {doc['file']} as shipped in "
                         f"{docs.version}")
    if behaviour == "changed":
        notes.append(f"Pi {docs.version} answers {_jsonable(observed)!r} at "
                     f"{record.check['path']}, which is neither the recorded value nor the "
                     "documented one: review the record")
    how = None
    if behaviour == "matches-doc":
        how = "behaviour"
    elif docs_state in ("withdrawn", "documented"):
        how = "docs"
    return Verdict(record=record.id, status="resolved" if how else "open", behaviour=behaviour,
                   docs=docs_state, version=docs.version, observed=observed, source=source,
                   how=how, notes=notes)


def expectation_problem(record: Record, verdict: Verdict) -> str | None:
    """Why a verdict disagrees with what the record expects (its ``[resolved]`` table)."""
    if verdict.stale:
        return f"{record.id}: Pi's answer changed; {verdict.notes[-1]}"
    if record.resolved is None and verdict.status == "resolved":
        return (f"{record.id}: no longer reproduces: resolved by {verdict.how} in "
                f"{verdict.version}; add [resolved] version = \"{verdict.version}\", "
                f"how = \"{verdict.how}\" to {record.path.name}")
    if record.resolved is not None and verdict.status == "open":
        return f"{record.id}: marked resolved in {record.resolved['version']} but reproduces again"
    return None
