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

#: The exit status of a host that could not load its target; its last stderr line says why,
#: and the runner shows that line alone (transports.PythonHostedImplementation).
LOAD_FAILED = 3


class LoadFailed(Exception):
    """The target cannot be imported or is not an implementation: one line says why."""


def split_target(target: str) -> tuple[str, str] | None:
    """``MODULE:ATTRIBUTE`` as its two parts, or None when it is not of that form."""
    module_name, _, attribute = target.partition(":")
    return (module_name, attribute) if module_name and attribute else None


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            raise LoadFailed(f"{exc} (searched {os.getcwd()} and sys.path)") from None
        raise LoadFailed(_raised(module_name, exc)) from None
    except Exception as exc:  # the module's own code failed: say where, in one line
        raise LoadFailed(_raised(module_name, exc)) from None


def _raised(module_name: str, exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"importing {module_name} raised {type(exc).__name__}: {exc}{where}"


def load(target: str) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
    parts = split_target(target)
    if parts is None:
        raise LoadFailed(f"expected MODULE:ATTRIBUTE, got {target!r}")
    module_name, attribute = parts
    module = _import(module_name)
    try:
        obj = getattr(module, attribute)
    except AttributeError:
        raise LoadFailed(f"{module_name} has no attribute {attribute!r}") from None
    if hasattr(obj, "hello") and hasattr(obj, "run"):
        return obj.hello, obj.run
    hello = getattr(module, "HELLO", None)
    if hello is None:
        raise LoadFailed(f"{module_name} has no HELLO for the function {attribute}")
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
    try:
        hello, run = load(target)
    except LoadFailed as exc:
        sys.stderr.write(f"python_host: {' '.join(str(exc).split())}\n")
        sys.stderr.flush()
        os._exit(LOAD_FAILED)
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
