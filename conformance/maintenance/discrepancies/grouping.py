"""From run reports to root causes: one group per way an implementation differs from Pi.

A failing result's signature is the set of (path with list indices generalized, kind) of its
differences (lists are aligned before they are diffed, so a missing item is one difference,
not a cascade through the items after it; differences inside a list that lost or gained
items count as its consequences), or the kind of answer it gave where Pi answered
another kind, or its error. ``describe`` says what a root cause does in words, from its
aligned differences: the kind, what the item is (a message's role, a block's type, a field),
where it is and the stage ("drops the first message of the context").
Results of one implementation with the same stage and signature are one root cause; root
causes of one implementation failing on exactly the same cases on several stages (a wrong
``llm`` stage shows again in every ``request.<api>``) are merged into one.

Reports of several versions of one implementation are read together: a root cause that the
newest version no longer shows on the same cases is marked resolved in that version.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.jsonpath import generalize
from conformance.corpus.stages import REQUEST_PREFIX, RESPONSE_PREFIX, WIRE_PREFIX, stage_sort_key
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.reporting.model import Report
from conformance.reporting.stream import ReportError, read_report

Signature = frozenset[tuple[str, str]]


def slug(text: str, limit: int = 48) -> str:
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return cleaned[:limit].strip("-") or "x"


def error_signature(message: str) -> str:
    """An error message without what varies from run to run (numbers, paths, quoted values)."""
    first = (message.strip().splitlines() or [""])[0]
    first = re.sub(r"(/[\w.@+-]+)+", "<path>", first)
    first = re.sub(r"\d+(\.\d+)?", "N", first)
    return first[:160]


LIST_SHIFT = ("missing item", "unexpected item")


def collapse_list_shifts(pairs: Iterable[tuple[str, str]]) -> Signature:
    """Drop differences inside the items of a list that gained or lost items.

    Alignment keeps the items after a missing one in line, but the items next to it often
    differ for the same reason (a path that took another branch before it ended early), so
    for grouping they are consequences, not causes of their own.
    """
    pairs = set(pairs)
    shifted = {path for path, kind in pairs if kind in LIST_SHIFT and path.endswith("[*]")}
    return frozenset((path, kind) for path, kind in pairs
                     if not any(path.startswith(lst) and path != lst for lst in shifted))


def result_signature(result: StageResult) -> Signature:
    """What a failing result looks like, independent of where in the output it happened."""
    if result.status == "error":
        return frozenset({("$", "error: " + error_signature(result.message))})
    expected, actual = result.expected_kind, result.actual_kind
    if expected and actual and expected != actual:
        return frozenset({("$", f"Pi answers {expected}, the implementation {actual}")})
    return collapse_list_shifts((generalize(d.path), d.kind) for d in result.differences)


def version_key(version: str) -> tuple[Any, ...]:
    """Orders 0.73.1 < 1.0.3 < 1.6.0 < 1.10.0; non-numeric parts sort after numbers."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"[.+-]", version))


@dataclass
class Target:
    """One implementation, possibly in several versions, as its reports describe it."""

    key: str
    name: str
    versions: list[str] = field(default_factory=list)
    specs: dict[str, str] = field(default_factory=dict)  # version -> --impl spec
    implementations: dict[str, dict[str, Any]] = field(default_factory=dict)  # per version
    reports: dict[str, list[Path]] = field(default_factory=dict)  # version -> report files
    results: dict[str, dict[tuple[str, str], StageResult]] = field(default_factory=dict)

    @property
    def latest(self) -> str:
        return max(self.versions, key=version_key)

    @property
    def implementation(self) -> dict[str, Any]:
        """What the newest version said about itself in its hello."""
        return self.implementations[self.latest]

    @property
    def spec(self) -> str | None:
        return self.specs.get(self.latest) or next(iter(self.specs.values()), None)

    def add(self, report: Report, path: Path) -> None:
        version = report.header.version
        if version not in self.versions:
            self.versions.append(version)
        self.implementations.setdefault(version, dict(report.implementation))
        spec = report.header.selection.impl
        if spec:
            self.specs.setdefault(version, spec)
        self.reports.setdefault(version, []).append(path)
        bucket = self.results.setdefault(version, {})
        for result in report.results:
            bucket[(result.case, result.stage)] = result


