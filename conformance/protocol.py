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
from conformance.errors import ImplementationError

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


@dataclass(frozen=True)
class Hello:
    """What an implementation says about itself in its hello answer."""

    implementation: dict[str, Any]
    stages: frozenset[str]
    features: frozenset[str] | None = None
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
            raw=answer,
        )


def hello_request() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": VERSION}


def bye_request() -> dict[str, Any]:
    return {"cmd": "bye"}


def run_request(seq: int, case_id: str, features: tuple[str, ...], session_path: str,
                session_text: str, stages: list[str], options: dict[str, Any]) -> dict[str, Any]:
    return {
        "cmd": "run",
        "seq": seq,
        "case": {"id": case_id, "features": list(features)},
        "session": {"path": session_path, "text": session_text},
        "stages": stages,
        "options": options,
    }


def check_run_answer(answer: Any, seq: int, stages: list[str]) -> dict[str, dict[str, Any]]:
    """The per-stage results of a run answer, or ImplementationError saying what is wrong."""
    if not isinstance(answer, dict):
        raise ImplementationError(f"run answer is not a JSON object: {str(answer)[:200]}")
    if answer.get("seq") != seq:
        raise ImplementationError(
            f"answer out of order: expected seq {seq}, got {answer.get('seq')!r}")
    if "error" in answer:
        error = answer["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise ImplementationError(f"the implementation failed the run: {message}")
    results = answer.get("results")
    if not isinstance(results, dict):
        raise ImplementationError("run answer has neither results nor error")
    checked = {}
    for stage in stages:
        result = results.get(stage)
        if result is None:
            checked[stage] = {"error": {"message": f"no result for stage {stage}"}}
        elif not isinstance(result, dict) or len(result) != 1 or \
                next(iter(result)) not in STAGE_RESULT_KINDS:
            checked[stage] = {"error": {"message":
                f"malformed stage result (needs exactly one of {', '.join(STAGE_RESULT_KINDS)})"}}
        else:
            checked[stage] = result
    return checked
