"""JSON in and out: orjson for speed, with errors that name the file and line.

Every text that is valid JSON is read, including escaped lone surrogates (``"\\ud800"``),
which Node writes and orjson refuses: those fall back to the standard library, keeping the
surrogate in the string. Writing escapes a lone surrogate again (``\\ud800``, as Node does),
since UTF-8 cannot hold it, and writes integers beyond 64 bits, which orjson refuses.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson

from conformance.errors import ConformanceError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# What ``loads`` raises (orjson's own error is a subclass): ``msg``, ``lineno``, ``colno``.
JSONDecodeError = json.JSONDecodeError


class _Constant(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse JSON; escaped lone surrogates are kept, ``NaN`` and the like are refused."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in exc.msg:
            raise
        first = exc
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, _Constant):
        raise first from None


def _escape_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps_text(value: Any, *, indent: int | None = None, sort_keys: bool = False,
               compact: bool = True) -> str:
    """JSON text that UTF-8 can hold: non-ASCII kept, lone surrogates escaped, big ints kept.

    ``compact=False`` spaces it like ``json.dumps`` (``{"a": 1}``), for people to read."""
    separators = (",", ": ") if indent else (",", ":") if compact else (", ", ": ")
    return _escape_surrogates(json.dumps(value, ensure_ascii=False, indent=indent,
                                         separators=separators, sort_keys=sort_keys,
                                         allow_nan=False))


def _only_unwritable_text(exc: TypeError) -> None:
    """Re-raise what the fallback must not hide: nesting beyond orjson's limit, non-JSON
    objects. Lone surrogates and integers beyond 64 bits are what it is for."""
    if "surrogates" not in str(exc) and "64-bit" not in str(exc):
        raise exc


def dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError as exc:
        _only_unwritable_text(exc)
        return dumps_text(value).encode("utf-8")


def dumps_line(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError as exc:
        _only_unwritable_text(exc)
        return dumps_text(value).encode("utf-8") + b"\n"


def dumps_pretty(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n"
    except TypeError as exc:
        _only_unwritable_text(exc)
        return dumps_text(value, indent=2) + "\n"


def canonical(value: Any) -> bytes:
    """Bytes equal exactly when two values are the same JSON: keys sorted, nothing else."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError as exc:
        _only_unwritable_text(exc)
        return dumps_text(value, sort_keys=True).encode("utf-8")


def read_json(path: Path, error: type[ConformanceError] = ConformanceError) -> Any:
    """Parse a JSON file; a syntax error names the line and column."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    try:
        return loads(raw)
    except JSONDecodeError as exc:
        raise error(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path,
                    line=exc.lineno) from None


def jsonl_lines(text: str) -> list[str]:
    """A JSON-lines text's lines, each with its ``\n``: JSONL splits at ``\n`` only, never at
    the U+2028, U+0085 or \x1c that ``str.splitlines`` also breaks at and a JSON string may
    hold raw (a session line cut there stops being JSON)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return [line for line in lines if line]
