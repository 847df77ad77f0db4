"""Content blocks: text, thinking (redacted too), images and tool calls.

Shapes follow pi-ai 1.6.0 (``TextContent``, ``ThinkingContent``, ``ImageContent``,
``ToolCall``). Signatures are opaque provider data: generated as arbitrary strings, because
an implementation must carry them through untouched.
"""

from __future__ import annotations

import base64
from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies.values import BOOLEANS, ORDINARY, Values

__all__ = [
    "assistant_content",
    "image_blocks",
    "text_blocks",
    "thinking_blocks",
    "tool_call_ids",
    "tool_calls",
    "tool_result_content",
    "user_content",
]

IMAGE_MIME_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


@st.composite
def with_optional(draw: st.DrawFn, base: SearchStrategy[dict[str, Any]], key: str,
                  value: SearchStrategy[Any]) -> dict[str, Any]:
    """``base`` with ``key`` drawn from ``value`` or absent (absent is what it shrinks to)."""
    out = draw(base)
    if draw(BOOLEANS):
        out = {**out, key: draw(value)}
    return out


@cache
def text_blocks(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "text", "text", "textSignature"?}``.

    Example: ``{"type": "text", "text": "Hi"}``.
    """
    base = st.builds(lambda text: {"type": "text", "text": text}, values.text)
    return with_optional(base, "textSignature", values.text)


@cache
def thinking_blocks(values: Values = ORDINARY, *,
                    redacted: bool | None = None) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "thinking", "thinking", "thinkingSignature"?, "redacted"?}``.

    ``redacted=True`` gives only redacted blocks (empty text, encrypted signature),
    ``False`` none, ``None`` both. Example:
    ``{"type": "thinking", "thinking": "", "thinkingSignature": "EqQBCk...", "redacted": True}``.
    """
    plain = with_optional(st.builds(lambda text: {"type": "thinking", "thinking": text},
                                    values.text), "thinkingSignature", values.text)
    hidden = st.builds(
        lambda signature: {"type": "thinking", "thinking": "", "thinkingSignature": signature,
                           "redacted": True},
        values.text.filter(bool))
    if redacted is None:
        return plain | hidden
    return hidden if redacted else plain


@cache
def image_blocks(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "image", "data": <base64>, "mimeType"}``.

    Example: ``{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}``.
    """
    return st.builds(
        lambda raw, mime: {"type": "image", "data": base64.b64encode(raw).decode(),
                           "mimeType": mime},
        st.binary(max_size=12), st.sampled_from(IMAGE_MIME_TYPES))


@cache
def tool_call_ids() -> SearchStrategy[str]:
    """A tool call id, plain or OpenAI-style ``call|item``. Example: ``'call_1'``."""
    simple = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
                     min_size=1, max_size=16).map(lambda s: "call_" + s)
    return simple | st.tuples(simple, simple).map(lambda pair: f"{pair[0]}|fc_{pair[1]}")


@cache
def tool_calls(values: Values = ORDINARY, *,
               ids: SearchStrategy[str] | None = None) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "toolCall", "id", "name", "arguments", "thoughtSignature"?, "namespace"?}``.

    Example: ``{"type": "toolCall", "id": "call_1", "name": "read",
    "arguments": {"path": "a.txt"}}``.
    """
    arguments = st.dictionaries(values.name, values.json, max_size=3)
    base = st.builds(
        lambda id_, name, args: {"type": "toolCall", "id": id_, "name": name, "arguments": args},
        ids if ids is not None else tool_call_ids(), values.name, arguments)
    return with_optional(with_optional(base, "thoughtSignature", values.text), "namespace",
                         values.name)


@cache
def user_content(values: Values = ORDINARY) -> SearchStrategy[Any]:
    """A user (or custom) message's content: a string, or text and image blocks.

    Example: ``"Hello"`` or ``[{"type": "text", "text": "see"}, {"type": "image", ...}]``.
    """
    return values.text | st.lists(text_blocks(values) | image_blocks(values), max_size=3)


@cache
def assistant_content(values: Values = ORDINARY) -> SearchStrategy[list[dict[str, Any]]]:
    """An assistant message's content: text, thinking and tool call blocks in any order.

    Example: ``[{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Done"}]``.
    """
    return st.lists(text_blocks(values) | thinking_blocks(values) | tool_calls(values),
                    max_size=4)


@cache
def tool_result_content(values: Values = ORDINARY) -> SearchStrategy[list[dict[str, Any]]]:
    """A tool result's content: text and image blocks. Example: ``[{"type": "text",
    "text": "file contents"}]``."""
    return st.lists(text_blocks(values) | image_blocks(values), max_size=3)
