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


def _pending(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "assistant" \
        and message.get("stopReason") == "pending"


def pending_messages(output: Any) -> list[str]:
    """Where an events-stage answer persists an assistant message still ``pending``: in the
    persisted ``messages`` (a capture's answer) or the ``appended`` entries (a live turn's).
    Not the replayed ``context``: the file given may hold one already (traps.pending-
    persisted), which Pi replays as it is. JSON paths, as differences name them."""
    if not isinstance(output, dict):
        return []
    found = []
    messages = output.get("messages")
    if isinstance(messages, list):
        found += [f"$.output.messages[{i}]" for i, m in enumerate(messages) if _pending(m)]
    appended = output.get("appended")
    if isinstance(appended, list):
        found += [f"$.output.appended[{i}].message" for i, e in enumerate(appended)
                  if isinstance(e, dict) and _pending(e.get("message"))]
    return found


def _messages(output: Any, key: str) -> list[Any] | None:
    part = output.get(key) if isinstance(output, dict) else None
    messages = part.get("messages") if isinstance(part, dict) else None
    return messages if isinstance(messages, list) else None


def replay_disagreement(output: Any) -> str | None:
    """Where the conversation replayed from the file after a live turn (``context``) differs
    from the live state (``live``): the seed's renderer that works on the stream and fails on
    a saved session. None when they agree, or when the answer has not both."""
    replayed, live = _messages(output, "context"), _messages(output, "live")
    if replayed is None or live is None or replayed == live:
        return None
    def role(message: Any) -> str:
        return str(message.get("role")) if isinstance(message, dict) else repr(message)

    for index, (a, b) in enumerate(zip(replayed, live, strict=False)):
        if a != b:
            return f"message {index} differs (replayed {role(a)}, live {role(b)})"
    return f"the replay has {len(replayed)} message(s), the live state {len(live)}"


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
        if stage == "events":
            status, message = _event_properties(pi.value, answer.value, status, message)
        if fields:
            message = (message + "; " if message else "") + \
                "partial claim, compared only " + ", ".join(fields)
    if status == "fail":
        status, message = reclassify(case, stage, pi.kind, answer.kind, message, found)
    return verdict(status, message, tuple(found), actual_kind=answer.kind)


def _event_properties(expected: Any, actual: Any, status: Status,
                      message: str) -> tuple[Status, str]:
    """The events stage's rules on top of the comparison: a ``pending`` assistant is never
    persisted, and the file replayed after a live turn gives the live state (where Pi's own
    answer shows they agree). Each failing rule is said first, before the differences."""
    reasons = []
    pending = pending_messages(actual)
    if pending:
        reasons.append(f"a pending assistant message would be persisted ({', '.join(pending)})"
                       "; Pi never persists one")
    disagreement = replay_disagreement(actual)
    if disagreement is not None and replay_disagreement(expected) is None:
        reasons.append("replaying the file after the turn does not give the live state: "
                       f"{disagreement}; in Pi they agree")
    if not reasons:
        return status, message
    return "fail", "; ".join([*reasons, message] if message else reasons)


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
