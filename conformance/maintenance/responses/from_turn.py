"""A scripted turn of a CLI capture (``captures/script.py``) as a response spec.

So the turns the captured runs were answered with are response cases too, and the final
message Pi builds from one can be compared with the assistant message Pi persisted in that
run. The spec says what the capture's wire (``captures/wire.py``) said: texts in the same two
halves, the same response and item ids, the usage as that wire reported it.
"""

from __future__ import annotations

import json

from conformance.maintenance.captures.script import Block as TurnBlock
from conformance.maintenance.captures.script import Turn
from conformance.maintenance.responses.encoders import ENCODERS
from conformance.maintenance.responses.spec import (
    Block,
    Ending,
    HttpError,
    Kind,
    ResponseSpec,
    Usage,
)

ENDINGS = {"stop": Ending.STOP, "toolUse": Ending.TOOL_USE, "length": Ending.LENGTH}
#: The response id captures/wire.py sends when a turn names none, by API.
DEFAULT_IDS = {"openai-completions": "chatcmpl-fake-{n}", "anthropic-messages": "msg_fake_{n}",
               "openai-responses": "resp_fake_{n}", "google-generative-ai": "fake-{n}"}
RESPONSES = ("openai-responses",)


def halves(text: str) -> tuple[str, ...]:
    """Two deltas where the text has two characters, as captures/wire.py splits it."""
    if len(text) < 2:
        return (text,)
    half = len(text) // 2
    return (text[:half], text[half:])


def _block(block: TurnBlock, api: str) -> Block | None:
    if block.type == "text":
        return Block(Kind.TEXT, halves(block.text))
    if block.type == "tool_call":
        arguments = json.dumps(block.arguments, separators=(",", ":"))
        deltas = (arguments,) if api == "google-generative-ai" else halves(arguments)
        return Block(Kind.TOOL_CALL, deltas, block.signature, block.id, block.name)
    if api in RESPONSES:
        # A reasoning item: a summary when the thinking has text, encrypted content only
        # otherwise (and for redacted thinking).
        if block.type == "thinking" and block.text:
            return Block(Kind.REASONING_SUMMARY, halves(block.text), block.signature)
        return Block(Kind.ENCRYPTED_REASONING, signature=block.signature)
    kinds = ENCODERS[api][0].kinds
    if block.type == "redacted_thinking":
        # A wire with no redacted reasoning never sent it (chat completions).
        if Kind.REDACTED_THINKING not in kinds:
            return None
        return Block(Kind.REDACTED_THINKING, signature=block.signature)
    if block.signature and Kind.SIGNED_THINKING in kinds:
        return Block(Kind.SIGNED_THINKING, halves(block.text), block.signature)
    # A wire with no reasoning signature sends the text alone.
    return Block(Kind.THINKING, halves(block.text))


def _usage(turn: Turn, api: str) -> Usage:
    u = turn.usage
    if api == "google-generative-ai":  # candidates and thoughts are counted apart there
        return Usage(u.input, u.output + u.reasoning, u.cache_read, 0, u.reasoning)
    if api == "anthropic-messages":  # the capture's wire never reports thinking tokens
        return Usage(u.input, u.output, u.cache_read, 0, 0)
    return Usage(u.input, u.output, u.cache_read, 0, u.reasoning)


def spec_of(turn: Turn, api: str, n: int) -> ResponseSpec:
    """The spec of the ``n``-th request's answer. A ``stall`` turn's spec is its whole
    answer, of which the fake provider sends only the start (then only an abort ends it)."""
    if turn.is_error:
        status = turn.error_status or 500
        ending = Ending.HTTP_4XX if status < 500 else Ending.HTTP_5XX
        return ResponseSpec(ending=ending, usage=None,
                            error=HttpError(status, body=turn.error_body or "{}"))
    return ResponseSpec(
        blocks=tuple(b for b in (_block(t, api) for t in turn.blocks) if b is not None),
        ending=ENDINGS[turn.stop],
        usage=_usage(turn, api),
        response_id=turn.response_id or DEFAULT_IDS[api].format(n=n),
        item_prefix=f"fake_{n}")
