"""Which encoder speaks each API: the one registry of the response corpus."""

from __future__ import annotations

from collections.abc import Callable

from conformance.corpus.http_responses import HttpResponse
from conformance.maintenance.responses import (
    anthropic,
    bedrock,
    google,
    mistral,
    openai_completions,
    openai_responses,
    pi_messages,
)
from conformance.maintenance.responses.capability import Capability
from conformance.maintenance.responses.framing import Encoded
from conformance.maintenance.responses.spec import Ending, HttpError, ResponseSpec

Encoder = Callable[[ResponseSpec, str], "Encoded | None"]

#: api -> (what its wire can say, the encoder). Every API of ``stages.APIS``.
ENCODERS: dict[str, tuple[Capability, Encoder]] = {
    "anthropic-messages": (anthropic.CAPABILITY, anthropic.encode),
    "openai-completions": (openai_completions.CAPABILITY, openai_completions.encode),
    "openai-responses": (openai_responses.CAPABILITY, openai_responses.encode),
    "google-generative-ai": (google.CAPABILITY, google.encode),
    "azure-openai-responses": (openai_responses.CAPABILITY, openai_responses.encode),
    "openai-codex-responses": (openai_responses.CAPABILITY, openai_responses.encode),
    "mistral-conversations": (mistral.CAPABILITY, mistral.encode),
    "bedrock-converse-stream": (bedrock.CAPABILITY, bedrock.encode),
    "google-vertex": (google.CAPABILITY, google.encode),
    "pi-messages": (pi_messages.CAPABILITY, pi_messages.encode),
}


def overload_status(api: str) -> int:
    """The status ``api``'s service signals a retryable overload with."""
    found = encoded(api, ResponseSpec(ending=Ending.OVERLOAD, usage=None, error=HttpError()), "m")
    assert found is not None
    return found.response.status


def encoded(api: str, spec: ResponseSpec, model: str) -> Encoded | None:
    """The response ``api``'s service sends for ``spec`` and where its first content delta
    ends (None: that wire cannot say it)."""
    return ENCODERS[api][1](spec, model)


def encode(api: str, spec: ResponseSpec, model: str) -> HttpResponse | None:
    """The response ``api``'s service sends for ``spec`` (None: it cannot say it)."""
    found = encoded(api, spec, model)
    return None if found is None else found.response
