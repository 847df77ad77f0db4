"""A stream-parser port with one bug: its usage has no ``cost.totalFromProvider`` (the field
pi-ai-python's ``UsageCost`` lacks). Otherwise it answers as Pi does (it replays the goldens)."""

from __future__ import annotations

from typing import Any

from _fake import APIS, HELLO, Goldens, arguments, serve, write


def _drop(value: Any) -> None:
    if isinstance(value, dict):
        cost = value.get("cost")
        if isinstance(cost, dict):
            cost.pop("totalFromProvider", None)
        for item in value.values():
            _drop(item)
    elif isinstance(value, list):
        for item in value:
            _drop(item)


def answer(request: dict[str, Any]) -> None:
    reply = goldens.answer(request)
    for stage, result in reply["results"].items():
        if stage.startswith("response.") and "output" in result:
            _drop(result["output"])
    write(reply)


args = arguments()
goldens = Goldens(args.corpus)
serve(answer, {**HELLO, "implementation": {**HELLO["implementation"], "name": "cost-port"},
               "capabilities": {"stages": [f"response.{api}" for api in APIS]}})
