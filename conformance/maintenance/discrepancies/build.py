"""``pi-conformance discrepancies``: regenerate every draft from data, optionally re-verifying.

Records about Pi are evaluated against their goldens (or, with ``verify``, against a fresh run
of the real Pi) and the docs in the installed package. Failures in reports are grouped into
root causes by reproduction (``causes.analyse``: one draft per independent defect, each with a
reproducer shrunk against the implementation and the reference), by path where reproduction
cannot reach; an implementation's drafts are reused from the previous index when its failures
and their inputs have not changed. With ``verify`` every
reproducer is run again and one that no longer shows its discrepancy is marked resolved with
the version that fixed it, and counted as a problem.
"""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus import http_responses
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.stages import RESPONSE_PREFIX, is_response, stage_sort_key
from conformance.errors import ConformanceError, CorpusError
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.execution.runner import Limits
from conformance.execution.sessions import SessionJudge
from conformance.files import replace_text
from conformance.implementations.specs import resolve
from conformance.maintenance.discrepancies import causes, drafts, grouping, records
from conformance.maintenance.discrepancies.shipped_docs import DOCS_PACKAGE, ShippedDocs
from conformance.maintenance.discrepancies.shrink import Atom, Oracle, shrink, verdict_signature

# Pi answers a case in well under a second; a shrink candidate on which it hangs (a cycle of
# duplicate ids, say) is not worth the implementation's full timeout.
REFERENCE_TIMEOUT = 10.0


@dataclass
class Settings:
    corpus: Corpus
    reports: Path
    out: Path
    verify: bool = False
    impl_specs: dict[str, str] = field(default_factory=dict)  # target key or name -> spec
    max_tests: int = 400
    max_shrinks: int = 40  # per implementation: see causes.analyse
    timeout: float = 30.0
    say: Callable[[str], None] = lambda message: None


@dataclass
class Outcome:
    index: dict[str, Any]
    problems: list[str]
    written: list[Path]


def build(settings: Settings) -> Outcome:
    corpus = settings.corpus
    all_records = records.load_records(corpus)
    lint = records.lint(corpus, all_records)
    if lint:
        raise lint[0]
    docs = ShippedDocs.of_reference()
    previous = _Previous(settings.out)
    problems: list[str] = []
    entries: list[dict[str, Any]] = []
    with _Processes(settings) as processes:
        report_paths = grouping.find_reports(settings.reports, exclude=[settings.out]) \
            if settings.reports.is_dir() else []
        skipped: list[str] = []
        targets = grouping.load_targets(report_paths, skipped)
        for reason in skipped:
            settings.say(f"skipped a report: {reason}")
        older = [t for t in targets.values() if is_older_pi(t, docs.version)]
        for record in all_records:
            entry = _record_entry(record, corpus, docs, settings, processes, problems)
            _add_older_releases(entry, record, older)
            entries.append(entry)
        for target in targets.values():
            entries.extend(_target_entries(target, corpus, settings, processes, previous,
                                           docs, problems))
    index = {
        "schema": drafts.SCHEMA,
        "generated_by": "pi-conformance discrepancies",
        "reference": {DOCS_PACKAGE: docs.version},
        "reports": [str(p) for p in report_paths],
        "skipped_reports": skipped,
        "discrepancies": entries,
    }
    written = _write(settings.out, index)
    return Outcome(index, problems, written)


# -- Pi against its docs ---------------------------------------------------------------------