@dataclass
class RootCause:
    """One way an implementation differs from Pi: the cases and stages that show it."""

    target: Target
    stages: list[str]
    signatures: dict[str, Signature]  # stage -> signature
    cases: list[str]
    failures: list[StageResult]  # the failing results, all versions
    versions: list[str]  # versions that show it, oldest first
    resolved_in: str | None = None

    @property
    def stage(self) -> str:
        """The earliest stage: where the root cause shows first."""
        return self.stages[0]

    @property
    def key(self) -> str:
        parts = [self.target.key] + [
            f"{stage}:" + ";".join(sorted(f"{p} {k}" for p, k in self.signatures[stage]))
            for stage in self.stages
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]

    @property
    def id(self) -> str:
        path, kind = sorted(self.signatures[self.stage])[0]
        what = path.replace("[*]", "").strip("$.") or kind
        return f"{slug(self.stage)}-{slug(what, 32)}-{self.key[:6]}"

    def failure(self, case: str, stage: str | None = None) -> StageResult | None:
        for result in self.failures:
            if result.case == case and result.stage == (stage or self.stage):
                return result
        return None


def find_reports(directory: Path, exclude: Iterable[Path] = ()) -> list[Path]:
    """Every ``*.jsonl`` report under ``directory``, except under the excluded directories."""
    excluded = [e.resolve() for e in exclude]
    return sorted(
        p for p in directory.rglob("*.jsonl")
        if not any(p.resolve().is_relative_to(e) for e in excluded)
    )


def load_targets(paths: Iterable[Path],
                 skipped: list[str] | None = None) -> dict[str, Target]:
    """Reports grouped by implementation name. The reference's own runs are left out.

    A file that is not a complete report stream (a run that died, another JSON-lines file) is
    named in ``skipped`` with the reason, when given, and otherwise an error.
    """
    targets: dict[str, Target] = {}
    for path in paths:
        try:
            report = read_report(path)
        except ReportError as exc:
            if skipped is None:
                raise
            skipped.append(exc.describe())
            continue
        name = report.header.name
        if report.header.selection.impl == "reference":
            continue
        key = slug(name)
        targets.setdefault(key, Target(key=key, name=name)).add(report, path)
    return targets


def atoms(signatures: Iterable[Signature]) -> list[Signature]:
    """Split signatures into the parts that occur on their own: one per root cause.

    A case that shows two bugs has the union of both signatures. Taking the distinct
    signatures smallest first, whatever a signature holds beyond the atoms already found inside
    it is a new atom; a case then belongs to every atom its signature contains.
    """
    found: list[Signature] = []
    for signature in sorted(set(signatures), key=lambda s: (len(s), sorted(s))):
        explained: set[tuple[str, str]] = set()
        for atom in found:
            if atom <= signature:
                explained |= atom
        rest = signature - explained
        if rest:
            found.append(frozenset(rest))
    return found


def root_causes(target: Target) -> list[RootCause]:
    """The target's failures, one RootCause per stage and signature atom, cascades merged."""
    failing: dict[str, list[tuple[str, str, StageResult, Signature]]] = {}
    for version in sorted(target.versions, key=version_key):
        for (case, stage), result in sorted(target.results[version].items()):
            if not result.failing:
                continue
            signature = result_signature(result) or frozenset(
                {("$", "fail: " + error_signature(result.message))})
            failing.setdefault(stage, []).append((case, version, result, signature))
    groups: dict[tuple[str, Signature], dict[str, Any]] = {}
    for stage, items in failing.items():
        for atom in atoms(sig for *_, sig in items):
            for case, version, result, signature in items:
                if not atom <= signature:
                    continue
                group = groups.setdefault((stage, atom), {"cases": set(), "lines": [],
                                                          "versions": []})
                group["cases"].add(case)
                group["lines"].append(result)
                if version not in group["versions"]:
                    group["versions"].append(version)
    merged: dict[tuple[frozenset[str], tuple[str, ...]], list[tuple[str, Signature]]] = {}
    for (stage, signature), group in groups.items():
        merged.setdefault((frozenset(group["cases"]), tuple(group["versions"])), []).append(
            (stage, signature))
    causes = []
    for (cases, versions), members in merged.items():
        members.sort(key=lambda m: (stage_sort_key(m[0]), sorted(m[1])))
        stages = [stage for stage, _ in members]
        lines = [line for m in members for line in groups[m]["lines"]]
        cause = RootCause(target=target, stages=stages, signatures=dict(members),
                          cases=sorted(cases), failures=lines, versions=list(versions))
        cause.resolved_in = _resolution(target, cause)
        causes.append(cause)
    return sorted(causes, key=lambda c: (stage_sort_key(c.stage), c.id))


def _resolution(target: Target, cause: RootCause) -> str | None:
    """The newest version, if it ran the cause's cases on its stage and passed them all."""
    latest = target.latest
    if latest in cause.versions:
        return None
    results = target.results[latest]
    outcomes = [results.get((case, cause.stage)) for case in cause.cases]
    return latest if outcomes and all(r is not None and r.status == "pass" for r in outcomes) \
        else None


# -- root causes in words --------------------------------------------------------------------

