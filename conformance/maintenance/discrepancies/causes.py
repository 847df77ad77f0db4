"""Root causes by reproduction: one per independent defect, across paths and stages.

Grouping failures by where they differ (``grouping.root_causes``) mixes causes and splits them:
two defects that change the same field are one group, one defect that changes two fields, or
shows on two stages for some cases only, is several. Here a cause is what a *minimal
reproducer* shows, found by asking the implementation and the real Pi
(``shrink.Oracle``) rather than by reading paths:

1. Every failing result of a report, smallest case first, is split into its atoms (stage,
   generalized path, kind: what ``grouping.result_signature`` computes).
2. An atom some known cause shows is *explained* by it on this case when removing the cause's
   trigger from the case (every line shaped like a line of its reproducer: same entry type and
   role, at least its keys) makes the atom go away; the result is then one more case of that
   cause. This is how one cause's reproducer claims other paths (``tokens.output`` and
   ``tokens.total``) and other stages (``context`` and ``projection``): what its reproducer
   shows is all the cause's atoms.
3. Otherwise the atom has a cause not known yet: the case (without the known triggers, so the
   shrink cannot slide onto them) is shrunk for that exact atom (``shrink.shrink``) and the
   reproducer judged on every stage. Its full signature and *form* (for each difference, the
   JSON types on both sides and, for numbers, whether the port answers more or less than Pi)
   identify the cause: a reproducer with the same signature and form as a known cause is that
   cause seen through another trigger (a port that takes the last *message* as the leaf fails
   alike after a label, a branch summary or a context edit); so is one whose trigger is inside
   a known reproducer's, or holds it, on a stage they share (one reproducer shows the other's
   trigger: that leaf bug with or without a message before the summary). One with the same
   paths but another trigger and another form is another cause (one port counts reasoning
   into ``output``, another defect drops a summary's ``output`` from it: two drafts).

A defect that two unrelated triggers set off in the same form is one draft (it cannot be told
apart from one defect with a broad trigger without reading the port's code); a line that
triggers two defects at once gives one reproducer for both.

The cost is bounded: every judged text is cached (``Oracle``, by text and judged on all stages
at once, one round trip per side for every atom of a case); one ``SessionJudge`` per
implementation serves the whole build; a shrink runs only for an atom no known cause explains,
each within ``max_tests`` judged candidates, and at most ``max_shrinks`` per implementation
(past it, the rest is grouped by path as before, unshrunk, and says so).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Case
from conformance.corpus.jsonpath import generalize
from conformance.corpus.stages import stage_sort_key
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies.grouping import (
    Signature,
    error_signature,
    result_signature,
    version_key,
)
from conformance.maintenance.discrepancies.shrink import Atom, Oracle, Shrunk, shrink

#: Bumped when what this module decides changes, so a previous index is not reused.
METHOD = "causes/1"

Shape = tuple[str, str, frozenset[str]]  # entry type, role, key paths
Form = frozenset[tuple[str, str, str, str, int]]


@dataclass
class Cause:
    """One independent defect: its minimal reproducer and everything that shows it."""

    made_for: Atom
    shrunk: Shrunk
    atoms: frozenset[Atom]  # what its reproducers show, every stage
    form: Form
    trigger: frozenset[Shape]
    source: Case
    results: list[StageResult] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    shapes: set[Shape] = field(default_factory=set)  # trigger and merged triggers: removed

    #: Every reproducer found for this cause (its own first): a new one is compared with each.
    witnesses: list[Cause] = field(default_factory=list)

    shows: frozenset[Atom] = frozenset()  # what its first reproducer shows

    def __post_init__(self) -> None:
        self.shows = self.atoms
        self.shapes |= self.trigger
        self.witnesses.append(self)

    @property
    def stages(self) -> list[str]:
        return sorted({a.stage for a in self.atoms} | {r.stage for r in self.results},
                      key=stage_sort_key)

    @property
    def cases(self) -> list[str]:
        return sorted({r.case for r in self.results} | {self.source.id})

    def signatures(self) -> dict[str, Signature]:
        out: dict[str, set[tuple[str, str]]] = {}
        for atom in self.atoms:
            out.setdefault(atom.stage, set()).add((atom.path, atom.kind))
        return {stage: frozenset(pairs) for stage, pairs in out.items()}

    def add(self, result: StageResult, version: str) -> None:
        if result not in self.results:
            self.results.append(result)
        if version not in self.versions:
            self.versions.append(version)


@dataclass
class Analysis:
    causes: list[Cause]
    unexplained: list[tuple[str, StageResult]]  # (version, result): grouped by path instead
    shrinks: int = 0
    notes: list[str] = field(default_factory=list)


def atoms_of(result: StageResult) -> list[Atom]:
    signature = result_signature(result) or frozenset(
        {("$", "fail: " + error_signature(result.message))})
    return [Atom(result.stage, path, kind) for path, kind in sorted(signature)]


def _value_type(value: Any) -> str:
    if value == "<missing>":
        return "missing"
    return "null" if value is None else type(value).__name__


def form(results: Iterable[StageResult]) -> Form:
    """How a reproducer fails, beyond where: per difference, the types on both sides and, for
    two numbers, the sign of the port's answer minus Pi's."""
    out = set()
    for result in results:
        if result.status == "error":
            out.add((result.stage, "$", "error", error_signature(result.message), 0))
        for d in result.differences:
            sign = 0
            if isinstance(d.expected, (int, float)) and isinstance(d.actual, (int, float)) \
                    and not isinstance(d.expected, bool) and not isinstance(d.actual, bool):
                sign = (d.actual > d.expected) - (d.actual < d.expected)
            out.add((result.stage, generalize(d.path),
                     _value_type(d.expected), _value_type(d.actual), sign))
    return frozenset(out)


def _keys(value: Any, prefix: str = "") -> Iterable[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            yield from _keys(inner, path)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner, prefix + "[]")


def shape(line: str) -> Shape:
    """A line as a trigger: its entry type, a message's role, and every key path it holds."""
    try:
        value = json.loads(line)
    except ValueError:
        return ("<not json>", line.strip(), frozenset())
    if not isinstance(value, dict):
        return ("<not an object>", line.strip(), frozenset())
    message = value.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return (str(value.get("type")), str(role), frozenset(_keys(value)))