def _record_entry(record: records.Record, corpus: Corpus, docs: ShippedDocs, settings: Settings,
                  processes: _Processes, problems: list[str]) -> dict[str, Any]:
    case = _case(corpus, record.check["case"])
    stage = record.check["stage"]
    golden = read_golden(case, stage).result.get("output")
    if settings.verify:
        settings.say(f"verifying {record.id} against the real Pi")
        fresh = processes.reference_session().answer(case, [stage])[stage].get("output")
        verdict = records.evaluate(record, fresh, docs, "reference")
    else:
        verdict = records.evaluate(record, golden, docs, "golden")
    # The draft shows the golden: the same answer of the real Pi, with the ids it generated
    # when the golden was written, so that verifying does not rewrite the draft.
    output = golden
    problem = records.expectation_problem(record, verdict)
    if problem and (settings.verify or verdict.stale):
        problems.append(problem)
    status, how, version = verdict.status, verdict.how, verdict.version
    if record.resolved and verdict.status == "resolved":
        version = record.resolved["version"]
    draft = f"pi/{record.id}.md"
    return {
        "id": record.id,
        "target": "pi",
        "kind": record.kind,
        "title": record.title,
        "status": status,
        "resolved_in": version if status == "resolved" else None,
        "resolved_how": how,
        "package": {"name": record.package, "versions": [docs.version],
                    "issues": "https://github.com/earendil-works/pi/issues"},
        "stages": [stage],
        "cases": list(record.cases),
        "clauses": list(record.clauses),
        "issue": record.issue,
        "summary": record.summary,
        "doc": record.doc,
        "check": {**record.check, "doc_value": record.doc_value, "pi_value": record.pi_value},
        "expected_source": {"kind": "doc", "file": record.doc["file"],
                            "section": record.doc["section"],
                            "release": record.doc.get("release", docs.version)},
        "observed": {"version": verdict.version,
                     "value": verdict.to_json()["observed"], "behaviour": verdict.behaviour,
                     "docs": verdict.docs, "output": output},
        "notes": verdict.notes + ([record.resolved["note"]]
                                  if record.resolved and record.resolved.get("note") else []),
        "reproducer": {"session": case.session_bytes().decode("utf-8", errors="replace"),
                       "lines": len(case.session_bytes().splitlines()),
                       "source_case": case.id, "shrunk": False,
                       "input_sha256": case.input_sha256()},
        "commands": [
            "pip install pi-conformance && pi-conformance reference install",
            f"pi-conformance regenerate {shlex.quote(case.id)}   # the golden, from the real Pi",
            "pi-conformance discrepancies --verify   # re-checks this record",
        ],
        "draft": draft,
    }


def _add_older_releases(entry: dict[str, Any], record: records.Record,
                        older: list[grouping.Target]) -> None:
    """Which older Pi releases in the reports behave like the reference on the record's check:
    they pass its case and stage, so the discrepancy is theirs too."""
    key = (record.check["case"], record.check["stage"])
    for target in older:
        result = target.results[target.latest].get(key)
        if result is None or result.status == "skip":
            continue
        label = f"{target.name} {target.latest}"
        if result.status == "pass":
            if target.name == DOCS_PACKAGE:
                entry["package"]["versions"].append(target.latest)
            entry["notes"].append(f"{label} behaves the same (matrix report).")
        else:
            entry["notes"].append(f"{label} behaves differently here (matrix report: "
                                  f"{result.status}).")
    entry["package"]["versions"] = sorted(set(entry["package"]["versions"]),
                                          key=grouping.version_key)


def _case(corpus: Corpus, case_id: str) -> Case:
    for case in corpus.cases:
        if case.id == case_id:
            return case
    raise CorpusError(f"no case {case_id!r}", path=corpus.root)


# -- implementations against Pi --------------------------------------------------------------

def _target_entries(target: grouping.Target, corpus: Corpus, settings: Settings,
                    processes: _Processes, previous: _Previous, docs: ShippedDocs,
                    problems: list[str]) -> list[dict[str, Any]]:
    """One draft per root cause of ``target``'s failures, found by reproduction
    (``causes.analyse``); by path (``grouping.root_causes``) for what reproduction cannot
    reach: the implementation does not start, a case is not in this corpus, a failure does
    not show now, the shrink budget is spent.

    An analysis of the same failures on the same inputs is reused from the previous index
    (with ``verify``, every reused reproducer is judged again)."""
    cases = {c.id: c for c in corpus.cases}
    items = [(version, result) for version in sorted(target.versions, key=grouping.version_key)
             for result in target.results[version].values() if result.failing]
    digest = causes.digest(target.key, items, cases)
    prior = previous.analysed(target.key, digest)
    if prior and not settings.verify:
        return prior
    try:
        judge = processes.judge(target, settings)
    except ConformanceError:
        judge = None
    if judge is None:
        found = [_failure_entry(cause, corpus, settings, processes, previous, docs, problems)
                 for cause in grouping.root_causes(target)]
        return merge_same_reproduction(found)
    if prior:
        return [_reverify(entry, judge, problems) for entry in prior]
    analysis = causes.analyse(items, cases, Oracle(judge, whole=True),
                              max_tests=settings.max_tests, max_shrinks=settings.max_shrinks,
                              say=settings.say, label=target.key)
    for note in analysis.notes:
        settings.say(note)
    entries = [_cause_entry(cause, target, judge, settings, docs) for cause in analysis.causes]
    if analysis.unexplained:
        rest = _without_explained(target, analysis)
        found = [_failure_entry(cause, corpus, settings, processes, previous, docs, problems)
                 for cause in grouping.root_causes(rest)]
        entries += merge_same_reproduction(found)
    for entry in entries:
        entry["analysis"] = digest
    return sorted(entries, key=lambda e: (stage_sort_key(e["stages"][0]), e["id"]))


