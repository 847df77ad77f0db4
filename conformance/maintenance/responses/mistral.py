"""mistral-conversations: a spec as Mistral's chat completion chunks (``data:`` lines).

Fields as Mistral documents them and pi-ai reads them: ``content`` as a string, or as chunks
with a ``thinking`` chunk for reasoning; tool calls keyed by ``index`` with string arguments
(several interleaved); ``finish_reason`` (``error`` is how Mistral reports a failure
mid-stream) and usage in the last chunk; ``[DONE]`` after it. Mistral has no refusal.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import of
from conformance.maintenance.responses.spec import Ending, Kind, ResponseSpec, model_of

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.TOOL_CALL},
                set(Ending) - {Ending.REFUSAL}, {"cache_read"})
FINISH = {Ending.STOP: "stop", Ending.LENGTH: "length", Ending.TOOL_USE: "tool_calls",
          Ending.ERROR_EVENT: "error"}
OVERLOAD = 429
CREATED = 1767225600


def tool_id(call_id: str) -> str:
    """Mistral's tool call ids: nine letters and digits."""
    alnum = "".join(c for c in call_id if c.isalnum())
    return alnum[-9:] if len(alnum) >= 9 else alnum.rjust(9, "0")


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        return framing.error(spec.error, status, {
            "object": "error", "message": spec.error.message,
            "type": "rate_limited" if status == OVERLOAD else "invalid_request_error",
            "param": None, "code": str(status)})
    name = model_of(spec, model)
    frames = framing.Frames()

    def chunk(delta: dict[str, Any], finish: str | None = None,
              usage: dict[str, Any] | None = None, mark: bool = False) -> None:
        body: dict[str, Any] = {"id": spec.response_id, "object": "chat.completion.chunk",
                                "created": CREATED, "model": name, "choices": [
                                    {"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage is not None:
            body["usage"] = usage
        frames.add(framing.sse(body), mark)

    chunk({"role": "assistant", "content": ""})
    ordinal = framing.ordinals(spec.blocks)
    for group in framing.groups(spec.blocks, spec.interleave):
        block = spec.blocks[group[0]]
        if block.kind is Kind.TOOL_CALL:
            # Every piece names its call (id, index, name); a call with no arguments is one
            # chunk with an empty object.
            for step, i, piece in framing.call_steps(spec.blocks, group):
                call = spec.blocks[i]
                if step == "delta" or (step == "start" and not call.deltas):
                    chunk({"tool_calls": [{"id": tool_id(call.call_id), "index": ordinal[i],
                                           "function": {"name": call.name,
                                                        "arguments": piece or "{}"}}]},
                          mark=True)
            continue
        for piece in block.deltas:
            if block.kind is Kind.THINKING:
                chunk({"content": [{"type": "thinking",
                                    "thinking": [{"type": "text", "text": piece}]}]},
                      mark=True)
            else:
                chunk({"content": piece}, mark=True)
    if spec.ending is Ending.CUT:
        return frames.encoded()
    usage = None
    if spec.usage is not None:
        u = spec.usage
        usage = {"prompt_tokens": u.input + u.cache_read, "completion_tokens": u.output,
                 "total_tokens": u.input + u.cache_read + u.output}
        if u.cache_read:
            usage["num_cached_tokens"] = u.cache_read
    chunk({"content": ""}, FINISH[spec.ending], usage)
    frames.add(framing.sse("[DONE]"))
    return frames.encoded()
