"""Hosts a Python implementation in a child process: ``python -m ... module:attribute``.

The attribute is either an object with ``hello()`` and ``run(request)`` methods, or a function
``run(request)`` next to a module-level ``HELLO`` dict. ``run`` returns the per-stage results
(``{stage: {"output": ...}}``); an exception becomes a run error, not a crash.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

import orjson


def load(target: str) -> tuple[Any, Any]:
    module_name, _, attribute = target.partition(":")
    if not attribute:
        raise SystemExit(f"python_host: expected MODULE:ATTRIBUTE, got {target!r}")
    module = importlib.import_module(module_name)
    obj = getattr(module, attribute)
    if hasattr(obj, "hello") and hasattr(obj, "run"):
        return obj.hello, obj.run
    hello = getattr(module, "HELLO", None)
    if hello is None:
        raise SystemExit(f"python_host: {module_name} has no HELLO for the function {attribute}")
    return (lambda: hello), obj


def serve(target: str) -> None:
    hello, run = load(target)
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() in the implementation must not corrupt answers
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = orjson.loads(line)
        if message.get("cmd") == "bye":
            break
        if message.get("cmd") == "hello":
            answer = hello()
        else:
            try:
                answer = {"seq": message.get("seq"), "results": run(message)}
            except Exception:
                answer = {"seq": message.get("seq"), "error": {"message": traceback.format_exc()}}
        out.write(orjson.dumps(answer, option=orjson.OPT_APPEND_NEWLINE))
        out.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
