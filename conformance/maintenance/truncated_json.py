"""Close a JSON text that was cut short (a session's last line, written when Pi stopped), so
that what it holds can be anonymized by its position like any whole line."""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<open>[{\[])|(?P<close>[}\]])'
                    r'|(?P<colon>:)|(?P<comma>,)|(?P<literal>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?'
                    r'(?![\w.])|true|false|null))')
_PARTIAL_NUMBER = re.compile(r"-?\d*\.?\d*([eE][+-]?)?\d*")
_CLOSE = {"{": "}", "[": "]"}


def complete(text: str) -> Any | None:
    """The value ``text`` was the start of, cut where it stops: an open string, key or
    container is closed, a key without a value gets ``null``, a trailing comma goes. None if
    ``text`` is not the start of a JSON value."""
    parts: list[str] = []
    stack: list[str] = []
    states = ["value"]
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            break
        kind = match.lastgroup
        assert kind is not None
        if not _step(kind, match.group(kind), stack, states):
            return None
        parts.append(match.group(0))
        position = match.end()
    rest = text[position:].lstrip()
    if rest:
        token = _finish(rest)
        if token is None or not _step("literal" if token[0] != '"' else "string", token,
                                      stack, states):
            return None
        parts.append(token)
    while stack:
        state = states[-1]
        if state == "colon":
            parts.append(":null")
        elif state == "value" and parts and parts[-1].strip() == ":":
            parts.append("null")
        elif parts and parts[-1].strip() == ",":
            parts.pop()
        parts.append(_CLOSE[stack.pop()])
        states.pop()
    try:
        return json.loads("".join(parts))
    except (ValueError, RecursionError):
        return None


def _step(kind: str, token: str, stack: list[str], states: list[str]) -> bool:
    """Advance the grammar by one token; False if the token cannot come here."""
    state = states[-1]
    if kind == "string" and stack and stack[-1] == "{" and state == "key":
        states[-1] = "colon"
    elif kind in ("string", "literal", "open") and state == "value":
        states[-1] = "comma" if stack else "done"
        if kind == "open":
            stack.append(token)
            states.append("key" if token == "{" else "value")
    elif kind == "close" and stack and _CLOSE[stack[-1]] == token \
            and state in ("key", "comma", "value"):
        stack.pop()
        states.pop()
    elif kind == "colon" and state == "colon":
        states[-1] = "value"
    elif kind == "comma" and state == "comma" and stack:
        states[-1] = "key" if stack[-1] == "{" else "value"
    else:
        return False
    return True


def _finish(rest: str) -> str | None:
    """The token a cut-off string, number or literal would have been."""
    if rest.startswith('"'):
        return _close_string(rest[1:])
    for literal in ("true", "false", "null"):
        if literal.startswith(rest):
            return literal
    match = _PARTIAL_NUMBER.fullmatch(rest)
    if match and any(ch.isdigit() for ch in rest):
        number = re.sub(r"[eE][+-]?$|\.$", "", rest)
        return number if not number.endswith((".", "-")) else number + "0"
    return "0" if rest == "-" else None


def _close_string(body: str) -> str:
    """A cut-off string closed, without the half of an escape it may end in."""
    if (len(body) - len(body.rstrip("\\"))) % 2:
        body = body[:-1]
    escape = re.search(r"(\\+)u[0-9A-Fa-f]{0,3}$", body)
    if escape and len(escape.group(1)) % 2:
        body = body[:escape.start()] + escape.group(1)[:-1]
    return '"' + body + '"'