def _without_explained(target: grouping.Target, analysis: causes.Analysis) -> grouping.Target:
    """``target`` with only the failing results no cause explained (passes kept, so that a
    newer version passing them still marks them resolved)."""
    explained = {id(r) for cause in analysis.causes for r in cause.results}
    left = {id(r) for _, r in analysis.unexplained}
    rest = grouping.Target(key=target.key, name=target.name, versions=list(target.versions),
                           specs=dict(target.specs),
                           implementations=dict(target.implementations),
                           reports=dict(target.reports))
    for version, results in target.results.items():
        rest.results[version] = {k: r for k, r in results.items()
                                 if not r.failing or id(r) in left or id(r) not in explained}
    return rest


def _cause_entry(cause: causes.Cause, target: grouping.Target, judge: SessionJudge,
                 settings: Settings, docs: ShippedDocs) -> dict[str, Any]:
    """The draft of a cause found by reproduction: its reproducer is already minimal and
    judged; what both sides answered on it is asked once more for the draft."""
    atom = cause.made_for
    key = causes.key(target.key, cause)
    what = atom.path.replace("[*]", "").strip("$.") or atom.kind
    cause_id = f"{grouping.slug(atom.stage)}-{grouping.slug(what, 32)}-{key[:6]}"
    versions = sorted(cause.versions, key=grouping.version_key)
    signatures = cause.signatures()
    shown = grouping.RootCause(target=target, stages=sorted(signatures, key=stage_sort_key),
                               signatures=signatures, cases=cause.cases,
                               failures=cause.results, versions=versions)
    shrunk = cause.shrunk
    text = shrunk.text
    judged = judge.judge(text.encode("utf-8"), (atom.stage,))
    impl_info = target.implementation
    version = judge.implementation.hello.version
    entry: dict[str, Any] = {
        "id": cause_id,
        "key": key,
        "target": target.key,
        "kind": "implementation-failure",
        "title": f"{target.name}: {_cause_words(cause, shown)}",
        "status": "open",
        "resolved_in": None,
        "resolved_how": None,
        "package": {"name": target.name, "versions": versions,
                    "issues": impl_info.get("issues", ""),
                    "homepage": impl_info.get("homepage", ""), "spec": target.spec},
        "stages": cause.stages,
        "cases": cause.cases,
        "signature": sorted([list(item) for item in signatures.get(atom.stage, ())]),
        "expected_source": {"kind": "pi-output", "version": docs.version},
        "differences": [d.to_json() for d in (judged[0].differences if judged else ())],
        "message": judged[0].message if judged and judged[0].status == "error" else "",
        "draft": f"{target.key}/{cause_id}.md",
        "reproducer": {
            "session": text, "lines": shrunk.lines, "source_case": cause.source.id,
            "input_sha256": cause.source.input_sha256(),
            "original_lines": shrunk.original_lines, "shrunk": True,
            "made_for": {"stage": atom.stage, "path": atom.path, "kind": atom.kind},
            "signature": sorted([list(item) for item in signatures.get(atom.stage, ())]),
            "shows": sorted([[a.stage, a.path, a.kind] for a in cause.atoms]),
            "tests": shrunk.tests, "verified": True, "version": version},
        "outputs": {"expected": judge.pi_answer(atom.stage),
                    "actual": judge.last_answers.get(
                        atom.stage, {"error": {"message": "no answer"}})},
    }
    if is_older_pi(target, docs.version):
        entry.update(status="resolved", resolved_in=docs.version, resolved_how="behaviour")
        entry["notes"] = [f"{target.name} {', '.join(versions)} is an older Pi; Pi "
                          f"{docs.version} (the reference) no longer behaves this way. The "
                          "draft documents release drift for readers of files that older "
                          "releases wrote."]
    entry["commands"] = _failure_commands(entry, cause.source, settings.out)
    return entry