#: Each API by the name its users know it by.
API_TITLES = {
    "anthropic-messages": "Anthropic", "openai-completions": "OpenAI Completions",
    "openai-responses": "OpenAI Responses", "google-generative-ai": "Google Generative AI",
    "azure-openai-responses": "Azure OpenAI Responses", "openai-codex-responses": "OpenAI Codex",
    "mistral-conversations": "Mistral", "bedrock-converse-stream": "Bedrock Converse",
    "google-vertex": "Google Vertex", "pi-messages": "pi-messages",
}
_PLACE_OF_KIND = {REQUEST_PREFIX: "{} requests", WIRE_PREFIX: "{} HTTP requests",
                  RESPONSE_PREFIX: "{} responses as read"}
PLACES = {
    "entries": "the session entries", "branch": "the branch", "context": "the context",
    "projection": "the projection", "llm": "the LLM messages", "prompt": "the system prompt",
    "stats": "the session stats", "events": "the event stream",
    **{prefix + api: words.format(title) for prefix, words in _PLACE_OF_KIND.items()
       for api, title in API_TITLES.items()},
}
_NOUNS = {"messages": "message", "input": "item", "contents": "content", "content": "block",
          "entries": "entry", "path": "path entry", "tools": "tool", "sections": "section"}
_STEP = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\*|-?\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


def _steps(path: str) -> list[str]:
    """The keys of a generalized path, ``*`` for a list index."""
    out = []
    for name, index, quoted in _STEP.findall(path):
        out.append(name or ("*" if index else quoted.strip('"')))
    return out


def _plural(noun: str) -> str:
    if noun.endswith(")"):  # "message entry (user message)"
        head, _, rest = noun.partition(" (")
        return f"{_plural(head)} ({rest}"
    if noun.endswith("y") and not noun.endswith(("ay", "ey", "oy")):
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


def _what(path: str, found: list[Difference], kind: str) -> str:
    """The items a list difference is about: ``the first message``, ``thinking blocks``."""
    steps = _steps(path)
    container = steps[-2] if len(steps) >= 2 else ""
    noun = _NOUNS.get(container, "item")
    prefix = "missing item: " if kind == "missing item" else "extra item: "
    described = {d.note[len(prefix):] for d in found if d.note.startswith(prefix)}
    if len(described) == 1:
        noun = described.pop()
    first = bool(found) and all(d.path.endswith("[0]") for d in found) and \
        kind == "missing item"
    return f"the first {noun}" if first else _plural(noun)


def _owner(path: str) -> str:
    """What holds a field: ``$.messages[*].usage.cost`` -> ``usage of messages``."""
    steps = _steps(path)[:-1]
    while steps and steps[-1] == "*":
        steps.pop()
        if steps:
            key = steps[-1]
            # A list's key names its items already in the plural (functionDeclarations).
            return _plural(_NOUNS[key]) if key in _NOUNS else key
    return steps[-1] if steps else "the output"


def phrase(stage: str, path: str, kind: str, found: list[Difference]) -> str:
    """One aligned difference of a root cause, in words."""
    place = PLACES.get(stage, f"the {stage} stage")
    field = (_steps(path) or ["the output"])[-1]
    if field == "*":
        field = "item"
    if any("generated value" in d.note for d in found):
        return f"reuses a generated {field} differently from Pi in {place}"
    if kind == "missing item":
        return f"drops {_what(path, found, kind)} {'of' if place.startswith('the ') else 'from'}" \
               f" {place}"
    if kind == "unexpected item":
        return f"adds extra {_what(path, found, kind)} to {place}"
    owner = _owner(path)
    if kind == "missing key":
        return f"omits {field} of {owner} in {place}"
    if kind == "unexpected key":
        article = "an" if field[:1].lower() in "aeiou" else "a"
        return f"adds {article} {field} field to {owner} in {place}"
    if kind == "type changed":
        return f"writes {field} of {owner} as another JSON type in {place}"
    if kind == "changed":
        return f"writes another {field} of {owner} in {place}"
    return f"differs at {path} ({kind}) in {place}"


def describe(cause: RootCause) -> str:
    """The root cause in words, from its first stage's aligned differences."""
    stage = cause.stage
    signature = sorted(cause.signatures[stage])
    path, kind = signature[0]
    if kind.startswith("error: "):
        return f"fails on {stage}: {kind[7:]}"
    if kind.startswith(("Pi answers", "fail: ")):
        return f"{stage}: {kind}"
    found = [d for r in cause.failures if r.stage == stage for d in r.differences
             if (generalize(d.path), d.kind) == (path, kind)]
    words = phrase(stage, path, kind, found)
    if len(signature) > 1:
        words += f" (and {len(signature) - 1} other difference(s))"
    return words
