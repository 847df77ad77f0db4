"""What a judged stage is: the frozen, typed result every report line, renderer and tool uses.

A ``StageResult`` is made once, by the runner (or parsed once, from a report line by
``reporting.stream.read_report``), and never changes: the baseline returns an annotated copy.
``from_json`` is the one place a result line's fields and types are checked, so nothing
downstream reads a dict by key again; ``to_json`` writes exactly the line
``schemas/report.schema.json`` describes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, get_args

from conformance.corpus.cases import OUTCOMES
from conformance.judging.comparison import Difference

# pass: matches the golden. fail: differs where Pi's behaviour is required. error: no usable
# answer (crash, hang, malformed answer, or the implementation reported an error).
# skip: not applicable. info: an answer where nothing is required (implementation-defined,
# or Pi itself misbehaves), with its differences for reference. as-documented: the answer
# follows Pi's documentation where Pi itself does not (Pi throws on input its docs call
# valid, or contradicts its docs); never a failure.
Status = Literal["pass", "fail", "error", "skip", "info", "as-documented"]
STATUSES: tuple[Status, ...] = get_args(Status)
FAILING: tuple[Status, ...] = ("fail", "error")

# Why an ``error`` is an error, so that harness and protocol trouble is never mistaken for a
# wrong answer: timeout and crash (the process hung or died), protocol (garbage, out of order,
# malformed or over-long answers, schema violations), implementation (it reported an error
# itself), harness (the runner's own trouble), not-run (abandoned after the restart cap).
ErrorKind = Literal["timeout", "crash", "protocol", "implementation", "harness", "not-run"]
ERROR_KINDS: tuple[ErrorKind, ...] = get_args(ErrorKind)

ExpectedKind = Literal["output", "rejected", "misbehaved"]  # the golden's kind
ActualKind = Literal["output", "rejected", "skipped", "error"]  # the answer's kind
EXPECTED_KINDS: tuple[ExpectedKind, ...] = get_args(ExpectedKind)
ACTUAL_KINDS: tuple[ActualKind, ...] = get_args(ActualKind)

BaselineState = Literal["known", "stale"]
BASELINE_STATES: tuple[BaselineState, ...] = get_args(BaselineState)


class ModelError(ValueError):
    """Data that does not fit the model; the reader adds the file and line."""


_T = TypeVar("_T")


def get_field(data: Mapping[str, Any], key: str, kind: type[_T] | tuple[type, ...],
         default: Any = ..., what: str = "") -> Any:
    """``data[key]`` if it has the right type; a ModelError naming the field otherwise."""
    if key not in data:
        if default is ...:
            raise ModelError(f"{what}missing field {key!r}")
        return default
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    wrong_bool = isinstance(value, bool) and bool not in kinds
    if not isinstance(value, kinds) or wrong_bool:
        names = " or ".join(k.__name__ for k in kinds)
        raise ModelError(f"{what}field {key!r} must be {names}, not {type(value).__name__}")
    return value


def get_choice(data: Mapping[str, Any], key: str, allowed: Sequence[str], default: Any = ...,
            what: str = "") -> Any:
    value = get_field(data, key, str, default, what)
    if value is not default and value not in allowed:
        raise ModelError(f"{what}field {key!r} is {value!r}, not one of {', '.join(allowed)}")
    return value


def get_strings(data: Mapping[str, Any], key: str, what: str = "") -> tuple[str, ...]:
    items = get_field(data, key, list, [], what)
    if not all(isinstance(item, str) for item in items):
        raise ModelError(f"{what}field {key!r} must be a list of strings")
    return tuple(items)


def refuse_extra(data: Mapping[str, Any], allowed: set[str], what: str) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise ModelError(f"{what}unknown field(s) {', '.join(map(repr, extra))}")


def difference_from_json(data: Any) -> Difference:
    if not isinstance(data, dict):
        raise ModelError("a difference must be an object")
    refuse_extra(data, {"path", "kind", "expected", "actual", "actual_path", "note"},
                 "difference: ")
    path = get_field(data, "path", str, what="difference: ")
    if not path.startswith("$"):
        raise ModelError(f"difference: path {path!r} does not start with $")
    for key in ("expected", "actual"):
        if key not in data:
            raise ModelError(f"difference: missing field {key!r}")
    actual_path = get_field(data, "actual_path", str, None, what="difference: ")
    if actual_path is not None and not actual_path.startswith("$"):
        raise ModelError(f"difference: actual_path {actual_path!r} does not start with $")
    return Difference(path, get_field(data, "kind", str, what="difference: "), data["expected"],
                      data["actual"], actual_path,
                      get_field(data, "note", str, "", what="difference: "))


@dataclass(frozen=True)
class BaselineMark:
    """A baseline entry matched this result: ``known`` (it fails, and that is listed) or
    ``stale`` (it is listed but passes now, so the entry should go)."""

    state: BaselineState
    reason: str
    issue: str = ""

    def to_json(self) -> dict[str, str]:
        return {"state": self.state, "reason": self.reason, "issue": self.issue}

    @classmethod
    def from_json(cls, data: Any) -> BaselineMark:
        if not isinstance(data, dict):
            raise ModelError("field 'baseline' must be an object")
        what = "baseline: "
        refuse_extra(data, {"state", "reason", "issue"}, what)
        return cls(get_choice(data, "state", BASELINE_STATES, what=what),
                   get_field(data, "reason", str, what=what),
                   get_field(data, "issue", str, what=what))


@dataclass(frozen=True)
class StaleEntry:
    """A baseline entry that names no case and stage of the corpus: it would hide nothing."""

    case: str
    stage: str
    reason: str
    issue: str
    problem: str

    def to_json(self) -> dict[str, str]:
        return {"case": self.case, "stage": self.stage, "reason": self.reason,
                "issue": self.issue, "problem": self.problem}

    def describe(self) -> str:
        return f"{self.case} {self.stage}: {self.problem}"

    @classmethod
    def from_json(cls, data: Any) -> StaleEntry:
        if not isinstance(data, dict):
            raise ModelError("a stale baseline entry must be an object")
        what = "stale baseline entry: "
        refuse_extra(data, {"case", "stage", "reason", "issue", "problem"}, what)
        return cls(*(get_field(data, key, str, what=what)
                     for key in ("case", "stage", "reason", "issue", "problem")))


_RESULT_FIELDS = {"type", "case", "stage", "status", "error_kind", "message", "differences",
                  "outcome", "expected", "actual", "duration", "baseline"}


@dataclass(frozen=True)
class StageResult:
    """One case and stage, judged: the status, why, and where the answer differs."""

    case: str
    stage: str
    status: Status
    message: str = ""
    differences: tuple[Difference, ...] = field(default=())
    outcome: str = "required"
    expected_kind: ExpectedKind | None = None
    actual_kind: ActualKind | None = None
    duration: float = 0.0
    error_kind: ErrorKind | None = None
    baseline: BaselineMark | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.differences, tuple):  # a list is welcome, a tuple is kept
            object.__setattr__(self, "differences", tuple(self.differences))

    @property
    def failing(self) -> bool:
        """It fails or errors, whatever a baseline says (what a run diff compares)."""
        return self.status in FAILING

    @property
    def baseline_state(self) -> BaselineState | None:
        return self.baseline.state if self.baseline else None

    @property
    def counts_as_failure(self) -> bool:
        """It fails the run: failing and not a known failure, or a stale baseline entry."""
        if self.baseline_state == "stale":
            return True
        return self.failing and self.baseline_state != "known"

    def with_baseline(self, mark: BaselineMark | None) -> StageResult:
        return replace(self, baseline=mark)

    def to_json(self) -> dict[str, Any]:
        """The report line (schemas/report.schema.json), fields in a fixed order."""
        data: dict[str, Any] = {"type": "result", "case": self.case, "stage": self.stage,
                                "status": self.status}
        if self.error_kind:
            data["error_kind"] = self.error_kind
        if self.message:
            data["message"] = self.message
        if self.differences:
            data["differences"] = [d.to_json() for d in self.differences]
        data["outcome"] = self.outcome
        if self.expected_kind:
            data["expected"] = self.expected_kind
        if self.actual_kind:
            data["actual"] = self.actual_kind
        data["duration"] = round(self.duration, 6)
        if self.baseline is not None:
            data["baseline"] = self.baseline.to_json()
        return data

    @classmethod
    def from_json(cls, data: Any) -> StageResult:
        """Parse one report line; anything that does not fit is a ModelError saying what."""
        if not isinstance(data, dict):
            raise ModelError("a result must be an object")
        refuse_extra(data, _RESULT_FIELDS, "")
        case, stage = get_field(data, "case", str), get_field(data, "stage", str)
        if not case or not stage:
            raise ModelError("a result needs a non-empty case and stage")
        status = get_choice(data, "status", STATUSES)
        differences = get_field(data, "differences", list, [])
        duration = get_field(data, "duration", (int, float))
        if not math.isfinite(duration) or duration < 0:
            raise ModelError(f"field 'duration' must be a number of seconds, not {duration}")
        baseline = data.get("baseline")
        return cls(
            case=case,
            stage=stage,
            status=status,
            message=get_field(data, "message", str, ""),
            differences=tuple(difference_from_json(d) for d in differences),
            outcome=get_choice(data, "outcome", OUTCOMES),
            expected_kind=get_choice(data, "expected", EXPECTED_KINDS, None),
            actual_kind=get_choice(data, "actual", ACTUAL_KINDS, None),
            duration=float(duration),
            error_kind=get_choice(data, "error_kind", ERROR_KINDS, None),
            baseline=BaselineMark.from_json(baseline) if baseline is not None else None,
        )


__all__ = ["ACTUAL_KINDS", "BASELINE_STATES", "ERROR_KINDS", "EXPECTED_KINDS", "FAILING",
           "STATUSES", "ActualKind", "BaselineMark", "BaselineState", "ErrorKind",
           "ExpectedKind", "ModelError", "StageResult", "StaleEntry", "Status", "get_choice",
           "get_field", "get_strings", "refuse_extra"]