def _cause_words(cause: causes.Cause, shown: grouping.RootCause) -> str:
    """What the cause does (``grouping.describe``), on which stages, and with what input."""
    words = grouping.describe(shown)
    if len(shown.stages) > 1:
        words += f" (and {len(shown.stages) - 1} later stage(s))"
    kinds = sorted({kind if role in ("None", "") else f"{kind} ({role})"
                    for kind, role, _ in cause.trigger if not kind.startswith("<")})
    if kinds:
        words += f", with a {' and a '.join(kinds)} entry"
    return words


def _reverify(entry: dict[str, Any], judge: SessionJudge, problems: list[str]) -> dict[str, Any]:
    """A reused draft whose reproducer is judged again: resolved if it no longer shows what
    it was made for."""
    made = entry.get("reproducer", {}).get("made_for")
    if not made or entry["status"] != "open":
        return entry
    atom = Atom(made["stage"], made["path"], made["kind"])
    if Oracle(judge).shows(entry["reproducer"]["session"], atom):
        return entry
    version = judge.implementation.hello.version
    entry.update(status="resolved", resolved_in=version, resolved_how="behaviour")
    entry["reproducer"] = {**entry["reproducer"], "verified": False}
    problems.append(f"{entry['target']}/{entry['id']}: no longer reproduces with "
                    f"{entry['package']['name']} {version}: resolved in {version}")
    return entry


def _failure_entry(cause: grouping.RootCause, corpus: Corpus, settings: Settings,
                   processes: _Processes, previous: _Previous,
                   docs: ShippedDocs, problems: list[str]) -> dict[str, Any]:
    target = cause.target
    impl_info = target.implementation
    cases = {c.id: c for c in corpus.cases}
    known = [cases[c] for c in cause.cases if c in cases]
    source = min(known, key=_reproducer_preference) if known else None
    failure = cause.failure(source.id if source else cause.cases[0]) or cause.failures[0]
    entry: dict[str, Any] = {
        "id": cause.id,
        "key": cause.key,
        "target": target.key,
        "kind": "implementation-failure",
        "title": _failure_title(cause),
        "status": "resolved" if cause.resolved_in else "open",
        "resolved_in": cause.resolved_in,
        "resolved_how": "behaviour" if cause.resolved_in else None,
        "package": {"name": target.name, "versions": cause.versions,
                    "issues": impl_info.get("issues", ""),
                    "homepage": impl_info.get("homepage", ""), "spec": target.spec},
        "stages": cause.stages,
        "cases": cause.cases,
        "signature": sorted([list(item) for item in cause.signatures[cause.stage]]),
        "expected_source": {"kind": "pi-output", "version": docs.version},
        "differences": [d.to_json() for d in failure.differences],
        "message": failure.message if failure.status == "error" else "",
        "draft": f"{target.key}/{cause.id}.md",
    }
    cached = previous.by_key.get(cause.key) or {}
    fresh_input = source is not None and bool(cached) and \
        cached.get("reproducer", {}).get("input_sha256") == source.input_sha256() and \
        cached["package"]["versions"] == cause.versions
    if source is None:
        entry["reproducer"] = {"session": "", "lines": 0, "source_case": cause.cases[0],
                               "shrunk": False, "reason": "the case is not in this corpus"}
    elif fresh_input and not settings.verify:
        entry["reproducer"] = cached["reproducer"]
        for key in ("differences", "outputs", "message"):
            if key in cached:
                entry[key] = cached[key]
    else:
        _reproduce(entry, cause, source, corpus, settings, processes,
                   cached if fresh_input else None, problems)
    if entry["status"] == "open" and is_older_pi(target, docs.version):
        # The reference is Pi's newest release: what an older Pi does differently is drift
        # that the newer release no longer shows, i.e. resolved in the reference's version.
        entry.update(status="resolved", resolved_in=docs.version, resolved_how="behaviour")
        entry["notes"] = [f"{target.name} {', '.join(cause.versions)} is an older Pi; Pi "
                          f"{docs.version} (the reference) no longer behaves this way. The "
                          "draft documents release drift for readers of files that older "
                          "releases wrote."]
    entry["commands"] = _failure_commands(entry, source, settings.out)
    return entry