def trigger(text: str) -> frozenset[Shape]:
    """The body lines of a reproducer (the header stays whole in every shrink) as shapes."""
    lines = jsonio.jsonl_lines(text)
    body = lines[1:] if lines and shape(lines[0])[0] == "session" else lines
    return frozenset(shape(line) for line in body)


def matches(line: str, wanted: Shape) -> bool:
    kind, role, keys = shape(line)
    if kind.startswith("<"):
        return (kind, role) == wanted[:2]
    return (kind, role) == wanted[:2] and keys >= wanted[2]


def without(text: str, shapes: Iterable[Shape]) -> str:
    """``text`` without the body lines shaped like any of ``shapes``."""
    shapes = list(shapes)
    lines = jsonio.jsonl_lines(text)
    if not lines:
        return text
    head = lines[:1] if shape(lines[0])[0] == "session" else []
    body = lines[len(head):]
    return "".join(head + [line for line in body if not any(matches(line, s) for s in shapes)])


def analyse(items: list[tuple[str, StageResult]], cases: dict[str, Case], oracle: Oracle, *,
            max_tests: int = 400, max_shrinks: int = 40,
            say: Callable[[str], None] = lambda message: None, label: str = "") -> Analysis:
    """The causes of ``items`` ((version, failing result) of one implementation)."""
    analysis = Analysis(causes=[], unexplained=[])
    known = [(v, r) for v, r in items if r.case in cases]
    analysis.unexplained += [(v, r) for v, r in items if r.case not in cases]
    newest_first = sorted({v for v, _ in items}, key=version_key, reverse=True)
    known.sort(key=lambda item: (newest_first.index(item[0]),
                                 len(cases[item[1].case].session_bytes()), item[1].case,
                                 stage_sort_key(item[1].stage)))
    for version, result in known:
        case = cases[result.case]
        text = case.session_bytes().decode("utf-8", errors="replace")
        missed = False
        for atom in atoms_of(result):
            cause = _explain(analysis, atom, text, case, oracle, max_tests, max_shrinks, say,
                             label)
            if cause is None:
                missed = True
            else:
                cause.add(result, version)
        if missed:
            analysis.unexplained.append((version, result))
    analysis.causes.sort(key=lambda c: (stage_sort_key(c.stages[0]), c.made_for.path,
                                        c.shrunk.lines, c.source.id))
    return analysis


