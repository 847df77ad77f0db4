"""The one JSON path dialect of the suite: ``$.messages[1].content[0].text``.

Reports print it, discrepancy checks read it, and goldens use it to name their volatile
values, so ``parse(json_path(steps)) == steps`` for every key. Keys are ``.name`` (ASCII
identifiers) or ``["any key"]`` (JSON string syntax), indices ``[n]`` (negative counts from
the end).
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.errors import ConformanceError

MISSING = object()
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(
    r"""\.([A-Za-z_$][\w$-]*)|\[(-?\d+)\]|\[('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""")


def json_path(steps: list[Any]) -> str:
    """``['messages', 2, 'content']`` -> ``$.messages[2].content``; other keys are quoted."""
    out = "$"
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif _PLAIN_KEY.fullmatch(step):
            out += f".{step}"
        else:
            out += "[" + json.dumps(step) + "]"
    return out


def parse(path: str) -> list[str | int]:
    """The steps of ``path``; a malformed path is a ConformanceError saying where it breaks."""
    if not path.startswith("$"):
        raise ConformanceError(f"JSON path {path!r} must start with '$'")
    steps: list[str | int] = []
    position = 1
    while position < len(path):
        match = _TOKEN.match(path, position)
        if match is None:
            raise ConformanceError(f"JSON path {path!r} is malformed at character {position}")
        name, index, quoted = match.groups()
        if name is not None:
            steps.append(name)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(json.loads('"' + quoted[1:-1].replace('"', '\\"') + '"')
                         if quoted.startswith("'") else json.loads(quoted))
        position = match.end()
    return steps


def get(value: Any, path: str) -> Any:
    """The value at ``path``, or ``MISSING`` when any step does not exist."""
    for step in parse(path):
        if isinstance(step, int) and isinstance(value, list):
            if not -len(value) <= step < len(value):
                return MISSING
            value = value[step]
        elif isinstance(step, str) and isinstance(value, dict):
            if step not in value:
                return MISSING
            value = value[step]
        else:
            return MISSING
    return value


def generalize(path: str) -> str:
    """``$.messages[3].content[0]`` -> ``$.messages[*].content[*]``: the shape, not the place."""
    return re.sub(r"\[-?\d+\]", "[*]", path)
