"""anthropic-messages: a spec as the Messages API's SSE stream (event and data lines).

Fields as Anthropic documents them and pi-ai's adapter reads them: message_start with the id,
model and input usage; one content block per index (tool calls interleaved by index when the
spec asks); signature_delta for signed thinking (none for unsigned thinking, as a gateway
sends it); message_delta with stop_reason (and the stop_details of a refusal) and output
usage; an ``error`` event mid-stream.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import ALL_ENDINGS, of
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec, model_of

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.SIGNED_THINKING, Kind.REDACTED_THINKING,
                 Kind.TOOL_CALL},
                ALL_ENDINGS, {"cache_read", "cache_write", "reasoning"}, usage_optional=False)
STOP_REASONS = {Ending.STOP: "end_turn", Ending.LENGTH: "max_tokens",
                Ending.TOOL_USE: "tool_use", Ending.REFUSAL: "refusal"}
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
               403: "permission_error", 404: "not_found_error", 413: "request_too_large",
               429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
OVERLOAD = 529


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        kind = ERROR_TYPES.get(status, "api_error")
        return framing.error(spec.error, status, {
            "type": "error", "error": {"type": kind, "message": spec.error.message},
            "request_id": "req_pi_conformance"}, (("request-id", "req_pi_conformance"),))
    frames = framing.Frames()

    def ev(kind: str, mark: bool = False, **data: Any) -> None:
        frames.add(framing.sse({"type": kind, **data}, event=kind), mark)

    usage = spec.usage
    start_usage: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0}
    if usage is not None:
        start_usage = {"input_tokens": usage.input, "cache_creation_input_tokens":
                       usage.cache_write, "cache_read_input_tokens": usage.cache_read,
                       "output_tokens": 1}
    ev("message_start", message={
        "id": spec.response_id, "type": "message", "role": "assistant",
        "model": model_of(spec, model), "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": start_usage})
    for group in framing.groups(spec.blocks, spec.interleave):
        if spec.blocks[group[0]].kind is not Kind.TOOL_CALL:
            _block(ev, group[0], spec.blocks[group[0]])
            continue
        for step, i, piece in framing.call_steps(spec.blocks, group):
            if step == "start":
                ev("content_block_start", index=i, content_block={
                    "type": "tool_use", "id": spec.blocks[i].call_id,
                    "name": spec.blocks[i].name, "input": {}})
            elif step == "delta":
                ev("content_block_delta", True, index=i,
                   delta={"type": "input_json_delta", "partial_json": piece})
            else:
                ev("content_block_stop", index=i)
    if spec.ending is Ending.CUT:
        return frames.encoded()
    if spec.ending is Ending.ERROR_EVENT:
        ev("error", error={"type": "overloaded_error", "message": spec.message})
        return frames.encoded()
    delta: dict[str, Any] = {"stop_reason": STOP_REASONS[spec.ending], "stop_sequence": None}
    if spec.ending is Ending.REFUSAL:
        delta["stop_details"] = {"type": "refusal", "category": "cyber",
                                 "explanation": spec.message}
    final: dict[str, Any] = {"delta": delta}
    if usage is not None:
        final["usage"] = {"output_tokens": usage.output}
        if usage.reasoning:
            final["usage"]["output_tokens_details"] = {"thinking_tokens": usage.reasoning}
    ev("message_delta", **final)
    ev("message_stop")
    return frames.encoded()


def _block(ev: Any, index: int, block: Block) -> None:
    if block.kind is Kind.TEXT:
        ev("content_block_start", index=index, content_block={"type": "text", "text": ""})
        for piece in block.deltas:
            ev("content_block_delta", True, index=index,
               delta={"type": "text_delta", "text": piece})
    elif block.kind in (Kind.THINKING, Kind.SIGNED_THINKING):
        # Anthropic signs every thinking block; a thinking block with no signature_delta is
        # what an Anthropic-compatible gateway in front of another model sends.
        ev("content_block_start", index=index,
           content_block={"type": "thinking", "thinking": "", "signature": ""})
        for piece in block.deltas:
            ev("content_block_delta", True, index=index,
               delta={"type": "thinking_delta", "thinking": piece})
        if block.kind is Kind.SIGNED_THINKING:
            ev("content_block_delta", index=index,
               delta={"type": "signature_delta", "signature": block.signature})
    else:
        ev("content_block_start", index=index,
           content_block={"type": "redacted_thinking", "data": block.signature})
    ev("content_block_stop", index=index)
