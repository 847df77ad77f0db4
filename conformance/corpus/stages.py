"""The stage ids: what an implementation may claim, what each golden file holds, and what
feeds each stage.

See DESIGN.md and docs/stages.md. ``request.<api>`` (the SDK parameters pi-ai builds, as
``onPayload`` sees them) and ``wire.<api>`` (the HTTP request as it goes out) are one stage per
provider API id; a port that builds its own HTTP requests claims ``wire.<api>``.
"""

from __future__ import annotations

from collections.abc import Sequence

SESSION_STAGES = ("entries", "branch", "context", "projection", "llm", "prompt", "stats")
#: Every API pi-ai 1.6.0 knows (``KnownApi``), the four most used first.
APIS = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
        "azure-openai-responses", "openai-codex-responses", "mistral-conversations",
        "bedrock-converse-stream", "google-vertex", "pi-messages")
REQUEST_PREFIX = "request."
WIRE_PREFIX = "wire."
RESPONSE_PREFIX = "response."
REQUEST_STAGES = tuple(REQUEST_PREFIX + api for api in APIS)
WIRE_STAGES = tuple(WIRE_PREFIX + api for api in APIS)
#: The inbound half: a provider's HTTP response (the case's ``responses/<api>.json``) turned
#: into pi-ai's ``AssistantMessageEvent``s and final ``AssistantMessage``. Not a default
#: stage: a case that carries a response declares it.
RESPONSE_STAGES = tuple(RESPONSE_PREFIX + api for api in APIS)
# Stages whose golden comes from a recorded run of the real CLI (pi-conformance corpus capture),
# not from the reference harness: a case declares them explicitly.
CAPTURE_STAGES = ("events",)
DEFAULT_STAGES = SESSION_STAGES + REQUEST_STAGES + WIRE_STAGES
ALL_STAGES = DEFAULT_STAGES + RESPONSE_STAGES + CAPTURE_STAGES

#: What feeds each stage: the stages whose golden outputs are its input, in the order Pi
#: computes them (harness.mjs). An implementation that claims a stage "given its input"
#: (hello ``capabilities.inputs``) is sent these goldens in the run request's ``inputs``, so
#: a port of one layer is judged on that layer alone. ``entries`` and ``events`` have no
#: feeding stage: their input is the session file and the recorded event stream.
#:
#: * ``branch``, ``context``, ``projection``, ``stats``: Pi computes them on the opened
#:   session manager, i.e. on the header and entries after load and migration (``entries``).
#: * ``llm``: ``convertToLlm`` of the ``context`` messages.
#: * ``prompt``: ``getCurrentSystemMessage`` / ``getCurrentSystemPrompt`` of the ``llm``
#:   messages.
#: * ``request.<api>``, ``wire.<api>``: pi-ai's ``streamSimple`` over the ``llm`` messages;
#:   the replayed system state (``prompt``) is derived from them by pi-ai and is given too,
#:   for a library whose request builder takes the system prompt apart from the messages.
#:   The model and stream options are in the run request's ``options.request`` as always.
STAGE_INPUTS: dict[str, tuple[str, ...]] = {
    "branch": ("entries",),
    "context": ("entries",),
    "projection": ("entries",),
    "stats": ("entries",),
    "llm": ("context",),
    "prompt": ("llm",),
    **{stage: ("llm", "prompt") for stage in REQUEST_STAGES + WIRE_STAGES},
}


#: What each stage is computed from, by meaning rather than by the goldens a port is fed
#: (``STAGE_INPUTS``): the active path (``branch``) decides the conversation (``context``),
#: which the request projection, the provider messages and, through them, the system prompt
#: and every provider request follow. A difference on a stage can show again on every stage
#: that follows it (``following``): an outcome class's scope names them (docs/corpus.md).
FOLLOWS_FROM: dict[str, tuple[str, ...]] = {
    "branch": ("entries",),
    "context": ("branch",),
    "projection": ("context",),
    "llm": ("context",),
    "prompt": ("llm",),
    "stats": ("entries",),
    **{stage: ("llm", "prompt") for stage in REQUEST_STAGES},
    **{WIRE_PREFIX + api: (REQUEST_PREFIX + api,) for api in APIS},
}


def following(stage: str, among: Sequence[str] = DEFAULT_STAGES) -> tuple[str, ...]:
    """The stages of ``among`` that follow from ``stage``, directly or not, in stage order."""
    found: set[str] = set()
    frontier = [stage]
    while frontier:
        current = frontier.pop()
        for later, sources in FOLLOWS_FROM.items():
            if current in sources and later not in found:
                found.add(later)
                frontier.append(later)
    return tuple(s for s in among if s in found)


def api_of(stage: str) -> str | None:
    """The API id of a ``request.<api>``, ``wire.<api>`` or ``response.<api>`` stage, else
    None."""
    for prefix in (REQUEST_PREFIX, WIRE_PREFIX, RESPONSE_PREFIX):
        if stage.startswith(prefix):
            return stage[len(prefix):]
    return None


def is_response(stage: str) -> bool:
    """A ``response.<api>`` stage: its input is the case's HTTP response, not its session."""
    return stage.startswith(RESPONSE_PREFIX) and stage[len(RESPONSE_PREFIX):] in APIS


def inputs_of(stage: str) -> tuple[str, ...]:
    """The stages whose goldens are ``stage``'s input (empty: it reads the case's files)."""
    return STAGE_INPUTS.get(stage, ())


def stage_sort_key(stage: str) -> int:
    return ALL_STAGES.index(stage) if stage in ALL_STAGES else len(ALL_STAGES)


def narrowed(stages: Sequence[str], apis: Sequence[str]) -> tuple[str, ...] | None:
    """Every stage a run narrowed by ``--stage`` and ``--api`` may ask (as
    ``Selection.wants`` decides); None when it is not narrowed, and may ask any."""
    if not stages and not apis:
        return None
    by_api = (prefix + api for api in apis
              for prefix in (REQUEST_PREFIX, WIRE_PREFIX, RESPONSE_PREFIX))
    return tuple(dict.fromkeys([*stages, *by_api]))
