"""Protocol v1 between the runner and an implementation (docs/protocol.md).

JSON lines on stdin and stdout: ``hello`` -> capabilities, ``run`` -> results per stage,
``bye``. The JSON Schemas in ``schemas/protocol/`` are the one source of truth for what a
message may hold: every check here is one of their validators, compiled once, and every
problem names the message and the JSON path it is at.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.errors import ImplementationError, ProtocolViolation, RunFailed

if TYPE_CHECKING:
    import jsonschema

VERSION = 1
#: The part of ``run-response`` one stage's result must match; the lenient path checks each
#: stage against it alone, so one malformed stage costs that stage only.
STAGE_RESULT = "run-response#/$defs/stageResult"


@cache
def _schemas() -> dict[str, Any]:
    """Every protocol schema by name (``run-response``)."""
    return {path.stem: jsonio.read_json(path)
            for path in sorted((SCHEMA_DIR / "protocol").glob("*.json"))}


@cache
def validator(message: str) -> jsonschema.protocols.Validator:
    """The compiled validator of ``message``: a schema's name (``run-response``), or a part
    of one (``run-response#/$defs/stageResult``).

    A part is compiled on its own, with its schema's ``$defs`` beside it (the protocol
    schemas refer only to their own ``$defs``): a top-level ``$ref`` would be resolved on
    every call, which made checking a stage result 2.5 times slower.
    """
    import jsonschema  # at the first check (the hello, on the thread starting the process)
    from referencing import Registry, Resource

    name, _, pointer = message.partition("#")
    if name not in _schemas():
        raise ValueError(f"no protocol schema named {name!r}")
    schema = _schemas()[name]
    if pointer:
        part = Registry().with_resource(schema["$id"], Resource.from_contents(schema)) \
            .resolver().lookup(f"{schema['$id']}#{pointer}").contents
        schema = {**part, "$defs": schema.get("$defs", {})}
    return jsonschema.Draft202012Validator(schema)


def schema_errors(message: str, value: Any, at: str = "$") -> list[str]:
    """Readable schema violations of ``value`` as a ``message``; empty when it is valid.

    Each names the message and the JSON path of the offending value, e.g.
    ``run-response $.results.entries: Additional properties are not allowed``; ``at`` is the
    path of ``value`` itself when it is part of a larger message.
    """
    check = validator(message)
    if check.is_valid(value):  # the fast path: a valid message builds no error objects
        return []
    name = message.partition("#")[0]
    return [f"{name} {at}{error.json_path[1:]}: {error.message}"
            for error in sorted(check.iter_errors(value), key=lambda e: list(map(str, e.path)))]


def run_answer_problems(answer: Any, stages: list[str]) -> list[str]:
    """Everything strict validation finds in a run answer: schema violations, and results for
    stages that were not asked for (which the lenient path silently ignores, and which no
    schema can say, since it depends on the request)."""
    problems = schema_errors("run-response", answer)
    results = answer.get("results") if isinstance(answer, dict) else None
    if isinstance(results, dict):
        problems += [f"run-response $.results.{stage}: a result for a stage that was not "
                     f"asked for" for stage in sorted(set(results) - set(stages))]
    return problems


class OutOfStep(ProtocolViolation):
    """A run answer naming another request than the one in flight; ``seq``: the one it names
    (an integer), which may be a request answered before (a second answer to it)."""

    seq: int | None = None


@dataclass(frozen=True)
class Hello:
    """What an implementation says about itself in its hello answer."""

    implementation: dict[str, Any]
    stages: frozenset[str]
    features: frozenset[str] | None = None
    # A partial claim: per stage, the only output paths it answers (see runner.project_fields).
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)
    # Stages claimed given their input: the run request carries their feeding goldens.
    inputs: frozenset[str] = frozenset()
    # The Pi release it follows (pi@1.3.0): judged against that release unless told otherwise.
    targets: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return str(self.implementation.get("name", "?"))

    @property
    def version(self) -> str:
        return str(self.implementation.get("version", "?"))

    def differences(self, later: Hello) -> list[str]:
        """What a ``later`` hello of the same implementation says otherwise, one phrase per
        difference; empty when they agree. Every process of a run (a ``-j`` worker, a
        restart) must answer the same hello: the plan was made from the first."""
        found = [f"implementation.{key}: {_shown(self.implementation.get(key))}, now "
                 f"{_shown(later.implementation.get(key))}"
                 for key in sorted({*self.implementation, *later.implementation})
                 if self.implementation.get(key) != later.implementation.get(key)]
        if self.stages != later.stages:
            found.append("stages: " + "; ".join(filter(None, (
                _listed("now also claims", later.stages - self.stages),
                _listed("no longer claims", self.stages - later.stages)))))
        if self.features != later.features:
            found.append(f"features: {_claimed(self.features)}, now {_claimed(later.features)}")
        mine = {stage: frozenset(paths) for stage, paths in self.fields.items()}
        theirs = {stage: frozenset(paths) for stage, paths in later.fields.items()}
        if mine != theirs:
            found.append(f"fields: {_fields(self.fields)}, now {_fields(later.fields)}")
        if self.targets != later.targets:
            found.append(f"targets: {self.targets or 'none'}, now {later.targets or 'none'}")
        return found

    @classmethod
    def parse(cls, answer: Any) -> Hello:
        problems = schema_errors("hello-response", answer)
        if problems:
            raise ImplementationError("invalid hello answer: " + "; ".join(problems[:5]))
        capabilities = answer["capabilities"]
        features = capabilities.get("features")
        unclaimed = sorted(set(capabilities.get("inputs", ())) - set(capabilities["stages"]))
        if unclaimed:
            raise ImplementationError(
                "invalid hello answer: capabilities.inputs names stages not in "
                "capabilities.stages: " + ", ".join(unclaimed))
        return cls(
            implementation=answer["implementation"],
            stages=frozenset(capabilities["stages"]),
            features=frozenset(features) if features is not None else None,
            fields={stage: tuple(paths)
                    for stage, paths in capabilities.get("fields", {}).items()},
            inputs=frozenset(capabilities.get("inputs", ())),
            targets=answer.get("targets"),
            raw=answer,
        )


def _shown(value: Any) -> str:
    return "absent" if value is None else repr(value)[:100]


def _listed(what: str, items: frozenset[str]) -> str:
    return f"{what} {', '.join(sorted(items))}" if items else ""


def _claimed(features: frozenset[str] | None) -> str:
    return "all" if features is None else (", ".join(sorted(features)) or "none")


def _fields(fields: dict[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{stage}: {', '.join(sorted(paths))}"
                     for stage, paths in sorted(fields.items())) or "none"


def hello_request() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": VERSION}


def bye_request() -> dict[str, Any]:
    return {"cmd": "bye"}


def run_request(seq: int, case_id: str, features: tuple[str, ...], session_path: str,
                session_text: str, stages: list[str], options: dict[str, Any],
                events: tuple[str, str] | None = None,
                inputs: dict[str, dict[str, Any]] | None = None,
                responses: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
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
    if inputs:  # feeding stage -> its golden result, for stages claimed given their input
        request["inputs"] = inputs
    if responses:  # api -> the provider's HTTP response, for the response.<api> stages
        request["responses"] = responses
    return request


def check_run_answer(answer: Any, seq: int, stages: list[str]) -> dict[str, dict[str, Any]]:
    """The per-stage results of a run answer.

    Raises ProtocolViolation when the answer cannot be paired with the request (not an
    object, another seq: the exchange is out of step and the process must be restarted), and
    RunFailed when the implementation answered with an error for the whole run. A missing or
    malformed stage result becomes an ``error`` for that stage alone.
    """
    if not isinstance(answer, dict):
        raise ProtocolViolation(f"run answer is not a JSON object: {str(answer)[:200]}")
    answered = answer.get("seq")
    if answered != seq or isinstance(answered, bool):  # true == 1 in Python, not in JSON
        exc = OutOfStep(f"answer out of order: expected seq {seq}, got {answered!r}")
        exc.seq = answered if isinstance(answered, int) and not isinstance(answered, bool) \
            else None
        raise exc
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
        if type(result) is dict and len(result) == 1 and "output" in result:
            checked[stage] = result  # what the schema accepts, without it: most answers
            continue
        if stage not in results:
            problems = [f"run-response $.results.{stage}: no result for this stage"]
        else:
            problems = schema_errors(STAGE_RESULT, result, f"$.results.{stage}")
        if problems:
            checked[stage] = {"protocol-error": {
                "message": "malformed stage result: " + "; ".join(problems[:3])}}
        else:
            checked[stage] = results[stage]
    return checked
