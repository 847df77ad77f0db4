"""A port with several planted, independent defects: the test double for drafts by root cause.

It answers ``entries``, ``context``, ``projection`` and ``stats`` by asking the real Pi (the
pinned reference, started once in this process) and then changing Pi's answer in exactly
these ways, each triggered by its own kind of input, so that it is faithful on every session
that triggers none of them, corpus case or shrink candidate alike:

``reasoning``  stats: adds each assistant message's ``usage.reasoning`` to ``tokens.output``
               (and so to ``tokens.total``): one cause, two paths.
``summary``    stats: leaves out a branch summary's ``usage.output`` (and so from
               ``tokens.total``): the same two paths as ``reasoning``, another trigger.
``custom``     context and projection: drops the messages a ``custom_message`` entry
               contributes (role ``custom``): a missing list item, on two stages.
``model``      entries: writes a ``model_change`` entry's ``modelId`` as ``model``: a renamed
               field on one entry type only.
``label``      every stage: an error when the session holds a ``label`` entry.

``DEFECTS`` (comma-separated, default all) plants only some. Usage:
``process:python tests/fakes/multi_defect.py``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _fake import serve, write

ALL = ("reasoning", "summary", "custom", "model", "label")
DEFECTS = set(filter(None, os.environ.get("DEFECTS", ",".join(ALL)).split(",")))
STAGES = ["entries", "context", "projection", "stats"]
HELLO = {
    "protocol": 1,
    "implementation": {"name": "multi-defect", "version": "0.3.0", "language": "python",
                       "issues": "https://example.invalid/multi-defect/issues"},
    "capabilities": {"stages": STAGES},
}

_pi: Any = None


def pi() -> Any:
    global _pi
    if _pi is None:
        from conformance.implementations.transports import reference

        _pi = reference()
        _pi.start()
    return _pi


def lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def answer(request: dict[str, Any]) -> None:
    text = request["session"]["text"]
    entries = lines(text)
    if "label" in DEFECTS and any(e.get("type") == "label" for e in entries[1:]):
        write({"seq": request["seq"], "results": {
            stage: {"error": {"message": "unsupported entry type: label"}}
            for stage in request["stages"]}})
        return
    results = pi().run(request, 30.0)["results"]
    for stage, result in results.items():
        output = result.get("output")
        if output is None:
            continue
        if stage == "stats" and isinstance(output.get("tokens"), dict):
            tokens = output["tokens"]
            extra = 0
            for entry in entries[1:]:
                message = entry.get("message")
                usage = message.get("usage") if isinstance(message, dict) else None
                if "reasoning" in DEFECTS and entry.get("type") == "message" and \
                        message.get("role") == "assistant" and isinstance(usage, dict):
                    extra += int(number(usage.get("reasoning")))
                if "summary" in DEFECTS and entry.get("type") == "branch_summary" and \
                        isinstance(entry.get("usage"), dict):
                    extra -= int(number(entry["usage"].get("output")))
            if extra and all(isinstance(tokens.get(k), int) for k in ('output', 'total')):
                tokens["output"] += extra
                tokens["total"] += extra
        if "custom" in DEFECTS and stage == "context" and isinstance(output.get("messages"), list):
            output["messages"] = [m for m in output["messages"]
                                  if not (isinstance(m, dict) and m.get("role") == "custom")]
        if "custom" in DEFECTS and stage == "projection":
            for item in output.get("entries") or []:
                if isinstance(item, dict) and isinstance(item.get("messages"), list):
                    item["messages"] = [m for m in item["messages"]
                                        if not (isinstance(m, dict) and m.get("role") == "custom")]
        if "model" in DEFECTS and stage == "entries":
            for entry in output.get("entries") or []:
                if isinstance(entry, dict) and entry.get("type") == "model_change" and \
                        "modelId" in entry:
                    entry["model"] = entry.pop("modelId")
    write({"seq": request["seq"], "results": results})


if __name__ == "__main__":
    try:
        serve(answer, HELLO)
    finally:
        if _pi is not None:
            _pi.close()
