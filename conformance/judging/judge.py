"""One stage's verdict: an implementation's answer against Pi's golden, by the case's outcome
class. Pure: no process, no file but the golden it is handed (``Runner`` in
``execution/runner.py`` asks, this judges).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from conformance.corpus.answers import Answer, Failed, Misbehaved, Output, Rejected, Skipped
from conformance.corpus.cases import Case
from conformance.corpus.goldens import Golden
from conformance.judging.comparison import Difference, differences, identical, output_paths
from conformance.judging.results import ErrorKind, StageResult, Status
from conformance.judging.scope import in_scope, outside

_ABSENT = object()


def project_fields(value: Any, paths: tuple[str, ...]) -> Any:
    """Only the dotted ``paths`` of an object (absent ones stay absent): a partial claim."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for path in paths:
        source, target, keys = value, out, path.split(".")
        for key in keys[:-1]:
            source = source.get(key, _ABSENT) if isinstance(source, dict) else _ABSENT
            target = target.setdefault(key, {})
        found = source.get(keys[-1], _ABSENT) if isinstance(source, dict) else _ABSENT
        if found is not _ABSENT:
            target[keys[-1]] = found
    return out


def pending_messages(output: Any) -> list[int]:
    """Positions of assistant messages still ``pending`` in an events-stage answer."""
    messages = output.get("messages") if isinstance(output, dict) else None
    if not isinstance(messages, list):
        return []
    return [i for i, m in enumerate(messages) if isinstance(m, dict)
            and m.get("role") == "assistant" and m.get("stopReason") == "pending"]


def judge(case: Case, stage: str, answer: Answer, golden: Golden,
          fields: tuple[str, ...] = ()) -> StageResult:
    """One stage's verdict: the implementation's answer against Pi's golden.

    ``fields``: the implementation claims only these output paths of the stage (hello
    ``capabilities.fields``); the golden is cut down to them, the answer is not, so an answer
    with more than it claims still fails. The golden's volatile paths are read only when the
    outputs differ: for an answer given by the reference itself (``compare``, ``fuzz``)
    finding them means asking Pi again, which an equal answer never needs.
    """
    pi = golden.answer
    verdict = functools.partial(StageResult, case.id, stage, outcome=case.outcome,
                                expected_kind=pi.kind)
    if isinstance(answer, Failed):
        return failure(case, stage, golden, answer.message,
                       "protocol" if answer.protocol else "implementation")
    if isinstance(answer, Skipped):
        return verdict("skip", f"the implementation skipped it: {answer.reason}",
                       actual_kind="skipped")
    if isinstance(pi, Misbehaved) or (case.outcome == "reference-misbehaves"
                                      and stage in case.scope):
        how = pi.how if isinstance(pi, Misbehaved) else pi.kind
        return verdict("info", f"Pi itself misbehaves here ({how}); the answer is not judged",
                       actual_kind=answer.kind)
    status: Status = "pass"
    message = ""
    found: list[Difference] = []
    if isinstance(pi, Rejected) and not isinstance(answer, Rejected):
        status, message = "fail", (f"Pi rejects this input ({pi.message}), the implementation "
                                   "answered it")
    elif isinstance(answer, Rejected) and not isinstance(pi, Rejected):
        status, message = "fail", (f"the implementation rejected this input ({answer.message})"
                                   ", Pi answers it")
    elif isinstance(pi, Output) and isinstance(answer, Output):
        expected = project_fields(pi.value, fields) if fields else pi.value
        if not identical(expected, answer.value):
            found = differences(expected, answer.value,
                                volatile=output_paths(golden.volatile))
        if found:
            status, message = "fail", f"{len(found)} difference(s)"
        if stage == "events" and pending_messages(answer.value):
            status = "fail"
            message = ("a pending assistant message would be persisted (positions "
                       f"{pending_messages(answer.value)}); Pi never persists one")
        if fields:
            message = (message + "; " if message else "") + \
                "partial claim, compared only " + ", ".join(fields)
    if status == "fail":
        status, message = reclassify(case, stage, pi.kind, answer.kind, message, found)
    return verdict(status, message, tuple(found), actual_kind=answer.kind)


def failure(case: Case, stage: str, golden: Golden | None, message: str,
            kind: ErrorKind) -> StageResult:
    """The verdict of a stage without a usable answer (a crash, a hang, a reported error):
    an ``error``, except where Pi itself misbehaves, where nothing is required (``info``)."""
    pi = golden.answer if golden is not None else None
    misbehaving = case.outcome == "reference-misbehaves" or isinstance(pi, Misbehaved)
    return StageResult(case.id, stage, "info" if misbehaving else "error", message,
                       outcome=case.outcome, expected_kind=pi.kind if pi else None,
                       actual_kind="error", error_kind=kind)


def reclassify(case: Case, stage: str, expected_kind: str, actual_kind: str, message: str,
               found: Sequence[Difference] = ()) -> tuple[Status, str]:
    """What an answer that differs from Pi means, by the case's outcome class, where the
    class applies (its ``[scope]``: judging/scope.py); everywhere else it is a failure.

    Pi's docs give no second golden, so "follows the docs" is decided by this rule alone:
    where Pi throws on input its docs call valid, answering the input instead is
    ``as-documented``; where Pi contradicts its docs, any answer that differs from Pi is
    ``as-documented``, its differences shown (docs/corpus.md, "Outcome classes").
    """
    if case.outcome == "required":
        return "fail", message
    paths = case.scope.get(stage)
    if not in_scope(paths, found):
        left = outside(paths, found)
        where = (f"{len(left)} of them outside it, first at {left[0].path}" if found and paths
                 else f"{stage} is outside it" if paths is None else "the whole stage is not")
        return "fail", (f"{message}; the case's outcome class ({case.outcome}) does not "
                        f"cover this ({where}: its scope is "
                        f"{', '.join(sorted(case.scope)) or 'empty'})")
    if case.outcome == "implementation-defined":
        return "info", message
    if case.outcome == "pi-contradicts-docs":
        return "as-documented", (f"Pi contradicts its docs here (corpus/discrepancies/"
                                 f"{case.discrepancy}.toml); this answer differs from Pi: "
                                 + message)
    if (case.outcome == "pi-throws-on-valid-input" and expected_kind == "rejected"
            and actual_kind == "output"):
        return "as-documented", ("Pi throws on input its docs call valid, and this answer "
                                 "follows the docs: " + message)
    return "fail", message
