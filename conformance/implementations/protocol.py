"""Protocol v1 between the runner and an implementation (docs/protocol.md).

JSON lines on stdin and stdout: ``hello`` -> capabilities, ``run`` -> results per stage,
``bye``. Every message has a JSON Schema in ``schemas/protocol/``; ``validate`` checks one
against its schema, which the smoke command and ``--validate-protocol`` use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import jsonschema

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.errors import ImplementationError, ProtocolViolation, RunFailed

VERSION = 1
MESSAGES = ("hello-request", "hello-response", "run-request", "run-response", "bye-request")
STAGE_RESULT_KINDS = ("output", "rejected", "skipped", "error")


@cache
def validator(message: str) -> jsonschema.protocols.Validator:
    schema = jsonio.read_json(SCHEMA_DIR / "protocol" / f"{message}.json")
    return jsonschema.Draft202012Validator(schema)


def schema_errors(message: str, value: Any) -> list[str]:
    """Readable schema violations of ``value`` as a ``message``; empty when it is valid."""
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
        for e in sorted(validator(message).iter_errors(value), key=lambda e: list(e.path))
    ]


def run_answer_problems(answer: Any, stages: list[str]) -> list[str]:
    """Everything strict validation finds in a run answer: schema violations, and results for
    stages that were not asked for (which the lenient path silently ignores)."""
    problems = schema_errors("run-response", answer)
    results = answer.get("results") if isinstance(answer, dict) else None
    if isinstance(results, dict):
        problems += [f"results/{stage}: a result for a stage that was not asked for"
                     for stage in sorted(set(results) - set(stages))]
    return problems


@dataclass(frozen=True)
class Hello:
    """What an implementation says about itself in its hello answer."""

    implementation: dict[str, Any]
    stages: frozenset[str]
    features: frozenset[str] | None = None
    # A partial claim: per stage, the only output paths it answers (see runner.project_fields).
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return str(self.implementation.get("name", "?"))

    @property
    def version(self) -> str:
        return str(self.implementation.get("version", "?"))

    @classmethod
    def parse(cls, answer: Any) -> Hello:
        problems = schema_errors("hello-response", answer)
        if problems:
            raise ImplementationError("invalid hello answer: " + "; ".join(problems[:5]))
        capabilities = answer["capabilities"]
        features = capabilities.get("features")
        return cls(
            implementation=answer["implementation"],
            stages=frozenset(capabilities["stages"]),
            features=frozenset(features) if features is not None else None,
            fields={stage: tuple(paths)
                    for stage, paths in capabilities.get("fields", {}).items()},
            raw=answer,
        )


def hello_request() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": VERSION}


def bye_request() -> dict[str, Any]:
    return {"cmd": "bye"}


def run_request(seq: int, case_id: str, features: tuple[str, ...], session_path: str,
                session_text: str, stages: list[str], options: dict[str, Any],
                events: tuple[str, str] | None = None) -> dict[str, Any]:
    request = {
        "cmd": "run",
        "seq": seq,
        "case": {"id": case_id, "features": list(features)},
        "session": {"path": session_path, "text": session_text},
        "stages": stages,
        "options": options,
    }
    if events is not None:  # (path, text) of the recorded event stream, for the events stage
        request["events"] = {"path": events[0], "text": events[1]}
    return request


def _stage_result_problem(result: Any) -> str | None:
    """Why one stage result is malformed, or None (the run-response schema, checked fast)."""
    if not isinstance(result, dict) or len(result) != 1:
        return f"needs exactly one of {', '.join(STAGE_RESULT_KINDS)}"
    kind, value = next(iter(result.items()))
    if kind not in STAGE_RESULT_KINDS:
        return f"unknown result kind {kind!r} (use one of {', '.join(STAGE_RESULT_KINDS)})"
    if kind in ("rejected", "error") and not (
            isinstance(value, dict) and isinstance(value.get("message"), str)):
        return f"{kind} needs {{\"message\": string}}"
    if kind == "skipped" and not isinstance(value, str):
        return "skipped needs a string (the reason)"
    return None


def check_run_answer(answer: Any, seq: int, stages: list[str]) -> dict[str, dict[str, Any]]:
    """The per-stage results of a run answer.

    Raises ProtocolViolation when the answer cannot be paired with the request (not an
    object, another seq: the exchange is out of step and the process must be restarted), and
    RunFailed when the implementation answered with an error for the whole run. A missing or
    malformed stage result becomes an ``error`` for that stage alone.
    """
    if not isinstance(answer, dict):
        raise ProtocolViolation(f"run answer is not a JSON object: {str(answer)[:200]}")
    if answer.get("seq") != seq:
        raise ProtocolViolation(
            f"answer out of order: expected seq {seq}, got {answer.get('seq')!r}")
    if "error" in answer:
        error = answer["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise RunFailed(f"the implementation failed the run: {message}")
    results = answer.get("results")
    if not isinstance(results, dict):
        raise ProtocolViolation("run answer has neither results nor error")
    checked: dict[str, dict[str, Any]] = {}
    for stage in stages:
        result = results.get(stage)
        problem = ("no result for this stage" if result is None
                   else _stage_result_problem(result))
        if problem is None and isinstance(result, dict):
            checked[stage] = result
        else:
            checked[stage] = {"protocol-error": {"message": f"malformed stage result: {problem}"}}
    return checked
