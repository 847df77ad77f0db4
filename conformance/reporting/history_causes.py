"""A history's changes grouped by root cause: one line for one change of Pi, however many
stages, providers and places in a session it shows in.

A change of Pi shows on several stages (the SDK parameters of a provider's request and the
same field in its HTTP body), in several places (``$.messages[2].content`` in one case,
``$.messages[4].content`` in another) and often for several providers at once (a pi-ai
change every Google API shares). Reading the answers, not Pi's code, a cause is the best
guess these facts allow: changes at the same release boundary (the same ``since`` and
``before``) are one cause when they concern the same *surface* (a provider API, or a session
stage) and either mostly the same cases or fields of which one change's are all among the
other's (a case that has no tools shows the ``messages`` half of a change to ``messages`` and
``tools``); or the same fields (positions generalized, a wire body's ``$.body`` taken off) in
mostly the same cases, on any surfaces. "Mostly": the smaller set of cases lies at least
``OVERLAP`` inside the larger.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.jsonpath import generalize
from conformance.corpus.stages import stage_sort_key

OVERLAP = 0.8


def surface(stage: str) -> str:
    """``request.anthropic-messages`` and ``wire.anthropic-messages`` -> the API; a session
    stage is its own surface."""
    kind, _, api = stage.partition(".")
    return api if kind in ("request", "wire") and api else stage


def field_of(stage: str, path: str) -> str:
    """The field a path names, as the SDK parameters would: positions generalized, a wire
    body's prefix taken off (``$.body.messages[3].content`` -> ``$.messages[*].content``)."""
    if stage.startswith("wire.") and (path == "$.body" or path.startswith("$.body.")
                                      or path.startswith("$.body[")):
        path = "$" + path[len("$.body"):]
    return generalize(path)


@dataclass
class _Group:
    since: str
    before: str
    surfaces: set[str]
    fields: set[str]
    stages: set[str]
    cases: set[str]
    behaviours: int = 0
    members: list[int] = field(default_factory=list)


def _order(stage: str) -> tuple[int, str]:
    """Pi's stage order, then by name (stages of an API pi-ai does not declare yet)."""
    return stage_sort_key(stage), stage


def _mostly_same(a: set[str], b: set[str]) -> bool:
    return len(a & b) >= OVERLAP * min(len(a), len(b))


def root_causes(changes: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``changes`` (history.py's: since, before, stage, paths, cases) grouped into causes,
    largest first within each boundary; each with its stages, surfaces, fields and cases."""
    atoms: dict[tuple[str, str, str, frozenset[str]], _Group] = {}
    for change in changes:
        fields = frozenset(field_of(change["stage"], p) for p in change["paths"]) \
            or frozenset({"$"})
        key = (change["since"], change["before"], surface(change["stage"]), fields)
        atom = atoms.setdefault(key, _Group(change["since"], change["before"],
                                            {key[2]}, set(fields), set(), set()))
        atom.stages.add(change["stage"])
        atom.cases.update(change["cases"])
        atom.behaviours += len(change["cases"])
    groups = list(atoms.values())
    parent = list(range(len(groups)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(groups):
        for j in range(i + 1, len(groups)):
            b = groups[j]
            if (a.since, a.before) != (b.since, b.before) or root(i) == root(j):
                continue
            same_surface = a.surfaces == b.surfaces
            if (same_surface and (a.fields <= b.fields or b.fields <= a.fields)) \
                    or ((same_surface or a.fields == b.fields)
                        and _mostly_same(a.cases, b.cases)):
                parent[root(j)] = root(i)
    merged: dict[int, _Group] = {}
    for i, atom in enumerate(groups):
        into = merged.setdefault(root(i), _Group(atom.since, atom.before, set(), set(), set(),
                                                 set()))
        into.surfaces |= atom.surfaces
        into.fields |= atom.fields
        into.stages |= atom.stages
        into.cases |= atom.cases
        into.behaviours += atom.behaviours
    causes: list[dict[str, Any]] = [
        {"since": g.since, "before": g.before, "stages": sorted(g.stages, key=_order),
         "surfaces": sorted(g.surfaces, key=_order), "fields": sorted(g.fields),
         "behaviours": g.behaviours, "cases": sorted(g.cases)} for g in merged.values()]
    causes.sort(key=lambda c: (-len(c["cases"]), c["stages"][0], c["fields"]))
    return causes


def in_words(cause: dict[str, Any]) -> str:
    """Where it shows and what changed: "`$.betas` in the SDK parameters and HTTP request of
    anthropic-messages"."""
    apis = [name for name in cause["surfaces"] if name not in cause["stages"]]
    where = [f"`{name}`" for name in cause["surfaces"] if name in cause["stages"]]
    if apis:
        kinds = sorted({stage.partition(".")[0] for stage in cause["stages"]
                        if surface(stage) in apis})
        what = " and ".join({"request": "SDK parameters", "wire": "HTTP request"}[kind]
                            for kind in kinds)
        where.append(f"the {what} of {', '.join(apis)}")
    fields = cause["fields"]
    shown = ", ".join(f"`{f}`" for f in fields[:6]) + (
        f" and {len(fields) - 6} more" if len(fields) > 6 else "")
    return f"{'the whole answer' if fields == ['$'] else shown} in {' and '.join(where)}"


__all__ = ["OVERLAP", "field_of", "in_words", "root_causes", "surface"]
