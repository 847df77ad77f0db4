"""pi-messages: a spec as Pi's own protocol, serialised assistant-message events over SSE.

Events as pi-ai's pi-messages client reads them (the Radius gateway's protocol): ``start``;
``text_*``, ``thinking_*`` (signature and ``redacted`` on ``thinking_end``) and
``toolcall_*`` with a ``contentIndex`` (several calls interleaved by it); a terminal
``done`` with reason, usage, response id and model, or ``error`` with its message. There is
no refusal (a gateway reports one as an error), and ``done`` always carries usage.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import of
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec, Usage

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.SIGNED_THINKING, Kind.REDACTED_THINKING,
                 Kind.TOOL_CALL}, set(Ending) - {Ending.REFUSAL},
                {"cache_read", "cache_write", "reasoning"}, usage_optional=False,
                id_optional=True)
REASONS = {Ending.STOP: "stop", Ending.LENGTH: "length", Ending.TOOL_USE: "toolUse"}
OVERLOAD = 429
REDACTED = "[Reasoning redacted]"


def usage_of(u: Usage | None) -> dict[str, Any]:
    u = u or Usage(input=0, output=0)
    usage: dict[str, Any] = {"input": u.input, "output": u.output, "cacheRead": u.cache_read,
                             "cacheWrite": u.cache_write}
    if u.reasoning:
        usage["reasoning"] = u.reasoning
    usage["totalTokens"] = u.input + u.output + u.cache_read + u.cache_write
    usage["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return usage


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        return framing.error(spec.error, status, {"error": {
            "message": spec.error.message,
            "code": "rate_limited" if status == OVERLOAD else f"http_{status}"}})
    frames = framing.Frames()

    def ev(kind: str, **data: Any) -> None:
        frames.add(framing.sse({"type": kind, **data}, event=kind), kind.endswith("_delta"))

    ev("start")
    for group in framing.groups(spec.blocks, spec.interleave):
        if spec.blocks[group[0]].kind is not Kind.TOOL_CALL:
            _block(ev, group[0], spec.blocks[group[0]])
            continue
        for step, i, piece in framing.call_steps(spec.blocks, group):
            call = spec.blocks[i]
            if step == "start":
                ev("toolcall_start", contentIndex=i, id=call.call_id, toolName=call.name)
            elif step == "delta":
                ev("toolcall_delta", contentIndex=i, delta=piece)
            else:
                ev("toolcall_end", contentIndex=i, toolCall={
                    "type": "toolCall", "id": call.call_id, "name": call.name,
                    "arguments": call.arguments})
    if spec.ending is Ending.CUT:
        return frames.encoded()
    final: dict[str, Any] = {"usage": usage_of(spec.usage)}
    if spec.response_id:
        final["responseId"] = spec.response_id
    if spec.response_model:
        final["responseModel"] = spec.response_model
    if spec.ending is Ending.ERROR_EVENT:
        ev("error", reason="error", errorMessage=spec.message, **final)
    else:
        ev("done", reason=REASONS[spec.ending], **final)
    return frames.encoded()


def _block(ev: Any, index: int, block: Block) -> None:
    if block.kind is Kind.TEXT:
        ev("text_start", contentIndex=index)
        for piece in block.deltas:
            ev("text_delta", contentIndex=index, delta=piece)
        ev("text_end", contentIndex=index, content=block.text)
        return
    ev("thinking_start", contentIndex=index)
    text = REDACTED if block.kind is Kind.REDACTED_THINKING else block.text
    for piece in (text,) if block.kind is Kind.REDACTED_THINKING else block.deltas:
        ev("thinking_delta", contentIndex=index, delta=piece)
    end: dict[str, Any] = {"contentIndex": index, "content": text}
    if block.signature:
        end["contentSignature"] = block.signature
    if block.kind is Kind.REDACTED_THINKING:
        end["redacted"] = True
    ev("thinking_end", **end)
