"""Compare an implementation's answer with a golden, on parsed JSON, with deepdiff.

Rules (docs/normalization.md): both sides are normalized first (normalize.py); object key
order never matters, list order always does (goldens spell meaningful order as lists);
integers and floats of equal value are equal; integers compare exactly and only a fraction
gets a relative tolerance (``normalization.same_number``), since costs are sums of binary
fractions that a port may add in another order; everything else, opaque signatures
included, must be identical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from deepdiff import DeepDiff
from deepdiff.operator import BaseOperator

from conformance.corpus.jsonpath import json_path
from conformance.corpus.normalization import REL_TOLERANCE, is_number, normalize, same_number

__all__ = ["REL_TOLERANCE", "Difference", "differences", "json_path"]

_MISSING = "<missing>"


class _Numbers(BaseOperator):
    """JSON numbers: one type (``0.02`` against ``0`` is changed, not a type change), and
    equal by ``same_number`` (integers exactly, fractions within a tiny tolerance)."""

    def __init__(self) -> None:
        super().__init__(types=[float, int])

    def give_up_diffing(self, level: Any, diff_instance: Any) -> bool:
        a, b = level.t1, level.t2
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(b, (int, float)):
            return False
        if not same_number(a, b):
            diff_instance.custom_report_result("values_changed", level)
        return True


@dataclass(frozen=True)
class Difference:
    """One place where the answer and the golden disagree."""

    path: str
    kind: str
    expected: Any
    actual: Any

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "expected": self.expected,
                "actual": self.actual}


def _canonical(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None


_KINDS = {
    "values_changed": "changed",
    "type_changes": "type changed",
    "dictionary_item_added": "unexpected key",
    "dictionary_item_removed": "missing key",
    "iterable_item_added": "unexpected item",
    "iterable_item_removed": "missing item",
}


def _numbers(a: Any, b: Any) -> bool:
    return is_number(a) and is_number(b)


def _shown(value: Any) -> Any:
    return _MISSING if type(value).__name__ == "NotPresent" else value


def differences(expected: Any, actual: Any, known: frozenset[str]) -> list[Difference]:
    """Every difference between normalized ``expected`` and ``actual``, in path order.

    ``known`` is ``normalize.input_strings(session)``, computed once per case.
    """
    expected, actual = normalize(expected, known), normalize(actual, known)
    canonical = _canonical(expected)
    if canonical is not None and canonical == _canonical(actual):
        return []  # the common case, without deepdiff's cost
    tree = DeepDiff(
        expected,
        actual,
        custom_operators=[_Numbers()],
        view="tree",
        cache_size=0,
    )
    found = [
        Difference(
            path=json_path(item.path(output_format="list")),
            kind=_KINDS.get(report, report),
            expected=_shown(item.t1),
            actual=_shown(item.t2),
        )
        for report, items in tree.items()
        for item in items
        if not (report == "type_changes" and _numbers(item.t1, item.t2)
                and same_number(item.t1, item.t2))
    ]
    found = [Difference(d.path, "changed", d.expected, d.actual)
             if d.kind == "type changed" and _numbers(d.expected, d.actual) else d
             for d in found]
    return sorted(found, key=lambda d: d.path)
