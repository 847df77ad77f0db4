"""What one stage answered, as a typed union: Pi's answer (a golden's ``result``) or an
implementation's (a run answer's ``results[stage]``).

On the wire and in golden files each is a one-key object (docs/protocol.md):
``{"output": ...}``, ``{"rejected": {"message"}}``, ``{"misbehaved": {"kind", "detail"}}``
(Pi hung or crashed: goldens only), ``{"skipped": reason}`` and ``{"error": {"message"}}``
(answers only). ``parse_pi`` and ``parse_answer`` read that form once, at the edge;
downstream code matches on the class, never on a dict's key. ``to_json`` writes it back
byte for byte as it came (a golden's ``result`` is Pi's verbatim).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal


@dataclass(frozen=True)
class Output:
    """The stage's output (its shape per stage: docs/stages.md)."""

    value: Any
    kind: ClassVar[Literal["output"]] = "output"

    def to_json(self) -> dict[str, Any]:
        return {"output": self.value}


@dataclass(frozen=True)
class Rejected:
    """The input refused as invalid (Pi throws: "not a valid pi session")."""

    message: str
    kind: ClassVar[Literal["rejected"]] = "rejected"

    def to_json(self) -> dict[str, Any]:
        return {"rejected": {"message": self.message}}


@dataclass(frozen=True)
class Misbehaved:
    """Pi hung (``timeout``) or crashed (``crash``) on the stage: nothing is required there."""

    how: str
    detail: str = ""
    kind: ClassVar[Literal["misbehaved"]] = "misbehaved"

    def to_json(self) -> dict[str, Any]:
        return {"misbehaved": {"kind": self.how, "detail": self.detail}}


@dataclass(frozen=True)
class Skipped:
    """The implementation declined the stage here, with its reason."""

    reason: str
    kind: ClassVar[Literal["skipped"]] = "skipped"

    def to_json(self) -> dict[str, Any]:
        return {"skipped": self.reason}


@dataclass(frozen=True)
class Failed:
    """No usable answer: the implementation reported an error (``protocol`` False), or its
    result for the stage was malformed (``protocol`` True)."""

    message: str
    protocol: bool = False
    kind: ClassVar[Literal["error"]] = "error"

    def to_json(self) -> dict[str, Any]:
        return {"protocol-error" if self.protocol else "error": {"message": self.message}}


#: What Pi answered: a golden's result.
PiResult = Output | Rejected | Misbehaved
#: What an implementation answered for one stage.
Answer = Output | Rejected | Skipped | Failed

PI_KINDS = ("output", "rejected", "misbehaved")


class AnswerFormatError(ValueError):
    """A one-key result object that does not fit; the caller names the file or message."""


def _one_key(data: Any, kinds: tuple[str, ...]) -> tuple[str, Any]:
    if not isinstance(data, dict) or len(data) != 1:
        raise AnswerFormatError(f"must have exactly one of {', '.join(kinds)}")
    kind, value = next(iter(data.items()))
    if kind not in kinds:
        raise AnswerFormatError(f"must have exactly one of {', '.join(kinds)}, not {kind!r}")
    return kind, value


def _message(value: Any) -> str:
    message = value.get("message") if isinstance(value, dict) else value
    return message if isinstance(message, str) else str(message)


def parse_pi(data: Any) -> PiResult:
    """A golden's ``result`` (or the reference's answer for a stage)."""
    kind, value = _one_key(data, PI_KINDS)
    if kind == "output":
        return Output(value)
    if kind == "rejected":
        return Rejected(_message(value))
    how = value.get("kind") if isinstance(value, dict) else None
    detail = value.get("detail") if isinstance(value, dict) else None
    return Misbehaved(how if isinstance(how, str) else "crash",
                      detail if isinstance(detail, str) else "")


def parse_answer(data: Any) -> Answer:
    """One stage of a run answer, as ``protocol.check_run_answer`` returns it (already checked
    against the schema, or turned into a ``protocol-error``)."""
    kind, value = _one_key(data, ("output", "rejected", "skipped", "error", "protocol-error"))
    if kind == "output":
        return Output(value)
    if kind == "rejected":
        return Rejected(_message(value))
    if kind == "skipped":
        return Skipped(value if isinstance(value, str) else str(value))
    return Failed(_message(value), protocol=kind == "protocol-error")


__all__ = ["PI_KINDS", "Answer", "AnswerFormatError", "Failed", "Misbehaved", "Output",
           "PiResult", "Rejected", "Skipped", "parse_answer", "parse_pi"]
