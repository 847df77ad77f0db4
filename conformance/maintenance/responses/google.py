"""google-generative-ai and google-vertex: a spec as streamGenerateContent's SSE chunks.

Fields as Google documents GenerateContentResponse and pi-ai reads them: parts with ``text``
(``thought`` for reasoning, ``thoughtSignature`` on the last part of signed reasoning) and
whole ``functionCall`` parts (Gemini never streams arguments in pieces); ``finishReason``,
``usageMetadata``, ``modelVersion`` and ``responseId`` in the last chunk; an ``error`` object
mid-stream, as the SDK reads one.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import ALL_ENDINGS, of
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec, model_of

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.SIGNED_THINKING, Kind.TOOL_CALL},
                ALL_ENDINGS, {"cache_read", "reasoning"}, id_optional=True,
                split_arguments=False, signed_tool_calls=True,
                tool_use_from_content=True)
FINISH = {Ending.STOP: "STOP", Ending.LENGTH: "MAX_TOKENS", Ending.TOOL_USE: "STOP",
          Ending.REFUSAL: "SAFETY"}
STATUSES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
            404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
            503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
OVERLOAD = 503


def error_object(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message,
                      "status": STATUSES.get(status, "UNKNOWN")}}


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        return framing.error(spec.error, status, error_object(status, spec.error.message))
    name = model_of(spec, model)
    frames = framing.Frames()

    def chunk(parts: list[Any] | None, finish: str | None = None,
              usage: dict[str, Any] | None = None, mark: bool = False) -> None:
        candidate: dict[str, Any] = {"content": {"parts": parts or [], "role": "model"},
                                     "index": 0}
        if finish:
            candidate["finishReason"] = finish
        body: dict[str, Any] = {"candidates": [candidate]}
        if usage is not None:
            body["usageMetadata"] = usage
        body["modelVersion"] = name
        if spec.response_id:
            body["responseId"] = spec.response_id
        frames.add(framing.sse(body), mark)

    for group in framing.groups(spec.blocks, spec.interleave):
        block = spec.blocks[group[0]]
        if block.kind is Kind.TOOL_CALL:  # interleaved calls: all in one chunk
            chunk([_call(spec.blocks[i]) for i in group], mark=True)
            continue
        for i, piece in enumerate(block.deltas):
            part: dict[str, Any] = {"text": piece}
            if block.reasoning:
                part["thought"] = True
            if block.signature and i == len(block.deltas) - 1:
                part["thoughtSignature"] = block.signature
            chunk([part], mark=True)
    if spec.ending is Ending.CUT:
        return frames.encoded()
    if spec.ending is Ending.ERROR_EVENT:
        frames.add(framing.sse(error_object(500, spec.message)))
        return frames.encoded()
    usage = None
    if spec.usage is not None:
        u = spec.usage
        usage = {"promptTokenCount": u.input + u.cache_read,
                 "candidatesTokenCount": u.output - u.reasoning,
                 "totalTokenCount": u.input + u.cache_read + u.output}
        if u.cache_read:
            usage["cachedContentTokenCount"] = u.cache_read
        if u.reasoning:
            usage["thoughtsTokenCount"] = u.reasoning
    chunk([], FINISH[spec.ending], usage)
    return frames.encoded()


def _call(block: Block) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": block.name, "args": block.arguments,
                                             "id": block.call_id}}
    if block.signature:
        part["thoughtSignature"] = block.signature
    return part