def _explain(analysis: Analysis, atom: Atom, text: str, case: Case, oracle: Oracle,
             max_tests: int, max_shrinks: int, say: Callable[[str], None],
             label: str) -> Cause | None:
    """The cause of ``atom`` on ``case``: a known one, a new one, or None when the atom does
    not show when judged now (or the shrink budget is spent)."""
    candidates = [c for c in analysis.causes if atom in c.atoms]
    reduced = text
    if candidates:
        reduced = without(text, {s for c in candidates for s in c.shapes})
        if reduced != text and not oracle.shows(reduced, atom):
            present = [c for c in candidates if without(text, c.shapes) != text]
            return present[0] if present else candidates[0]
    start = reduced if reduced != text and oracle.shows(reduced, atom) else text
    if start is text and not oracle.shows(text, atom):
        return None
    if analysis.shrinks >= max_shrinks:
        if not analysis.notes:
            analysis.notes.append(f"{label}: the shrink budget ({max_shrinks}) is spent; the "
                                  "failures left are grouped by path, not shrunk")
        return None
    analysis.shrinks += 1
    say(f"shrinking {label} from {case.id} for {atom.describe()}")
    shrunk = shrink(start, lambda t: oracle.compare(t, (atom.stage,))[atom.stage],
                    (atom.path, atom.kind), max_tests)
    judged = oracle.results(shrunk.text, oracle.judge.stages)
    shown = frozenset(Atom(stage, path, kind)
                      for stage, found in oracle.compare(shrunk.text, oracle.judge.stages).items()
                      for path, kind in (found or ()))
    shown |= {atom}
    made = Cause(made_for=atom, shrunk=shrunk, atoms=shown,
                 form=form(r for r in judged.values() if r.status in ("fail", "error")),
                 trigger=trigger(shrunk.text), source=case)
    for cause in analysis.causes:
        if any(same_cause(seen, made) for seen in cause.witnesses):
            cause.atoms |= made.atoms
            cause.shapes |= made.trigger
            cause.witnesses.append(made)
            return cause
    analysis.causes.append(made)
    return made


def same_cause(known: Cause, found: Cause) -> bool:
    """Whether two minimal reproducers show one cause: the same signature failing in the same
    form (another trigger of one defect), or, on a stage they share, a trigger inside the
    other's (one reproducer holds the other's trigger: a leaf taken from the last message
    after a branch summary, with or without a message before it)."""
    if known.shows == found.shows and known.form == found.form:
        return True
    if not {a.stage for a in known.shows} & {a.stage for a in found.shows}:
        return False
    return nested(known.trigger, found.trigger) or nested(found.trigger, known.trigger)


def nested(inner: frozenset[Shape], outer: frozenset[Shape]) -> bool:
    """Every line shape of a non-empty ``inner`` is matched by one of ``outer``."""
    return bool(inner) and all(
        any(o[:2] == i[:2] and o[2] >= i[2] for o in outer) for i in inner)


def key(label: str, cause: Cause) -> str:
    """A cause's stable key: its implementation, what it was made for, its trigger."""
    parts = [label, cause.made_for.describe(), *sorted(map(repr, cause.trigger))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def digest(label: str, items: list[tuple[str, StageResult]], cases: dict[str, Case]) -> str:
    """What an analysis depends on: the failing results and their cases' inputs. The same
    digest in the previous index means its causes can be reused without judging anything."""
    parts = [METHOD, label]
    for version, result in sorted(items, key=lambda i: (i[0], i[1].case, i[1].stage)):
        case = cases.get(result.case)
        parts.append(f"{version} {result.case} {result.stage} "
                     f"{sorted(atoms_of(result), key=Atom.describe)} "
                     f"{case.input_sha256() if case else '-'}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
