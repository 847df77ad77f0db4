"""Shrink a failing session to a minimal reproducer by delta debugging.

The ``Oracle`` keeps the implementation and the reference running and says, for a session
text, how the two disagree on each asked stage (the same signature ``grouping`` computes from
reports). ``shrink`` first removes lines (ddmin over the entries; the header stays whole, so
no shrink turns a v3 file into a v1 migration), then removes object keys (but not an entry's
``type``) and list items one at a time, keeping every step that still shows the same
disagreement: a non-empty subset of the original signature, so it never wanders off to a
different bug.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.jsonpath import generalize
from conformance.corpus.normalization import input_strings
from conformance.errors import ImplementationError
from conformance.implementations import protocol
from conformance.implementations.transports import Implementation
from conformance.judging.comparison import differences
from conformance.maintenance.discrepancies.grouping import (
    Signature,
    collapse_list_shifts,
    error_signature,
)

INCONCLUSIVE = None
# Request numbers are unique for the life of the process, across oracles: the reference
# harness keys its scratch directory by seq and leaves it behind when Pi rejects a session,
# so a reused seq would be rejected too.
_SEQ = itertools.count(1)
# Where a harness copied the session: named in Pi's rejections, different on every run.
_SCRATCH = re.compile(r"(/[^\s:'\"]+)+/session\.jsonl|" + re.escape(tempfile.gettempdir())
                      + r"/[^\s:'\"]+")


@dataclass
class Answer:
    """One side's answer for one stage: its kind and payload, as in protocol v1."""

    kind: str
    value: Any


class Oracle:
    """Runs one session through the implementation and the reference, and compares them."""

    def __init__(self, implementation: Implementation, reference: Implementation, *,
                 case_id: str, features: tuple[str, ...], options: dict[str, Any],
                 timeout: float = 30.0, reference_timeout: float | None = None):
        self.implementation = implementation
        self.reference = reference
        self.case_id = case_id
        self.features = features
        self.options = options
        self.timeout = timeout
        self.reference_timeout = reference_timeout or timeout
        self.runs = 0
        self._cache: dict[tuple[str, str, tuple[str, ...]], dict[str, Answer]] = {}
        self._scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-shrink-"))

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)

    def answers(self, side: str, text: str, stages: tuple[str, ...]) -> dict[str, Answer]:
        """``side`` ("implementation" or "reference") answers for ``text``; cached."""
        key = (side, text, stages)
        if key not in self._cache:
            timeout = self.reference_timeout if side == "reference" else self.timeout
            self._cache[key] = self._ask(getattr(self, side), text, stages, timeout)
        return self._cache[key]

    def _ask(self, impl: Implementation, text: str, stages: tuple[str, ...],
             timeout: float) -> dict[str, Answer]:
        seq = next(_SEQ)
        self.runs += 1
        path = self._scratch / f"{seq}.jsonl"
        path.write_text(text, encoding="utf-8")
        request = protocol.run_request(seq, self.case_id, self.features, str(path), text,
                                       list(stages), self.options)
        try:
            raw = impl.run(request, timeout)
            results = protocol.check_run_answer(raw, seq, list(stages))
        except ImplementationError as exc:
            if "failed the run" not in str(exc):
                impl.restart()
            return {stage: Answer("error", str(exc)) for stage in stages}
        finally:
            path.unlink(missing_ok=True)
        answers = {}
        for stage, result in results.items():
            kind = next(iter(result))
            value = result[kind]
            if kind in ("error", "rejected") and isinstance(value, dict):
                value = _SCRATCH.sub("<session file>", str(value.get("message", "")))
            answers[stage] = Answer(kind, value)
        return answers

    def claimed_fields(self, stage: str) -> tuple[str, ...]:
        """The output paths the implementation claims for ``stage`` (hello
        ``capabilities.fields``, a partial claim); empty when it claims the whole output."""
        raw = getattr(self.implementation.hello, "raw", {}) or {}
        return tuple(raw.get("capabilities", {}).get("fields", {}).get(stage, ()))

    def expected(self, text: str, stage: str, asked: tuple[str, ...] = ()) -> Answer:
        """Pi's answer, cut down to what the implementation claims, as the runner judges it.
        ``asked``: the stages asked together with ``stage``, so a cached answer is reused."""
        answer = self.answers("reference", text, asked or (stage,))[stage]
        fields = self.claimed_fields(stage)
        if fields and answer.kind == "output":
            return Answer("output", project_fields(answer.value, fields))
        return answer

    def compare(self, text: str, stages: tuple[str, ...]) -> dict[str, Signature | None]:
        """Per stage: the disagreement's signature, empty when they agree, None if unknown."""
        actual = self.answers("implementation", text, stages)
        known = input_strings(text.encode("utf-8"))
        return {stage: signature(self.expected(text, stage, stages), actual[stage], known)
                for stage in stages}


def project_fields(value: Any, paths: tuple[str, ...]) -> Any:
    """Only the dotted ``paths`` of an object, absent ones left absent (a partial claim)."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for path in paths:
        source: Any = value
        target = out
        keys = path.split(".")
        for key in keys[:-1]:
            source = source.get(key) if isinstance(source, dict) else None
            target = target.setdefault(key, {})
        if isinstance(source, dict) and keys[-1] in source:
            target[keys[-1]] = source[keys[-1]]
    return out


def signature(expected: Answer, actual: Answer, known: frozenset[str]) -> Signature | None:
    """How ``actual`` departs from Pi's ``expected``, as grouping.result_signature spells it."""
    if expected.kind not in ("output", "rejected") or actual.kind == "skipped":
        return INCONCLUSIVE  # Pi itself failed, or the implementation declined: no verdict
    if actual.kind == "error":
        return frozenset({("$", "error: " + error_signature(str(actual.value)))})
    if expected.kind != actual.kind:
        return frozenset({("$", f"Pi answers {expected.kind}, the implementation {actual.kind}")})
    if expected.kind == "rejected":
        return frozenset()
    return collapse_list_shifts(
        (generalize(d.path), d.kind) for d in differences(expected.value, actual.value, known))


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


def shrink(text: str, still_fails: Callable[[str], Signature | None], target: Signature,
           max_tests: int = 400, allowed: Signature | None = None) -> Shrunk:
    """The smallest session found that still shows a non-empty part of ``target``.

    ``still_fails(text)`` is the disagreement signature of a candidate (Oracle.compare for one
    stage); ``text`` itself must show ``target`` or part of it. A candidate may show nothing
    beyond ``allowed`` (default: ``target``): the differences the original session shows,
    when it also shows other root causes than the one being shrunk.
    """
    allowed = target | (allowed or frozenset())
    tests = 0
    found: Signature = target
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
        seen[candidate] = bool(sig and sig & target) and sig <= allowed  # type: ignore[operator]
        if seen[candidate]:
            found, best = sig, candidate  # type: ignore[assignment]
        return seen[candidate]

    lines = jsonio.jsonl_lines(text)
    head, body = _split_header(lines)
    result = Shrunk(text=text, signature=target, original_lines=len(lines), tests=0)
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
