"""Hosts a Python implementation in a child process: ``python -m ... module:attribute``.

The attribute is either an object with ``hello()`` and ``run(request)`` methods, or a function
``run(request)`` next to a module-level ``HELLO`` dict. ``run`` returns the per-stage results
(``{stage: {"output": ...}}``). The runner's isolation rests on this process: an exception, or
a result that is not JSON, becomes a run error; only a real crash (``os._exit``, a segfault,
``sys.exit``) ends the process, and the runner restarts it.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO

import orjson

from conformance import jsonio


def load(target: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise SystemExit(f"python_host: expected MODULE:ATTRIBUTE, got {target!r}")
    module = importlib.import_module(module_name)
    try:
        obj = getattr(module, attribute)
    except AttributeError:
        raise SystemExit(f"python_host: {module_name} has no attribute {attribute!r}") from None
    if hasattr(obj, "hello") and hasattr(obj, "run"):
        return obj.hello, obj.run
    hello = getattr(module, "HELLO", None)
    if hello is None:
        raise SystemExit(f"python_host: {module_name} has no HELLO for the function {attribute}")
    return (lambda: hello), obj


def private_stdout() -> BinaryIO:
    """The real stdout, for answers only; fd 1 and ``sys.stdout`` now go to stderr.

    A stray ``print`` or a C library writing to fd 1 inside the implementation must not
    corrupt the answer stream.
    """
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return answers


def encode(answer: Any) -> bytes:
    try:
        return jsonio.dumps_line(answer)  # a lone surrogate is escaped, as Node writes it
    except (TypeError, ValueError) as exc:
        seq = answer.get("seq") if isinstance(answer, dict) else None
        return orjson.dumps(
            {"seq": seq,
             "error": {"message": f"the implementation returned a result that is not JSON: {exc}"}},
            option=orjson.OPT_APPEND_NEWLINE)


def answer_to(message: Any, hello: Callable[[], Any], run: Callable[[Any], Any]) -> Any:
    if not isinstance(message, dict):
        return {"seq": None, "error": {"message": "a request must be a JSON object"}}
    if message.get("cmd") == "hello":
        return hello()
    if message.get("cmd") == "run":
        try:
            return {"seq": message.get("seq"), "results": run(message)}
        except Exception:
            return {"seq": message.get("seq"), "error": {"message": traceback.format_exc()}}
    return {"seq": message.get("seq"), "error": {"message": f"unknown cmd {message.get('cmd')!r}"}}


def serve(target: str) -> None:
    out = private_stdout()
    hello, run = load(target)
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            message = jsonio.loads(line)
        except jsonio.JSONDecodeError as exc:
            message = None
            answer: Any = {"seq": None, "error": {"message": f"request is not JSON: {exc}"}}
        if isinstance(message, dict) and message.get("cmd") == "bye":
            break
        if message is not None:
            answer = answer_to(message, hello, run)
        out.write(encode(answer))
        out.flush()


if __name__ == "__main__":
    serve(sys.argv[1])
