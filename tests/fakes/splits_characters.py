"""A stream-parser port with a chunk-boundary bug: it decodes each network read as UTF-8 on its
own, so a multi-byte character cut between two reads is lost, and with it the delta that
carried it. Otherwise it answers as Pi does (it replays the goldens), so it passes every
response whose chunks each hold whole characters, and fails once the runner cuts one apart."""

from __future__ import annotations

import base64
from typing import Any

from _fake import APIS, HELLO, Goldens, arguments, serve, write


def cuts_a_character(response: dict[str, Any]) -> bool:
    """Whether decoding each chunk on its own loses what decoding the body keeps (text only)."""
    kinds = " ".join(value for name, value in response["headers"] if name.lower() == "content-type")
    if "text/" not in kinds and "json" not in kinds:
        return False
    chunks = [chunk["text"].encode() if "text" in chunk else base64.b64decode(chunk["base64"])
              for chunk in response["chunks"]]
    piecewise = "".join(chunk.decode("utf-8", errors="ignore") for chunk in chunks)
    return piecewise != b"".join(chunks).decode("utf-8", errors="ignore")


def answer(request: dict[str, Any]) -> None:
    reply = goldens.answer(request)
    for api, response in request.get("responses", {}).items():
        result = reply["results"].get(f"response.{api}", {})
        if "output" in result and cuts_a_character(response):
            result["output"]["events"] = [
                event for event in result["output"]["events"]
                if not (event["type"].endswith("_delta") and not event["delta"].isascii())]
    write(reply)


args = arguments()
goldens = Goldens(args.corpus)
serve(answer, {**HELLO, "capabilities": {"stages": [f"response.{api}" for api in APIS]}})
