"""JSON in and out: orjson for speed, with errors that name the file and line.

Every text that is valid JSON is read, including escaped lone surrogates (``"\\ud800"``),
which Node writes and orjson refuses: those fall back to the standard library, keeping the
surrogate in the string. Reading stops at ``MAX_NESTING`` levels (orjson's limit).

Whatever is read is written back: writing escapes a lone surrogate again (``\\ud800``, as
Node does), since UTF-8 cannot hold it, writes integers beyond 64 bits, and writes values
nested deeper than the 254 levels orjson writes (an iterative writer, the same bytes but for
how a float is spelled), up to ``MAX_NESTING``; deeper is a ``ValueError`` saying so.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from collections.abc import Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import orjson

from conformance.errors import ConformanceError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: The deepest nesting read (orjson's parser refuses more) and so the deepest written.
MAX_NESTING = 1024


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
        with _recursion_for_nesting():
            return json.loads(text, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, _Constant):
        raise first from None


@contextlib.contextmanager
def _recursion_for_nesting() -> Iterator[None]:
    """The standard library's parser recurses once per level: room for ``MAX_NESTING``."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 2 * MAX_NESTING + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _escape_surrogates(text: str) -> str:
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def dumps_text(value: Any, *, indent: int | None = None, sort_keys: bool = False,
               compact: bool = True) -> str:
    """JSON text that UTF-8 can hold: non-ASCII kept, lone surrogates escaped, big ints kept,
    any nesting up to ``MAX_NESTING``.

    ``compact=False`` spaces it like ``json.dumps`` (``{"a": 1}``), for people to read."""
    separators = (",", ": ") if indent else (",", ":") if compact else (", ", ": ")
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators,
                          sort_keys=sort_keys, allow_nan=False)
    except RecursionError:
        text = _iterative_text(value, indent, sort_keys, *separators)
    return _escape_surrogates(text)


def _scalar_text(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
        return float.__repr__(value)
    if isinstance(value, str):
        return encode_basestring(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _iterative_text(value: Any, indent: int | None, sort_keys: bool, item_separator: str,
                    key_separator: str) -> str:
    """``json.dumps`` without recursion, for values nested deeper than Python recurses."""
    out: list[str] = []
    # Each open container: its closing bracket, an iterator of its items, whether it is an
    # object, how many items have been written.
    frames: list[tuple[str, Any, bool, list[int]]] = []

    def newline() -> str:
        return "" if indent is None else "\n" + " " * (indent * len(frames))

    def start(item: Any) -> None:
        if isinstance(item, dict) and item:
            pairs = sorted(item.items()) if sort_keys else item.items()
            opened = ("{", "}", iter(pairs), True)
        elif isinstance(item, (list, tuple)) and item:
            opened = ("[", "]", iter(item), False)
        elif isinstance(item, (dict, list, tuple)):
            out.append("{}" if isinstance(item, dict) else "[]")
            return
        else:
            out.append(_scalar_text(item))
            return
        if len(frames) >= MAX_NESTING:
            raise ValueError(f"a value nested deeper than {MAX_NESTING} levels")
        out.append(opened[0])
        frames.append((opened[1], opened[2], opened[3], [0]))

    start(value)
    while frames:
        closer, items, is_object, written = frames[-1]
        item: Any = next(items, _END)
        if item is _END:
            frames.pop()
            if written[0]:
                out.append(newline())
            out.append(closer)
            continue
        if written[0]:
            out.append(item_separator)
        written[0] += 1
        out.append(newline())
        if is_object:
            key: Any
            key, item = item
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            out.append(encode_basestring(key) + key_separator)
        start(item)
    return "".join(out)


_END = object()


def _only_unwritable_text(exc: TypeError) -> None:
    """Re-raise what the fallback must not hide: non-JSON objects. Lone surrogates, integers
    beyond 64 bits and nesting beyond orjson's 254 levels are what it is for."""
    if not any(reason in str(exc) for reason in ("surrogates", "64-bit", "Recursion limit")):
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


_COPIED_BELOW = 64 * 1024  # canonical bytes shorter than this are copied


def canonical(value: Any) -> bytes:
    """Bytes equal exactly when two values are the same JSON: keys sorted, nothing else.

    Short ones are a copy of orjson's result, which keeps the whole buffer orjson reserved
    (4 KiB for an id): kept as keys or counts, each cost that much. Long ones are not: what
    orjson reserved past their end (up to eight times a long string) is never touched, so it
    takes no memory, and a copy would."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        return bytes(memoryview(data)) if len(data) < _COPIED_BELOW else data
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
