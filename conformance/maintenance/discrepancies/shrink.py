"""Shrink a failing session to a minimal reproducer of one exact difference, by delta
debugging.

The ``Oracle`` asks a ``SessionJudge`` (the implementation against the real Pi, judged as a
run judges a case: inputs, volatile paths, outcome) and spells each stage's verdict as a
signature, the set of (generalized path, kind) ``grouping`` computes from reports. ``shrink``
keeps a candidate only while it still shows the exact difference it is shrinking for (its
``Atom``: stage, path and kind), whatever else it shows: a shrink never slides onto another,
already known difference and loses the one it was made for. It first removes lines (ddmin
over the entries; the header stays whole, so no shrink turns a v3 file into a v1 migration),
then object keys (but not an entry's ``type``) and list items one at a time.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance import jsonio
from conformance.execution.sessions import SessionJudge
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies.grouping import Signature, result_signature

INCONCLUSIVE = None


@dataclass(frozen=True)
class Atom:
    """One exact difference: on ``stage``, at ``path`` (list indices generalized), of
    ``kind`` (``changed``, ``missing item``, ``error: ...``, ``Pi answers ...``)."""

    stage: str
    path: str
    kind: str

    def describe(self) -> str:
        return f"{self.stage} {self.path} ({self.kind})"


def verdict_signature(result: StageResult) -> Signature | None:
    """How a judged stage departs from Pi: empty when it passes, None when nothing is
    required or asked there (a skip, Pi misbehaving, an implementation-defined case)."""
    if result.status == "pass":
        return frozenset()
    if result.status not in ("fail", "error"):
        return INCONCLUSIVE
    return result_signature(result) or frozenset({("$", "fail: " + result.message[:160])})


class Oracle:
    """Signatures of session texts, per stage, through a ``SessionJudge``; cached by text.

    ``whole``: judge every stage of the judge on each text, whatever stage is asked, so that
    one round trip per side answers every later question about that text (grouping by cause
    asks about several stages of the same sessions).
    """

    def __init__(self, judge: SessionJudge, *, whole: bool = False):
        self.judge = judge
        self.whole = whole
        self.runs = 0
        self._cache: dict[tuple[str, tuple[str, ...]], dict[str, StageResult]] = {}

    def results(self, text: str, stages: Sequence[str]) -> dict[str, StageResult]:
        if self.whole:
            stages = self.judge.stages
        key = (text, tuple(stages))
        if key not in self._cache:
            self.runs += 1
            judged = self.judge.judge(text.encode("utf-8"), stages)
            self._cache[key] = {result.stage: result for result in judged}
        return self._cache[key]

    def compare(self, text: str, stages: Sequence[str]) -> dict[str, Signature | None]:
        """Per stage: the disagreement's signature, empty when they agree, None if nothing
        is required there."""
        results = self.results(text, stages)
        return {stage: verdict_signature(results[stage]) if stage in results else INCONCLUSIVE
                for stage in stages}

    def shows(self, text: str, atom: Atom) -> bool:
        """Whether ``text`` shows exactly ``atom``."""
        found = self.compare(text, (atom.stage,))[atom.stage]
        return bool(found) and (atom.path, atom.kind) in found  # type: ignore[operator]

    def close(self) -> None:
        self._cache.clear()


@dataclass
class Shrunk:
    """The reproducer and what it took to find it."""

    text: str
    signature: Signature
    original_lines: int
    tests: int
    exhausted: bool = False
    steps: list[str] = field(default_factory=list)

    @property
    def lines(self) -> int:
        return len(jsonio.jsonl_lines(self.text))


class _Budget(Exception):
    pass


def shrink(text: str, still_fails: Callable[[str], Signature | None],
           target: tuple[str, str], max_tests: int = 400) -> Shrunk:
    """The smallest session found that still shows exactly ``target`` (a ``(path, kind)``
    of one stage's signature), whatever else it shows.

    ``still_fails(text)`` is the stage's disagreement signature of a candidate
    (``Oracle.compare`` for that stage); ``text`` itself must show ``target``.
    """
    tests = 0
    found: Signature = frozenset({target})
    best = text
    seen: dict[str, bool] = {}

    def interesting(candidate: str) -> bool:
        nonlocal tests, found, best
        if candidate in seen:
            return seen[candidate]
        if tests >= max_tests:
            raise _Budget
        tests += 1
        sig = still_fails(candidate)
        seen[candidate] = bool(sig) and target in sig  # type: ignore[operator]
        if seen[candidate]:
            found, best = sig, candidate  # type: ignore[assignment]
        return seen[candidate]

    lines = jsonio.jsonl_lines(text)
    head, body = _split_header(lines)
    result = Shrunk(text=text, signature=found, original_lines=len(lines), tests=0)
    try:
        body = ddmin(body, lambda part: interesting("".join(head + part)))
        result.steps.append(f"lines: {len(lines)} -> {len(head) + len(body)}")
        all_lines = head + body
        for index in range(len(head), len(all_lines)):
            all_lines[index] = _shrink_line(
                all_lines, index, lambda candidate: interesting("".join(candidate)))
    except _Budget:
        result.exhausted = True
    result.text = best
    result.tests = tests
    result.signature = found
    return result


def _split_header(lines: list[str]) -> tuple[list[str], list[str]]:
    """The session header stays: without it Pi loads nothing and every reproducer is moot."""
    if lines:
        try:
            first = json.loads(lines[0])
        except ValueError:
            first = None
        if isinstance(first, dict) and first.get("type") == "session":
            return lines[:1], lines[1:]
    return [], lines


def ddmin(items: list[str], test: Callable[[list[str]], bool]) -> list[str]:
    """Zeller's ddmin: a 1-minimal sublist of ``items`` for which ``test`` holds."""
    n = 2
    while len(items) >= 2:
        size = len(items)
        chunks = [items[i * size // n:(i + 1) * size // n] for i in range(n)]
        chunks = [c for c in chunks if c]
        for chunk in chunks:
            if test(chunk):
                items, n = chunk, 2
                break
        else:
            for index in range(len(chunks)):
                rest = [x for i, c in enumerate(chunks) if i != index for x in c]
                if test(rest):
                    items, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(items):
                    break
                n = min(n * 2, len(items))
    if len(items) == 1 and test([]):
        return []
    return items


def _shrink_line(lines: list[str], index: int, test: Callable[[list[str]], bool]) -> str:
    """Drop what the line does not need: keys of objects and items of lists, one at a time."""
    try:
        value = json.loads(lines[index])
    except ValueError:
        return lines[index]
    if not isinstance(value, (dict, list)):
        return lines[index]
    changed = True
    while changed:
        changed = False
        for where in list(_places(value)):
            candidate = _without(value, where)
            if candidate is None:
                continue
            text = jsonio.dumps_text(candidate) + "\n"  # a lone surrogate stays escaped
            trial = [*lines[:index], text, *lines[index + 1:]]
            if test(trial):
                value, lines[index] = candidate, text
                changed = True
                break
    return lines[index]


PROTECTED = frozenset({"type"})


def _places(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key or list index, outermost first, so whole subtrees go before their parts.

    An entry keeps its ``type``: an entry without one is a different input, not a smaller one.
    """
    if isinstance(value, dict):
        keys = [k for k in value if prefix or k not in PROTECTED]
        for key in keys:
            yield (*prefix, key)
        for key in keys:
            yield from _places(value[key], (*prefix, key))
    elif isinstance(value, list):
        for i in reversed(range(len(value))):
            yield (*prefix, i)
        for i in range(len(value)):
            yield from _places(value[i], (*prefix, i))


def _without(value: Any, where: tuple[Any, ...]) -> Any:
    result = copy.deepcopy(value)
    parent = result
    for step in where[:-1]:
        parent = parent[step]
    try:
        del parent[where[-1]]
    except (KeyError, IndexError, TypeError):
        return None
    return result
