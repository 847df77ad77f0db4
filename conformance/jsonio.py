"""JSON in and out: orjson for speed, with errors that name the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from conformance.errors import ConformanceError


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def dumps_line(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


def dumps_pretty(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n"


def read_json(path: Path, error: type[ConformanceError] = ConformanceError) -> Any:
    """Parse a JSON file; a syntax error names the line and column."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise error(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path,
                    line=exc.lineno) from None