PI_PACKAGES = (DOCS_PACKAGE, "@mariozechner/pi-coding-agent")  # the package and its old name


def is_older_pi(target: grouping.Target, reference_version: str) -> bool:
    """Is ``target`` an earlier release of Pi itself (by package name, or by what it wraps)?"""
    names = {target.name, *target.implementation.get("dependencies", {})}
    if not names & set(PI_PACKAGES):
        return False
    return grouping.version_key(target.latest) < grouping.version_key(reference_version)


_REUSED = ("key", "package", "reproducer", "differences", "outputs", "message")


def _reproducer_preference(case: Case) -> tuple[bool, int, str]:
    """The smallest session, but one with a header and an entry: an empty file (which Pi fills
    with a fresh header) reproduces many request-level bugs and explains none of them."""
    session = case.session_bytes()
    return (len(session.splitlines()) < 2, len(session), case.id)


def merge_same_reproduction(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One draft per root cause: groups whose shrunk reproducers fail the same way merge.

    Report signatures differ with the case (a longer session shows more consequences of one
    bug); the signature of the minimal reproducer is what the bug itself looks like.
    """
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    out = []
    for entry in sorted(entries, key=lambda e: (e["reproducer"].get("lines", 0), e["id"])):
        signature = entry["reproducer"].get("signature")
        key = (entry["stages"][0], entry["status"], json.dumps(signature)) if signature else None
        if key is None or key not in merged:
            if key is not None:
                merged[key] = entry
            out.append(entry)
            continue
        keep = merged[key]
        keep["cases"] = sorted({*keep["cases"], *entry["cases"]})
        keep["stages"] = sorted({*keep["stages"], *entry["stages"]}, key=stage_sort_key)
        keep["package"]["versions"] = sorted(
            {*keep["package"]["versions"], *entry["package"]["versions"]},
            key=grouping.version_key)
        keep.setdefault("merged_keys", []).extend([entry["key"], *entry.get("merged_keys", [])])
        # What the merged-away cause found, so the next run can reuse it instead of shrinking.
        keep.setdefault("merged", []).extend([
            {k: entry[k] for k in _REUSED if k in entry}, *entry.get("merged", [])])
    return sorted(out, key=lambda e: (stage_sort_key(e["stages"][0]), e["id"]))


def _failure_title(cause: grouping.RootCause) -> str:
    """``port: drops the first message of the context (and 2 later stage(s))``."""
    later = f" (and {len(cause.stages) - 1} later stage(s))" if len(cause.stages) > 1 else ""
    return f"{cause.target.name}: {grouping.describe(cause)}{later}"


def _failure_commands(entry: dict[str, Any], source: Case | None, out: Path) -> list[str]:
    """How to see the failure again; the reproducer is named where this build wrote it."""
    spec = entry["package"].get("spec") or "<your --impl spec>"
    reproducer = (out / entry["draft"]).with_suffix(".jsonl")
    commands = ["pip install pi-conformance && pi-conformance reference install"]
    if source is not None:
        stages = " ".join(f"--stage {s}" for s in entry["stages"])
        commands.append(f"pi-conformance run --impl {shlex.quote(spec)} "
                        f"-k {shlex.quote(source.id)} {stages}")
    commands.append(f"# the minimal session is {reproducer}; re-verify it against both:")
    commands.append(f"pi-conformance discrepancies --verify --impl "
                    f"{shlex.quote(entry['target'] + '=' + spec)}")
    return commands


def _reproduce(entry: dict[str, Any], cause: grouping.RootCause, source: Case, corpus: Corpus,
               settings: Settings, processes: _Processes, previous: dict[str, Any] | None,
               problems: list[str]) -> None:
    """Shrink the cause's smallest case (or re-run the previous reproducer) on both sides,
    judged as a run judges, for one exact difference of the cause."""
    cached = previous["reproducer"] if previous else None
    text = source.session_bytes().decode("utf-8", errors="replace")
    base = {"source_case": source.id, "input_sha256": source.input_sha256(),
            "original_lines": len(text.splitlines())}
    try:
        judge = processes.judge(cause.target, settings)
    except ConformanceError as exc:
        entry["reproducer"] = {**base, "session": text, "lines": len(text.splitlines()),
                               "shrunk": False, "reason": f"could not start it: {exc}"}
        settings.say(f"{cause.id}: not shrunk ({exc})")
        return
    oracle = Oracle(judge)
    stage = cause.stage
    target = sorted(cause.signatures[stage])[0]
    atom = Atom(stage, *target)
    version = judge.implementation.hello.version
    if is_response(stage):
        _reproduce_case(entry, base, text, source, judge, atom, settings, cause.id)
        return
    start = cached["session"] if cached else text
    shows = oracle.shows(start, atom)
    if not shows and not settings.verify:
        # Without --verify, the report is the evidence: the case may have changed since.
        entry["reproducer"] = {**base, "session": text, "lines": len(text.splitlines()),
                               "shrunk": False, "verified": False,
                               "reason": "it did not fail this way when re-run now (the "
                                         "case or the implementation may have changed "
                                         "since the report; --verify decides)"}
        settings.say(f"{cause.id}: did not reproduce, not shrunk")
        return
    if not shows:
        entry["status"], entry["resolved_in"] = "resolved", version
        entry["resolved_how"] = "behaviour"
        entry["reproducer"] = {**(cached or base), "session": start,
                               "lines": len(start.splitlines()),
                               "shrunk": bool(cached), "verified": False}
        problems.append(f"{cause.target.key}/{cause.id}: no longer reproduces with "
                        f"{cause.target.name} {version}: resolved in {version}")
        return
    if cached:
        shrunk_text, tests = start, 0
    else:
        settings.say(f"shrinking {cause.target.key}/{cause.id} from {source.id} for "
                     f"{atom.describe()}")
        result = shrink(start, lambda t: oracle.compare(t, (stage,))[stage], target,
                        settings.max_tests)
        shrunk_text, tests = result.text, result.tests
    judged = judge.judge(shrunk_text.encode("utf-8"), (stage,))
    final = verdict_signature(judged[0]) if judged else None
    final = final or frozenset({target})
    if previous and cached and sorted(map(list, final)) == cached.get("signature"):
        # Verified as before: keep the recorded answers, so that volatile values (an
        # implementation's clock, Pi's scratch paths) do not rewrite the draft.
        entry["reproducer"] = {**cached, "verified": True}
        for key in ("differences", "outputs", "message"):
            if key in previous:
                entry[key] = previous[key]
        return
    entry["reproducer"] = {**base, "session": shrunk_text,
                           "lines": len(shrunk_text.splitlines()), "shrunk": True,
                           "made_for": {"stage": atom.stage, "path": atom.path,
                                        "kind": atom.kind},
                           "signature": sorted([list(item) for item in final]),
                           "tests": tests if not cached else cached.get("tests", 0),
                           "verified": True, "version": version}
    expected = judge.pi_answer(stage)
    actual = judge.last_answers.get(stage, {"error": {"message": "no answer"}})
    entry["outputs"] = {"expected": expected, "actual": actual}
    differences = judged[0].differences if judged else ()
    entry["differences"] = [d.to_json() for d in differences]
    if not differences:
        entry["message"] = judged[0].message if judged else ""


def _reproduce_case(entry: dict[str, Any], base: dict[str, Any], text: str, source: Case,
                    judge: SessionJudge, atom: Atom, settings: Settings, cause_id: str) -> None:
    """A stage whose input is not the session alone (``response.<api>`` reads the case's
    provider response): the source case itself is the reproducer, judged again as it is,
    not shrunk (shrinking cuts sessions)."""
    judged = judge.judge_case(source, (atom.stage,))
    found = verdict_signature(judged[0]) if judged else None
    shows = bool(found) and (atom.path, atom.kind) in found  # type: ignore[operator]
    api = atom.stage.removeprefix(RESPONSE_PREFIX)
    entry["reproducer"] = {**base, "session": text, "lines": len(text.splitlines()),
                           "shrunk": False, "verified": shows,
                           "response": {"file": f"responses/{api}.json",
                                        "text": http_responses.dumps(
                                            source.responses_for([atom.stage])[api])},
                           "reason": "the stage reads the case's provider response: the case "
                                     "as it is reproduces it, not shrunk"}
    if not shows:
        settings.say(f"{cause_id}: did not reproduce")
        return
    entry["outputs"] = {"expected": judge.pi_answer(atom.stage),
                        "actual": judge.last_answers.get(atom.stage,
                                                         {"error": {"message": "no answer"}})}
    entry["differences"] = [d.to_json() for d in judged[0].differences]


class _Processes:
    """The reference and each implementation, started on demand and kept alive for the whole
    build; one ``SessionJudge`` per implementation, all sharing the reference."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._judges: dict[str, SessionJudge | ConformanceError] = {}
        self._reference: ReferenceGoldens | None = None
        self._session: Any = None
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> _Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        for judge in self._judges.values():
            if isinstance(judge, SessionJudge):
                judge.close()
                with contextlib.suppress(Exception):
                    judge.implementation.close()
        if self._reference is not None:
            self._reference.close()
        self._stack.close()

    def reference(self) -> ReferenceGoldens:
        if self._reference is None:
            self._reference = ReferenceGoldens(
                stage_timeout=min(self.settings.timeout, REFERENCE_TIMEOUT))
            self._reference.start()
        return self._reference

    def reference_session(self) -> Any:
        from conformance.maintenance.regenerate import ReferenceSession

        if self._session is None:
            self._session = self._stack.enter_context(ReferenceSession(self.settings.corpus))
        return self._session

    def judge(self, target: grouping.Target, settings: Settings) -> SessionJudge:
        if target.key not in self._judges:
            spec = settings.impl_specs.get(target.key) or settings.impl_specs.get(target.name) \
                or target.spec
            try:
                if not spec:
                    raise ConformanceError(f"no --impl spec for {target.name}")
                impl = resolve(spec)
                impl.start()
                judge = SessionJudge(impl, self.reference(), every_api=True,
                                     limits=Limits(timeout=settings.timeout),
                                     case_id="discrepancy.reproducer", own=False)
                judge.start()
                self._judges[target.key] = judge
            except ConformanceError as exc:
                self._judges[target.key] = exc
        found = self._judges[target.key]
        if isinstance(found, ConformanceError):
            raise found
        return found


# -- output ----------------------------------------------------------------------------------

class _Previous:
    """The previous index in ``out``: its entries whole, and each (merged ones too) by key."""

    def __init__(self, out: Path):
        self.entries: list[dict[str, Any]] = []
        self.by_key: dict[str, dict[str, Any]] = {}
        path = out / "index.json"
        if not path.is_file():
            return
        try:
            data = jsonio.read_json(path)
        except ConformanceError:
            return
        self.entries = [e for e in data.get("discrepancies", []) if isinstance(e, dict)]
        for entry in self.entries:
            for item in [entry, *entry.get("merged", [])]:
                if item.get("key") and "reproducer" in item:
                    self.by_key[item["key"]] = item

    def analysed(self, target: str, digest: str) -> list[dict[str, Any]]:
        """The entries an analysis of ``target`` with this ``digest`` wrote last time."""
        return [e for e in self.entries
                if e.get("target") == target and e.get("analysis") == digest]


def _write(out: Path, index: dict[str, Any]) -> list[Path]:
    """Write drafts, reproducers, README and index; remove drafts no entry produces any more."""
    out.mkdir(parents=True, exist_ok=True)
    wanted: dict[Path, str] = {}
    for entry in index["discrepancies"]:
        render = drafts.record_draft if entry["target"] == "pi" else drafts.failure_draft
        wanted[out / entry["draft"]] = render(entry)
        if entry["reproducer"].get("session"):
            wanted[(out / entry["draft"]).with_suffix(".jsonl")] = entry["reproducer"]["session"]
    wanted[out / "README.md"] = drafts.readme(index)
    wanted[out / "index.json"] = jsonio.dumps_pretty(index)
    for old in sorted(out.rglob("*")):
        if old.is_file() and old.suffix in (".md", ".jsonl", ".json") and old not in wanted:
            old.unlink()
    written = []
    for path, text in wanted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            replace_text(path, text)
            written.append(path)
    for directory in sorted((p for p in out.rglob("*") if p.is_dir()), reverse=True):
        with contextlib.suppress(OSError):
            directory.rmdir()
    return written
