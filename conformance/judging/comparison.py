"""Compare an implementation's answer with a golden, on parsed JSON, with deepdiff.

Rules (docs/normalization.md): both sides are normalized first (normalize.py); object key
order never matters, list order always does (goldens spell meaningful order as lists);
integers and floats of equal value are equal; floats compare with a relative tolerance of
1e-9, since costs are sums of binary fractions that a port may add in another order;
everything else, opaque signatures included, must be identical.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import orjson
from deepdiff import DeepDiff
from deepdiff.operator import BaseOperator

from conformance.corpus.jsonpath import json_path
from conformance.corpus.normalization import normalize

__all__ = ["Difference", "differences", "json_path"]

REL_TOLERANCE = 1e-9
_MISSING = "<missing>"


class _CloseFloats(BaseOperator):
    """Treat two numbers as equal when they differ by a tiny relative amount."""

    def __init__(self) -> None:
        super().__init__(types=[float, int])

    def give_up_diffing(self, level: Any, diff_instance: Any) -> bool:
        a, b = level.t1, level.t2
        if isinstance(a, bool) or isinstance(b, bool):
            return False
        return math.isclose(a, b, rel_tol=REL_TOLERANCE, abs_tol=1e-12)


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
        custom_operators=[_CloseFloats()],
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
    ]
    return sorted(found, key=lambda d: d.path)
