"""The axes of the response matrix: content kinds, endings, usage shapes and id variants.

Each content kind is a short list of blocks (texts of a few deltas, at most 40 characters a
block) so every golden stays small; the stress kinds are the exceptions, on purpose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from conformance.maintenance.responses.spec import (
    Block,
    BodyStyle,
    Ending,
    HttpError,
    Kind,
    UsageShape,
)

#: Opaque payloads: base64, as the services send them (Bedrock's blobs must be).
SIGNATURE = "RXFzU2lnbmF0dXJlUGk="
REDACTED = "UmVkYWN0ZWRQYXlsb2FkUGk="
ENCRYPTED = "Z0FBQUFBQm5jcnlwdGVkUGk="


def text(*deltas: str) -> Block:
    return Block(Kind.TEXT, deltas)


def call(call_id: str, name: str, *deltas: str) -> Block:
    return Block(Kind.TOOL_CALL, deltas, call_id=call_id, name=name)


def split(arguments: object, pieces: int) -> tuple[str, ...]:
    """The arguments' JSON in ``pieces`` nearly equal parts."""
    raw = json.dumps(arguments, separators=(",", ":"))
    size = -(-len(raw) // pieces)
    return tuple(raw[i:i + size] for i in range(0, len(raw), size))


@dataclass(frozen=True)
class ContentKind:
    slug: str
    title: str
    blocks: tuple[Block, ...]
    features: tuple[str, ...]
    #: Reasoning is asked for in the request (the thinking kinds).
    reasoning: bool = False
    #: Several tool calls' pieces alternate (ResponseSpec.interleave).
    interleave: bool = False


READ = {"path": "notes.txt"}
CONTENT_KINDS = (
    ContentKind("text", "a text reply in two deltas", (text("Hello, ", "world."),),
                ("response-text",)),
    ContentKind("empty", "no content at all", (), ("response-empty",)),
    ContentKind("unicode", "multi-byte text (accents, CJK, emoji, a ZWJ sequence) split "
                "between characters", (text("Grüße, ", "世界 ", "🎉👩", "\u200d💻"),),
                ("response-text", "text-unicode")),
    ContentKind("thinking", "reasoning text with no signature, then text",
                (Block(Kind.THINKING, ("Let me ", "think.")), text("Done.")),
                ("block-thinking",), reasoning=True),
    ContentKind("signed-thinking", "reasoning with a signature, then text",
                (Block(Kind.SIGNED_THINKING, ("Check the ", "file."), SIGNATURE),
                 text("It is fine.")),
                ("block-thinking", "block-thinking-signature"), reasoning=True),
    ContentKind("redacted-thinking", "redacted reasoning (an opaque payload), then text",
                (Block(Kind.REDACTED_THINKING, signature=REDACTED), text("Answer.")),
                ("block-thinking-redacted",), reasoning=True),
    ContentKind("reasoning-summary", "a reasoning summary with encrypted content, then text",
                (Block(Kind.REASONING_SUMMARY, ("Plan: ", "read it."), ENCRYPTED),
                 text("Read.")),
                ("block-thinking", "response-reasoning-summary"), reasoning=True),
    ContentKind("encrypted-reasoning", "encrypted reasoning only (no text), then text",
                (Block(Kind.ENCRYPTED_REASONING, signature=ENCRYPTED), text("OK.")),
                ("block-thinking", "response-encrypted-reasoning"), reasoning=True),
    ContentKind("tool-call", "text, then a tool call with its arguments in one piece",
                (text("Reading."), call("call_pi01", "read", json.dumps(READ))),
                ("response-text", "block-tool-call")),
    ContentKind("tool-call-split", "a tool call whose arguments stream in five pieces",
                (call("call_pi02", "bash", *split({"command": "ls -la src"}, 5)),),
                ("block-tool-call", "response-arguments-split")),
    ContentKind("tool-calls-interleaved", "two tool calls whose argument pieces alternate",
                (call("call_pi03", "read", *split(READ, 3)),
                 call("call_pi04", "bash", *split({"command": "pwd"}, 3))),
                ("block-tool-call", "response-tool-calls-interleaved"), interleave=True),
    ContentKind("tool-call-empty-arguments", "a tool call with no arguments",
                (call("call_pi05", "status"),),
                ("block-tool-call", "response-arguments-empty")),
    ContentKind("tool-calls-parallel", "two tool calls, each sent whole in turn",
                (call("call_pi10", "read", json.dumps(READ)),
                 call("call_pi11", "bash", json.dumps({"command": "pwd"}))),
                ("block-tool-call", "response-tool-calls-parallel")),
    ContentKind("thinking-tool-call", "reasoning text with no signature, then a tool call",
                (Block(Kind.THINKING, ("I should ", "read it.")),
                 call("call_pi12", "read", json.dumps(READ))),
                ("block-thinking", "block-tool-call"), reasoning=True),
    ContentKind("signed-thinking-tool-call", "signed reasoning, then a tool call",
                (Block(Kind.SIGNED_THINKING, ("Read ", "first."), SIGNATURE),
                 call("call_pi13", "read", json.dumps(READ))),
                ("block-thinking", "block-thinking-signature", "block-tool-call"),
                reasoning=True),
)

#: Many chunks and long arguments: a handful of cases outside the matrix.
STRESS_KINDS = (
    ContentKind("stress-many-deltas", "a text in 40 one-character deltas",
                (text(*("abcdefghij" * 4)),), ("response-text", "response-stress")),
    ContentKind("stress-long-arguments", "a tool call with 1 KB of arguments in 24 pieces",
                (call("call_pi06", "write",
                      *split({"path": "big.txt", "content": "x" * 1000}, 24)),),
                ("block-tool-call", "response-arguments-split", "response-stress")),
    ContentKind("stress-many-blocks", "text and three tool calls in one reply",
                (text("Calling ", "three."),
                 call("call_pi07", "read", *split({"path": "a"}, 2)),
                 call("call_pi08", "read", *split({"path": "b"}, 2)),
                 call("call_pi09", "read", *split({"path": "c"}, 2))),
                ("response-text", "block-tool-call", "response-tool-calls-interleaved",
                 "response-stress"), interleave=True),
)

STREAM_ENDINGS = (Ending.STOP, Ending.LENGTH, Ending.TOOL_USE, Ending.REFUSAL,
                  Ending.ERROR_EVENT, Ending.CUT)

ENDING_FEATURES = {
    Ending.STOP: "response-stop", Ending.LENGTH: "stop-reason-length",
    Ending.TOOL_USE: "response-tool-use", Ending.REFUSAL: "response-refusal",
    Ending.ERROR_EVENT: "response-error-event", Ending.CUT: "response-cut",
    Ending.HTTP_4XX: "response-http-error", Ending.HTTP_5XX: "response-http-error",
    Ending.OVERLOAD: "response-overload",
}

USAGE_FEATURES = {
    UsageShape.FINAL: "response-usage-final", UsageShape.CACHE_READ: "response-usage-cache-read",
    UsageShape.CACHE_WRITE: "response-usage-cache-write", UsageShape.REASONING: "usage-reasoning",
    UsageShape.NONE: "response-usage-none",
}

#: HTTP errors: each status with each body style (the API's error object, plain text, none).
HTTP_ERRORS = tuple(
    (ending, HttpError(status, style))
    for ending, statuses in ((Ending.HTTP_4XX, (400, 401, 404, 413)),
                             (Ending.HTTP_5XX, (500, 502, 504)),
                             (Ending.OVERLOAD, (0,)))
    for status in statuses for style in BodyStyle)
