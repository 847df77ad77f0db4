"""The stage ids: what an implementation may claim, and what each golden file holds.

See DESIGN.md and docs/stages.md. ``request.<api>`` is one stage per provider API id.
"""

from __future__ import annotations

SESSION_STAGES = ("entries", "branch", "context", "projection", "llm", "prompt", "stats")
APIS = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai")
REQUEST_PREFIX = "request."
REQUEST_STAGES = tuple(REQUEST_PREFIX + api for api in APIS)
# Stages whose golden comes from a recorded run of the real CLI (pi-conformance corpus capture),
# not from the reference harness: a case declares them explicitly.
CAPTURE_STAGES = ("events",)
DEFAULT_STAGES = SESSION_STAGES + REQUEST_STAGES
ALL_STAGES = DEFAULT_STAGES + CAPTURE_STAGES


def api_of(stage: str) -> str | None:
    """The API id of a ``request.<api>`` stage, else None."""
    return stage[len(REQUEST_PREFIX):] if stage.startswith(REQUEST_PREFIX) else None


def stage_sort_key(stage: str) -> int:
    return ALL_STAGES.index(stage) if stage in ALL_STAGES else len(ALL_STAGES)
