"""Compare an implementation's answer with a golden: exact, aligned, bounded.

Rules (docs/normalization.md): object key order never matters, list order always does
(goldens spell meaningful order as lists); numbers follow ``normalization.same_number``
(integers exactly, a fraction within a tiny tolerance); everything else, ids in requests and
opaque signatures included, must be identical, except the values Pi generates
(``generated.py``): there the answer may hold its own values, reused where Pi reused its own.

How, at a cost proportional to what differs: equal answers are found by their canonical
bytes before anything else; a walk then descends only into unequal subtrees, skipping equal
ones by their bytes; lists are aligned first (``alignment.py``), so a missing or extra item
is one difference and the items after it line up. Small unequal objects with no lists inside
(a usage block, a header) are diffed by DeepDiff, with our number rule. The walk stops after
``MAX_DIFFERENCES`` differences or ``MAX_STEPS`` nodes and says so, and compares anything
nested deeper than ``MAX_DEPTH`` as a whole.

Memory, beside the two values: at most about 4 x the answer's size as JSON (canonical bytes of
both sides) + 250 bytes an item of each list aligned by keys (a 16-byte digest, the pairs as
arrays) + 1.5 KB a generated value the answer holds of its own (docs/normalization.md;
measured by benchmarks/bench_judging_memory.py). Nothing is kept per item but fixed-size
digests and indices: canonical bytes kept are copies (``jsonio.canonical``), never orjson's
4 KiB buffer.
"""

from __future__ import annotations

import functools
import hashlib
from array import array
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance import jsonio
from conformance.corpus.jsonpath import json_path
from conformance.corpus.normalization import REL_TOLERANCE, is_number, same_number
from conformance.judging.alignment import NONE, Aligned, aligned
from conformance.judging.generated_values import (
    Generated,
    Guessed,
    Recorded,
    Steps,
    describe_group,
    is_clock_reading,
    output_paths,
)

__all__ = ["MAX_DEPTH", "MAX_DIFFERENCES", "MAX_STEPS", "REL_TOLERANCE", "Difference",
           "differences", "identical", "json_path", "output_paths", "preload"]

MAX_DIFFERENCES = 1000  # differences listed per comparison; the rest is one "not compared"
MAX_STEPS = 2_000_000  # nodes visited per comparison
MAX_DEPTH = 200  # deeper than this, subtrees are compared whole
_MISSING = "<missing>"


@dataclass(frozen=True)
class Difference:
    """One place where the answer and the golden disagree.

    ``path`` is where in Pi's answer (for an extra item: where it would go); ``actual_path``,
    when set, is where the answer holds it, if alignment moved it; ``note`` says what a
    missing or extra item is, or why a generated value is wrong.
    """

    path: str
    kind: str
    expected: Any
    actual: Any
    actual_path: str | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        data = {"path": self.path, "kind": self.kind, "expected": self.expected,
                "actual": self.actual}
        if self.actual_path is not None:
            data["actual_path"] = self.actual_path
        if self.note:
            data["note"] = self.note
        return data


def differences(expected: Any, actual: Any, known: frozenset[str] = frozenset(), *,
                volatile: Mapping[str, str] | None = None) -> list[Difference]:
    """Every difference between ``expected`` (Pi's) and ``actual``, in document order.

    ``volatile``: the generated values' paths in ``expected`` and their groups (a golden's
    ``output_paths(golden.volatile)``). Without it they are guessed from ``known``
    (``normalization.input_strings(session)``).
    """
    if identical(expected, actual):
        return []
    walk = _Walk(Recorded(volatile) if volatile is not None else Guessed(known))
    walk.compare(expected, actual, (), (), 0)
    found = walk.found + walk.generated_differences(expected, actual)
    if walk.stopped:
        found.append(Difference("$", "not compared", None, None, note=walk.stopped))
    return found


def _equal(a: Any, b: Any) -> bool:
    """Equal as JSON, by canonical bytes (``true`` is not ``1``; key order does not matter).
    False for one number spelled two ways (the walk decides); nesting deeper than orjson
    goes is compared without recursion."""
    try:
        return jsonio.canonical(a) == jsonio.canonical(b)
    except (TypeError, ValueError, RecursionError):
        return _deep_equal(a, b)


