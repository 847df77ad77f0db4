"""bedrock-converse-stream: a spec as ConverseStream's AWS event stream, one message a frame.

Events as the Bedrock API documents them and pi-ai reads them: messageStart; per block
contentBlockStart (tool use only), contentBlockDelta (text, reasoningContent text and
signature, redactedContent in base64, toolUse input in pieces, several calls interleaved by
contentBlockIndex) and contentBlockStop; messageStop with the stop reason; metadata with
usage. A failure mid-stream is an exception message; an HTTP error carries its type in
``x-amzn-errortype``. The request id (``x-amzn-requestid``) is the response id; the stream
never names the model.
"""

from __future__ import annotations

import base64
from typing import Any

from conformance.maintenance.responses import eventstream, framing
from conformance.maintenance.responses.capability import ALL_ENDINGS, of
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.SIGNED_THINKING, Kind.REDACTED_THINKING,
                 Kind.TOOL_CALL}, ALL_ENDINGS, {"cache_read", "cache_write"},
                id_optional=True, names_model=False)
STOP = {Ending.STOP: "end_turn", Ending.LENGTH: "max_tokens", Ending.TOOL_USE: "tool_use",
        Ending.REFUSAL: "content_filtered"}
ERRORS = {400: "ValidationException", 403: "AccessDeniedException",
          404: "ResourceNotFoundException", 429: "ThrottlingException",
          500: "InternalServerException", 503: "ServiceUnavailableException"}
OVERLOAD = 429


def _payload(data: dict[str, Any]) -> bytes:
    # Every event carries a "p" padding field of varying length (Bedrock documents it as
    # there to hide the size of the content); the SDK ignores it.
    return framing.compact({**data, "p": "abcdefgh"}).encode()


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    request_id = (("x-amzn-requestid", spec.response_id),) if spec.response_id else ()
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        kind = ERRORS.get(status, "InternalServerException" if status >= 500
                          else "ValidationException")
        return framing.error(spec.error, status, {"message": spec.error.message},
                             (("x-amzn-errortype", f"{kind}:http://internal.amazon.com/coral/"
                               "com.amazon.bedrock/"), *request_id))
    frames = framing.Frames()

    def ev(kind: str, **data: Any) -> None:
        frames.add(eventstream.event(kind, _payload(data)), kind == "contentBlockDelta")

    ev("messageStart", role="assistant")
    for group in framing.groups(spec.blocks, spec.interleave):
        index, block = group[0], spec.blocks[group[0]]
        if block.kind is not Kind.TOOL_CALL:
            for delta in _deltas(block):
                ev("contentBlockDelta", contentBlockIndex=index, delta=delta)
            ev("contentBlockStop", contentBlockIndex=index)
            continue
        for step, i, piece in framing.call_steps(spec.blocks, group):
            if step == "start":
                ev("contentBlockStart", contentBlockIndex=i, start={"toolUse": {
                    "toolUseId": spec.blocks[i].call_id, "name": spec.blocks[i].name}})
            elif step == "delta":
                ev("contentBlockDelta", contentBlockIndex=i, delta={"toolUse": {"input": piece}})
            else:
                ev("contentBlockStop", contentBlockIndex=i)
    if spec.ending is Ending.CUT:
        return _stream(frames, request_id)
    if spec.ending is Ending.ERROR_EVENT:
        frames.add(eventstream.exception("modelStreamErrorException", framing.compact(
            {"message": spec.message, "originalStatusCode": 500}).encode()))
        return _stream(frames, request_id)
    ev("messageStop", stopReason=STOP[spec.ending])
    if spec.usage is not None:
        u = spec.usage
        usage = {"inputTokens": u.input, "outputTokens": u.output,
                 "totalTokens": u.input + u.output + u.cache_read + u.cache_write}
        if u.cache_read or u.cache_write:
            usage |= {"cacheReadInputTokens": u.cache_read,
                      "cacheWriteInputTokens": u.cache_write}
        ev("metadata", usage=usage, metrics={"latencyMs": 120})
    return _stream(frames, request_id)


def _stream(frames: framing.Frames,
            request_id: tuple[tuple[str, str], ...]) -> framing.Encoded:
    return frames.encoded((("content-type", eventstream.CONTENT_TYPE), *request_id))


def _deltas(block: Block) -> list[dict[str, Any]]:
    if block.kind is Kind.TEXT:
        return [{"text": piece} for piece in block.deltas]
    if block.kind is Kind.REDACTED_THINKING:
        # A blob is base64 in JSON: the spec's payload is base64 already, and pi-ai keeps it
        # as it was.
        base64.b64decode(block.signature, validate=True)
        return [{"reasoningContent": {"redactedContent": block.signature}}]
    out: list[dict[str, Any]] = [{"reasoningContent": {"text": p}} for p in block.deltas]
    if block.kind is Kind.SIGNED_THINKING:
        out.append({"reasoningContent": {"signature": block.signature}})
    return out
