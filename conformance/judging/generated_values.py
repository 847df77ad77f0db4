"""Values Pi generates (random ids, clock readings, temporary paths): where they are, and
whether an answer reuses its own generated values where Pi reused its own.

A golden records them (``Golden.volatile``: JSON path -> group, found by running Pi several
times); a value in a group may differ from Pi's, but the answer must hold ONE value across
the paths of a group, and distinct groups should get distinct values. Where no recording
exists (a golden written before regenerate recorded them, or the fuzzer and the shrinker,
which compare two live answers), ``Guessed`` takes the old heuristic: a string under an
id-bearing key or ``timestamp`` that is not in the input session is generated, and the paths
that hold one such value in Pi's answer are its group.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from conformance.corpus.jsonpath import json_path, parse
from conformance.corpus.normalization import ID_KEYS

Steps = tuple[str | int, ...]
_CLOCK = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


def output_paths(volatile: Mapping[str, str]) -> dict[str, str]:
    """A golden's volatile paths (in its ``result``) as paths in its ``output``."""
    return {"$" + path[len("$.output"):]: group for path, group in volatile.items()
            if path == "$.output" or path.startswith(("$.output.", "$.output["))}


def is_clock_reading(value: Any) -> bool:
    """A number or an ISO date-time: two of them may coincide in a fast implementation."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (
        isinstance(value, str) and _CLOCK.match(value) is not None)


class Generated:
    """Where the expected value holds generated values, and how they are grouped."""

    def group_of(self, steps: Steps, value: Any) -> str | None:
        """The group of the expected value at ``steps``, or None when it is not generated."""
        raise NotImplementedError

    def groups(self, expected: Any) -> dict[str, list[Steps]]:
        """Every group and its paths in ``expected``, in document order."""
        raise NotImplementedError

    def may_hold(self, value: Any) -> bool:
        """Whether the answer's ``value`` can stand for a generated one."""
        return True

    def masked(self, list_steps: Steps, item: Any) -> Any:
        """``item`` of the list at ``list_steps`` with its generated values blanked: a key to
        line items up by, the same whatever values either side generated."""
        raise NotImplementedError


class Recorded(Generated):
    """The paths a golden recorded, each with its group."""

    def __init__(self, volatile: Mapping[str, str]):
        self.paths: dict[Steps, str] = {tuple(parse(path)): group
                                        for path, group in volatile.items()}
        self.patterns: set[Steps] = {tuple("*" if isinstance(s, int) else s for s in steps)
                                     for steps in self.paths}

    def group_of(self, steps: Steps, value: Any) -> str | None:
        return self.paths.get(steps) if self.paths else None

    def groups(self, expected: Any) -> dict[str, list[Steps]]:
        found: dict[str, list[Steps]] = {}
        paths: Iterable[tuple[Steps, str]] = self.paths.items()
        if not _in_order(self.paths):  # a recording is in document order: no sort keys
            paths = sorted(paths, key=lambda item: _order(item[0]))
        for steps, group in paths:
            found.setdefault(group, []).append(steps)
        return found

    def masked(self, list_steps: Steps, item: Any) -> Any:
        prefix: Steps = (*("*" if isinstance(s, int) else s for s in list_steps), "*")
        inner = [p[len(prefix):] for p in self.patterns
                 if len(p) > len(prefix) and p[:len(prefix)] == prefix]
        if not inner:
            return item
        return _blank(item, inner)


class Guessed(Generated):
    """Today's heuristic, for answers without a recording: ids and timestamps not in the
    input. A group is one generated value of Pi's, named for the key and value it is."""

    def __init__(self, known: frozenset[str]):
        self.known = known
        self._groups: dict[str, list[Steps]] | None = None

    def _generated(self, key: Any, value: Any) -> str | None:
        if not isinstance(value, str) or value in self.known:
            return None
        if key in ID_KEYS:
            return f"generated id {value}"
        if key == "timestamp":
            return f"generated timestamp {value}"
        return None

    def group_of(self, steps: Steps, value: Any) -> str | None:
        return self._generated(steps[-1] if steps else None, value)

    def may_hold(self, value: Any) -> bool:
        """A value copied from the input is not generated (Pi generated one here)."""
        return not (isinstance(value, str) and value in self.known)

    def groups(self, expected: Any) -> dict[str, list[Steps]]:
        if self._groups is None:
            self._groups = {}
            for steps, value in _leaves(expected, ()):
                group = self.group_of(steps, value)
                if group is not None:
                    self._groups.setdefault(group, []).append(steps)
        return self._groups

    def masked(self, list_steps: Steps, item: Any) -> Any:
        return _blank_guessed(item, self)


def _order(steps: Steps) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, s) if isinstance(s, int) else (1, s) for s in steps)


def _in_order(paths: Iterable[Steps]) -> bool:
    """Whether ``paths`` are in document order already, found a pair at a time."""
    previous = None
    for steps in paths:
        order = _order(steps)
        if previous is not None and order < previous:
            return False
        previous = order
    return True


def _leaves(value: Any, steps: Steps) -> Iterator[tuple[Steps, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], (*steps, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*steps, index))
    else:
        yield steps, value


_BLANK = "<generated>"


def _blank(value: Any, patterns: list[Steps]) -> Any:
    if () in patterns:
        return _BLANK
    if isinstance(value, dict):
        return {key: _blank(item, [p[1:] for p in patterns if p[0] == key])
                if any(p[0] == key for p in patterns) else item
                for key, item in value.items()}
    if isinstance(value, list):
        inner = [p[1:] for p in patterns if p[0] == "*"]
        return [_blank(item, inner) for item in value] if inner else value
    return value


def _blank_guessed(value: Any, guessed: Guessed, key: Any = None) -> Any:
    if isinstance(value, dict):
        return {k: _blank_guessed(v, guessed, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_guessed(v, guessed, key) for v in value]
    return _BLANK if guessed._generated(key, value) else value


def describe_group(group: str, first: Steps) -> str:
    """How a note names a group: its name and the path where Pi first wrote it."""
    return f"{group} (first at {json_path(list(first))})"