def _deep_equal(a: Any, b: Any) -> bool:
    """Equality as JSON without recursion, for values nested deeper than orjson goes."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif is_number(x) and is_number(y):
            if not same_number(x, y):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def identical(a: Any, b: Any) -> bool:
    """``_equal``, after Python's ``==`` (which stops at the first difference) has not ruled it
    out: what ``==`` calls unequal is unequal as JSON too, but for one number spelled as two
    integers beyond 2**53, which the walk then finds equal."""
    try:
        if a != b:
            return False
    except RecursionError:
        pass
    return _equal(a, b)


DIGEST_SIZE = 16  # bytes of an alignment key
_TRUE, _FALSE = ("bool", True), ("bool", False)  # not 1 and 0, which JSON tells apart


def _key(item: Any) -> Hashable:
    """What alignment matches items by: a scalar itself (a boolean tagged, so that ``true`` is
    not ``1``), a container's digest, an object of its own for what cannot be serialized.

    The digest (BLAKE2b, 128 bits) of the canonical bytes, not the bytes: ``orjson`` hands
    back its whole growth buffer (4 KiB or more for an item of a few hundred bytes), so a list's
    keys as bytes cost about 8 KiB per item, 25 times the answer. A digest takes 64 bytes, and
    two items with one digest are the same JSON (a collision of 128-bit BLAKE2b is not a thing
    judging must plan for). A scalar is its own key: no object is made per item."""
    if isinstance(item, (dict, list)):
        try:
            return hashlib.blake2b(jsonio.canonical(item), digest_size=DIGEST_SIZE).digest()
        except (TypeError, ValueError, RecursionError):
            return object()  # equal to nothing else: paired by kind and position
    if item is True or item is False:
        return _TRUE if item else _FALSE
    if item is None or isinstance(item, (str, int, float)):
        return item
    return (type(item).__name__, item)  # not JSON (a caller's bytes): never a digest


def _kind(item: Any) -> Hashable:
    if isinstance(item, dict):
        message = item.get("message")
        inner = message.get("role") if isinstance(message, dict) else None
        return (str(item.get("type")), str(item.get("role")), str(inner))
    return type(item).__name__


def describe_item(list_key: Any, item: Any) -> str:
    """What an item of a list is, in words: ``user message``, ``thinking block``."""
    if isinstance(item, dict):
        role, kind = item.get("role"), item.get("type")
        message = item.get("message")
        if isinstance(message, dict) and isinstance(message.get("role"), str):
            return f"{kind} entry ({message['role']} message)"
        if list_key == "content" and isinstance(kind, str):
            return f"{kind.replace('_', ' ')} block"  # redacted_thinking: redacted thinking
        if isinstance(role, str):
            return f"{role} message" if list_key in ("messages", "input", "contents") \
                else f"{role} item"
        if isinstance(kind, str):
            return f"{kind} {'entry' if list_key == 'entries' else 'item'}"
    return {"messages": "message", "entries": "entry", "content": "block"}.get(
        list_key, "item") if not isinstance(list_key, int) else "item"


def _loose(value: Any) -> Any:
    """``value`` with integral floats as ints: a key that a port writing ``0.0`` matches."""
    if isinstance(value, dict):
        return {k: _loose(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_loose(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


MAX_FLAT_LEAVES = 64  # an object this small, without lists, is diffed by DeepDiff
_KINDS = {
    "values_changed": "changed",
    "type_changes": "type changed",
    "dictionary_item_added": "unexpected key",
    "dictionary_item_removed": "missing key",
}


@functools.cache
def _deepdiff() -> tuple[Any, Any]:
    """DeepDiff and our number operator for it, imported on first use: importing deepdiff
    takes about half a second, longer than judging a small run whose answers are equal."""
    from deepdiff import DeepDiff
    from deepdiff.operator import BaseOperator

    class Numbers(BaseOperator):
        """JSON numbers for DeepDiff: one type, equal by ``same_number``."""

        def __init__(self) -> None:
            super().__init__(types=[float, int])

        def give_up_diffing(self, level: Any, diff_instance: Any) -> bool:
            a, b = level.t1, level.t2
            if not (is_number(a) and is_number(b)):
                return False
            if not same_number(a, b):
                diff_instance.custom_report_result("values_changed", level)
            return True

    return DeepDiff, Numbers


def preload() -> None:
    """Import what comparison imports on first use, now. For code that compares in one
    thread while another generates with Hypothesis: deepdiff imports numpy, and Hypothesis's
    ``sampled_from`` reads ``sys.modules["numpy"]`` and fails on a module half imported."""
    _deepdiff()


def _shown(value: Any) -> Any:
    return _MISSING if type(value).__name__ == "NotPresent" else value


def _flat(value: dict[str, Any]) -> bool:
    """Whether ``value`` is an object of at most ``MAX_FLAT_LEAVES`` leaves and no list."""
    budget = MAX_FLAT_LEAVES
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            return False
        else:
            budget -= 1
            if budget < 0:
                return False
    return True


@dataclass(frozen=True)
class _Lined:
    """A list's alignment: the pairs (``alignment.Aligned``) and, per pair, whether its two
    items are known to be equal as JSON (1) or must be compared (0). No object per pair."""

    pairs: Aligned
    same: bytearray

    def moves(self, expected_length: int) -> array[int] | None:
        """Per expected index, the answer's index of its item (``NONE``: missing), or None
        when every item stayed where it was."""
        if self.pairs.expected == self.pairs.actual:
            return None
        moved: array[int] = array("q", [NONE]) * expected_length
        for i, j in zip(self.pairs.expected, self.pairs.actual, strict=True):
            if i != NONE:
                moved[i] = j
        return moved


def _in_place(n: int, changed: set[int]) -> _Lined:
    """Items paired by position, those in ``changed`` to compare."""
    same = bytearray(b"\x01") * n
    for i in changed:
        same[i] = 0
    return _Lined(Aligned(array("q", range(n)), array("q", range(n))), same)


def _cheap_alignment(e: list[Any], a: list[Any]) -> _Lined | None:
    """The usual alignments without an item's bytes: equal lengths with a few items changed
    in place, or one block of items missing or extra. Python's ``==`` finds the candidates
    (fast, but ``true == 1``), and one canonical comparison of everything it called equal
    confirms them; None when neither shape fits or the confirmation fails."""
    n, m = len(e), len(a)
    lo = 0
    while lo < n and lo < m and e[lo] == a[lo]:
        lo += 1
    he, ha = n, m
    while he > lo and ha > lo and e[he - 1] == a[ha - 1]:
        he, ha = he - 1, ha - 1
    if n == m:
        changed = [i for i in range(lo, he) if e[i] != a[i]]
        if len(changed) > max(1, (he - lo) // 2):
            return None
        differ = set(changed)
        if not _equal([x for i, x in enumerate(e) if i not in differ],
                      [x for i, x in enumerate(a) if i not in differ]):
            return None
        return _in_place(n, differ)
    if lo < he and lo < ha:
        return None  # items changed and items missing or extra: the keyed alignment decides
    if not _equal(e[:lo] + e[he:], a[:lo] + a[ha:]):
        return None
    expected = array("q", range(lo))
    expected.extend(range(lo, he))
    expected.extend([NONE] * (ha - lo))
    expected.extend(range(he, n))
    actual = array("q", range(lo))
    actual.extend([NONE] * (he - lo))
    actual.extend(range(lo, ha))
    actual.extend(range(ha, m))
    same = bytearray(b"\x01") * lo + bytearray(he - lo + ha - lo) + \
        bytearray(b"\x01") * (n - he)
    return _Lined(Aligned(expected, actual), same)


class _Digests:
    """A list's digest keys packed in one buffer (16 bytes an item, no object each): what
    tells, after the keys are gone, which pairs are equal as JSON."""

    def __init__(self, keys: list[Hashable]):
        self.has = bytearray(len(keys))
        self.packed = bytearray(DIGEST_SIZE * len(keys))
        for n, key in enumerate(keys):  # filled in place: no list or copy on the way
            if isinstance(key, bytes):
                self.has[n] = 1
                self.packed[n * DIGEST_SIZE:(n + 1) * DIGEST_SIZE] = key

    def equal(self, i: int, other: _Digests, j: int) -> bool:
        """Whether item ``i`` here and item ``j`` of ``other`` have one digest."""
        return bool(self.has[i] and other.has[j]) and \
            self.packed[i * DIGEST_SIZE:(i + 1) * DIGEST_SIZE] == \
            other.packed[j * DIGEST_SIZE:(j + 1) * DIGEST_SIZE]


class _Walk:
    def __init__(self, generated: Generated):
        self.generated = generated
        self.found: list[Difference] = []
        self.steps = 0
        self.stopped = ""
        # (group, expected steps, actual steps, Pi's value, the answer's value)
        self.pending: list[tuple[str, Steps, Steps, Any, Any]] = []
        # expected list steps -> per expected index, the answer's (NONE: missing), where
        # alignment moved items
        self.moves: dict[Steps, array[int]] = {}

    def add(self, esteps: Steps, asteps: Steps, kind: str, expected: Any, actual: Any,
            note: str = "") -> None:
        if self.stopped:
            return
        moved = json_path(list(asteps)) if asteps != esteps or kind == "unexpected item" \
            else None
        self.found.append(Difference(json_path(list(esteps)), kind, expected, actual, moved,
                                     note))
        if len(self.found) >= MAX_DIFFERENCES:
            self.stopped = (f"the comparison stopped after {MAX_DIFFERENCES} differences; "
                            "the rest of the answer was not compared")

    def compare(self, e: Any, a: Any, es: Steps, as_: Steps, depth: int) -> None:
        if self.stopped:
            return
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.stopped = (f"the comparison stopped after visiting {MAX_STEPS} values; the "
                            "rest of the answer was not compared")
            return
        group = self.generated.group_of(es, e)
        if group is not None and type(e) is type(a) and self.generated.may_hold(a) and \
                not _equal(e, a):
            self.pending.append((group, es, as_, e, a))
            return
        if depth > MAX_DEPTH:
            if not _equal(e, a):
                self.add(es, as_, "changed", e, a,
                         f"nested deeper than {MAX_DEPTH} levels: compared as a whole")
            return
        if isinstance(e, dict) and isinstance(a, dict):
            self.objects(e, a, es, as_, depth)
        elif isinstance(e, list) and isinstance(a, list):
            self.lists(e, a, es, as_, depth)
        else:
            self.leaves(e, a, es, as_)

    def leaves(self, e: Any, a: Any, es: Steps, as_: Steps) -> None:
        if is_number(e) and is_number(a):
            if not same_number(e, a):
                self.add(es, as_, "changed", e, a)
        elif type(e) is not type(a) and not (isinstance(e, (dict, list)) and
                                             isinstance(a, (dict, list))
                                             and type(e) is type(a)):
            self.add(es, as_, "type changed", e, a)
        elif e != a:
            self.add(es, as_, "changed", e, a)

    def objects(self, e: dict[str, Any], a: dict[str, Any], es: Steps, as_: Steps,
                depth: int) -> None:
        if _flat(e) and _flat(a):
            self.small_objects(e, a, es, as_)
            return
        for key in sorted(e.keys() | a.keys()):
            if key not in a:
                self.add((*es, key), (*as_, key), "missing key", e[key], _MISSING)
            elif key not in e:
                self.add((*es, key), (*as_, key), "unexpected key", _MISSING, a[key])
            else:
                ce, ca = e[key], a[key]
                if isinstance(ce, dict) and isinstance(ca, dict) and identical(ce, ca):
                    continue  # (a list checks its own items: see lists)
                self.compare(ce, ca, (*es, key), (*as_, key), depth + 1)

    def small_objects(self, e: dict[str, Any], a: dict[str, Any], es: Steps,
                      as_: Steps) -> None:
        """A small unequal object with no list inside: DeepDiff's structured differences,
        with our number rule, generated values set aside for the group check."""
        generated = self.generated_only(e, a, es, as_)
        if generated is not None:
            self.pending.extend(generated)
            return
        deep_diff, numbers = _deepdiff()
        tree = deep_diff(e, a, custom_operators=[numbers()], view="tree", cache_size=0)
        found = sorted(((tuple(item.path(output_format="list")), report, _shown(item.t1),
                         _shown(item.t2)) for report, items in tree.items() for item in items),
                       key=lambda found: found[0])
        for steps, report, old, new in found:
            kind = _KINDS.get(report, report)
            if report == "type_changes" and is_number(old) and is_number(new):
                if same_number(old, new):
                    continue  # 1 and 1.0: one JSON number
                kind = "changed"
            group = self.generated.group_of((*es, *steps), old) \
                if kind in ("changed", "type changed") else None
            if group is not None and type(old) is type(new) and self.generated.may_hold(new):
                self.pending.append((group, (*es, *steps), (*as_, *steps), old, new))
            else:
                self.add((*es, *steps), (*as_, *steps), kind, old, new)

    def generated_only(self, e: dict[str, Any], a: dict[str, Any], es: Steps, as_: Steps
                       ) -> list[tuple[str, Steps, Steps, Any, Any]] | None:
        """When two small objects differ only in generated values, those values for the group
        check; else None. It is how a conforming answer differs, by its
        own ids and timestamps, and it needs neither DeepDiff's walk nor its import (half a
        second: numpy). The leaves are compared as ``small_objects`` compares them."""
        found = []
        stack: list[tuple[Steps, Any, Any]] = [((), e, a)]
        while stack:
            steps, old, new = stack.pop()
            if isinstance(old, dict) and isinstance(new, dict):
                if old.keys() != new.keys():
                    return None
                stack.extend(((*steps, key), old[key], new[key]) for key in old)
                continue
            if is_number(old) and is_number(new) and same_number(old, new):
                continue
            if type(old) is type(new) and old == new:
                continue
            group = self.generated.group_of((*es, *steps), old)
            if group is None or type(old) is not type(new) or not self.generated.may_hold(new):
                return None
            found.append((group, (*es, *steps), (*as_, *steps), old, new))
        return found

    def lists(self, e: list[Any], a: list[Any], es: Steps, as_: Steps, depth: int) -> None:
        try:
            pairs = _cheap_alignment(e, a)
        except RecursionError:  # items nested too deep for ==: the keys decide
            pairs = None
        if pairs is None:
            pairs = self.keyed_alignment(e, a, es)
        moved = pairs.moves(len(e))
        if moved is not None:
            self.moves[es] = moved
        list_key = es[-1] if es else None
        inserted_at = 0
        for i, j, same in zip(pairs.pairs.expected, pairs.pairs.actual, pairs.same,
                              strict=True):
            if self.stopped:
                return
            if i == NONE:
                self.add((*es, inserted_at), (*as_, j), "unexpected item", _MISSING, a[j],
                         "extra item: " + describe_item(list_key, a[j]))
            elif j == NONE:
                self.add((*es, i), (*es, i), "missing item", e[i], _MISSING,
                         "missing item: " + describe_item(list_key, e[i]))
                inserted_at = i + 1
            else:
                inserted_at = i + 1
                if not same:
                    self.compare(e[i], a[j], (*es, i), (*as_, j), depth + 1)

    def keyed_alignment(self, e: list[Any], a: list[Any], es: Steps) -> _Lined:
        """Items matched by their keys (digests of canonical bytes); with few matches and
        lengths that differ, by keys that ignore generated values and ``0.0`` against ``0``.
        Memory: a key (64 bytes and a slot) per item, and what ``alignment`` keeps."""
        e_keys = [_key(item) for item in e]
        a_keys = [_key(item) for item in a]
        kinds: dict[Hashable, Hashable] = {}  # one tuple per kind, not one per item

        def e_kind(i: int) -> Hashable:
            return kinds.setdefault(kind := _kind(e[i]), kind)

        def a_kind(j: int) -> Hashable:
            return kinds.setdefault(kind := _kind(a[j]), kind)

        pairs = aligned(e_keys, a_keys, e_kind, a_kind)
        matched = sum(1 for i, j in zip(pairs.expected, pairs.actual, strict=True)
                      if i != NONE and j != NONE and e_keys[i] == a_keys[j])
        if len(e) == len(a) or matched >= min(len(e), len(a)) / 2:
            # Pairs of equal digests are equal as JSON: their walk is skipped.
            return _Lined(pairs, bytearray(
                i != NONE and j != NONE and isinstance(e_keys[i], bytes)
                and e_keys[i] == a_keys[j]
                for i, j in zip(pairs.expected, pairs.actual, strict=True)))
        del pairs  # not kept beside the loose alignment's own
        e_digests, a_digests = _Digests(e_keys), _Digests(a_keys)
        del e_keys, a_keys  # 16 bytes an item from here on, not a key object each
        loose_e = [_key(_loose(self.generated.masked(es, item))) for item in e]
        loose_a = [_key(_loose(self.generated.masked(es, item))) for item in a]
        pairs = aligned(loose_e, loose_a, e_kind, a_kind)
        del loose_e, loose_a
        same = bytearray(i != NONE and j != NONE and e_digests.equal(i, a_digests, j)
                         for i, j in zip(pairs.expected, pairs.actual, strict=True))
        return _Lined(pairs, same)

    # -- generated values ----------------------------------------------------------------

    def actual_steps(self, steps: Steps) -> Steps | None:
        """Where the answer holds what Pi holds at ``steps``, through the alignments."""
        out: list[str | int] = []
        for n, step in enumerate(steps):
            if isinstance(step, int):
                moves = self.moves.get(steps[:n])
                if moves is not None:
                    moved = moves[step] if 0 <= step < len(moves) else NONE
                    if moved == NONE:
                        return None
                    step = moved
            out.append(step)
        return tuple(out)

    def generated_differences(self, expected: Any, actual: Any) -> list[Difference]:
        """Generated values the answer does not reuse as Pi does: in a group, every path
        must hold one value; two groups should not share one (clock readings may)."""
        if not self.pending:
            return []
        groups = self.generated.groups(expected)
        involved = {group for group, *_ in self.pending}
        found: list[Difference] = []
        chosen: dict[str, bytes] = {}
        for group in sorted(involved):
            members = groups.get(group) or [steps for g, steps, *_ in self.pending
                                            if g == group]
            held = []
            for steps in members:
                where = self.actual_steps(steps)
                value = _get(actual, where) if where is not None else _ABSENT
                if value is not _ABSENT and _get(expected, steps) is not _ABSENT:
                    held.append((steps, where, value))
            if not held:
                continue
            counts = Counter(_safe_bytes(value) for *_, value in held)
            top = max(counts.values())
            choice = next(_safe_bytes(v) for *_, v in held if counts[_safe_bytes(v)] == top)
            chosen[group] = choice
            first = members[0]
            for steps, where, value in held:
                if _safe_bytes(value) != choice:
                    found.append(Difference(
                        json_path(list(steps)), "changed", _get(expected, steps), value,
                        json_path(list(where)) if where is not None and where != steps
                        else None,
                        f"generated value: Pi holds one value here and at "
                        f"{describe_group(group, first)}; the answer holds two"))
        pi_values = {group: _safe_bytes(_get(expected, paths[0]))
                     for group, paths in groups.items() if paths}
        owners: dict[bytes, str] = {}
        for group, paths in groups.items():
            value = chosen.get(group, pi_values.get(group))
            if value is None or not paths:
                continue
            if is_clock_reading(_get(expected, paths[0])):
                continue
            other = owners.setdefault(value, group)
            if other != group and group in involved:
                found.append(Difference(
                    json_path(list(paths[0])), "changed", _get(expected, paths[0]),
                    _get(actual, self.actual_steps(paths[0]) or paths[0]), None,
                    f"generated value: the answer reuses the value of "
                    f"{describe_group(other, groups[other][0])}; Pi generates two"))
        return found


_ABSENT = object()


def _get(value: Any, steps: Steps | None) -> Any:
    if steps is None:
        return _ABSENT
    for step in steps:
        if isinstance(step, int) and isinstance(value, list) and 0 <= step < len(value):
            value = value[step]
            continue
        if not (isinstance(step, str) and isinstance(value, dict) and step in value):
            return _ABSENT
        value = value[step]
    return value


def _safe_bytes(value: Any) -> bytes:
    try:
        return jsonio.canonical(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value).encode()
