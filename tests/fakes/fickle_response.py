"""A stream parser wrong once: it answers as Pi does (it replays the goldens), except that the
second time it is asked a response stage, its answer holds one extra key. The chunk-boundary
fuzzer asks the body in its own chunks first and a cut second, so that cut fails once and
never again: a failure Hypothesis cannot replay, which must not crash the fuzzer."""

from __future__ import annotations

from typing import Any

from _fake import APIS, HELLO, Goldens, arguments, serve, write

asked = 0


def answer(request: dict[str, Any]) -> None:
    global asked
    reply = goldens.answer(request)
    for stage, result in reply["results"].items():
        if stage.startswith("response.") and "output" in result:
            asked += 1
            if asked == 2:
                result["output"]["fickle"] = True
    write(reply)


args = arguments()
goldens = Goldens(args.corpus)
serve(answer, {**HELLO, "capabilities": {"stages": [f"response.{api}" for api in APIS]}})
