"""openai-completions: a spec as Chat Completions chunks (``data:`` lines, ``[DONE]`` last).

Fields as OpenAI documents them (and, for reasoning, as the compatible services pi-ai reads
send them): ``reasoning_content`` deltas for thinking; OpenRouter's ``reasoning`` with
``reasoning_details`` for summaries and encrypted reasoning; tool calls keyed by ``index``
(several interleaved); ``finish_reason`` in the last choice; usage in a final chunk with no
choices; an ``error`` object mid-stream.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import ALL_ENDINGS, of
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec, model_of

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.REASONING_SUMMARY, Kind.ENCRYPTED_REASONING,
                 Kind.TOOL_CALL}, ALL_ENDINGS, {"cache_read", "cache_write", "reasoning"})
FINISH = {Ending.STOP: "stop", Ending.LENGTH: "length", Ending.TOOL_USE: "tool_calls",
          Ending.REFUSAL: "content_filter"}
ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
               404: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error"}
OVERLOAD = 429
CREATED = 1767225600


def error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error object (shared by the Responses APIs)."""
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None,
                      "code": "rate_limit_exceeded" if status == 429 else None}}


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        extra = (("retry-after", "0"),) if status == OVERLOAD else ()
        return framing.error(spec.error, status, error_body(status, spec.error.message), extra)
    name = model_of(spec, model)
    frames = framing.Frames()

    def chunk(delta: dict[str, Any] | None, finish: str | None = None,
              usage: dict[str, Any] | None = None, mark: bool = False) -> None:
        body: dict[str, Any] = {"id": spec.response_id, "object": "chat.completion.chunk",
                                "created": CREATED, "model": name}
        body["choices"] = [] if delta is None else [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        if usage is not None:
            body["usage"] = usage
        frames.add(framing.sse(body), mark)

    chunk({"role": "assistant", "content": ""})
    ordinal = framing.ordinals(spec.blocks)
    for group in framing.groups(spec.blocks, spec.interleave):
        if spec.blocks[group[0]].kind is not Kind.TOOL_CALL:
            for delta in _reasoning_and_text(spec.blocks[group[0]]):
                chunk(delta, mark=True)
            continue
        # Each call opens with its id and name; its arguments follow.
        for step, i, piece in framing.call_steps(spec.blocks, group):
            block = spec.blocks[i]
            if step == "start":
                chunk({"tool_calls": [{"index": ordinal[i], "id": block.call_id,
                                       "type": "function",
                                       "function": {"name": block.name, "arguments": ""}}]})
            elif step == "delta":
                chunk({"tool_calls": [{"index": ordinal[i], "function": {"arguments": piece}}]},
                      mark=True)
    if spec.ending is Ending.CUT:
        return frames.encoded()
    if spec.ending is Ending.ERROR_EVENT:
        frames.add(framing.sse({"error": {"message": spec.message, "type": "server_error",
                                             "param": None, "code": None}}))
        return frames.encoded()
    chunk({}, FINISH[spec.ending])
    if spec.usage is not None:
        u = spec.usage
        usage: dict[str, Any] = {
            "prompt_tokens": u.input + u.cache_read + u.cache_write,
            "completion_tokens": u.output,
            "total_tokens": u.input + u.cache_read + u.cache_write + u.output,
            "prompt_tokens_details": {"cached_tokens": u.cache_read, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": u.reasoning, "audio_tokens": 0}}
        if u.cache_write:
            usage["prompt_tokens_details"]["cache_write_tokens"] = u.cache_write
        chunk(None, usage=usage)
    frames.add(framing.sse("[DONE]"))
    return frames.encoded()


def _reasoning_and_text(block: Block) -> list[dict[str, Any]]:
    if block.kind is Kind.TEXT:
        return [{"content": piece} for piece in block.deltas]
    if block.kind is Kind.THINKING:
        return [{"reasoning_content": piece} for piece in block.deltas]
    detail: dict[str, Any] = {"id": "rs_pi", "format": "openai-responses-v1", "index": 0}
    if block.kind is Kind.REASONING_SUMMARY:
        return [{"reasoning": piece, "reasoning_details": [
            {"type": "reasoning.summary", "summary": piece, **detail}]}
            for piece in block.deltas]
    return [{"reasoning_details": [{"type": "reasoning.encrypted", "data": block.signature,
                                    **detail}]}]
