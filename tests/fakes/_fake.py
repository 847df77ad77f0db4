"""Shared machinery of the fake implementations: test doubles for the runner, not goldens.

A fake replays the corpus goldens of the case it is asked about, so a correct fake passes
every stage, and each misbehaving fake (crash, hang, garbage...) differs from it in one
controlled way, triggered by a case id given on its command line (``--on CASE``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

#: Every API pi-ai knows (written out, as an implementation would: fakes use no suite code).
APIS = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
        "azure-openai-responses", "openai-codex-responses", "mistral-conversations",
        "bedrock-converse-stream", "google-vertex", "pi-messages")
HELLO = {
    "protocol": 1,
    "implementation": {"name": "fake", "version": "0.0.0", "language": "python",
                       "homepage": "https://example.invalid/fake"},
    "capabilities": {"stages": ["entries", "branch", "context", "projection", "llm", "prompt",
                                "stats", *(f"request.{api}" for api in APIS),
                                *(f"wire.{api}" for api in APIS),
                                *(f"response.{api}" for api in APIS)]},
}


OPTIONS = {"linger": False}


class Goldens:
    """The goldens of a corpus, by case id."""

    def __init__(self, corpus: Path):
        self.directories = {
            tomllib.loads(meta.read_text())["id"]: meta.parent
            for meta in (corpus / "cases").rglob("case.toml")
        }

    def result(self, case_id: str, stage: str) -> dict[str, Any]:
        path = self.directories[case_id] / "expected" / f"{stage}.json"
        return loads(path.read_bytes())["result"]

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        case = request["case"]["id"]
        return {"seq": request["seq"],
                "results": {stage: self.result(case, stage) for stage in request["stages"]}}


def arguments(extra: Callable[[argparse.ArgumentParser], None] | None = None) -> Any:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--on", action="append", default=[], help="misbehave on this case id")
    parser.add_argument("--claim-stages", help="comma-separated stages to claim in the hello")
    parser.add_argument("--claim-features", help="comma-separated features to claim")
    parser.add_argument("--linger", action="store_true", help="ignore bye; stay after EOF")
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    OPTIONS["linger"] = args.linger
    if os.environ.get("FAKE_PID_FILE"):  # for tests that check the process is gone
        Path(os.environ["FAKE_PID_FILE"]).write_text(str(os.getpid()))
    capabilities = HELLO["capabilities"]
    if args.claim_stages is not None:
        capabilities["stages"] = [s for s in args.claim_stages.split(",") if s]
    if args.claim_features is not None:
        capabilities["features"] = [f for f in args.claim_features.split(",") if f]
    return args


def loads(data: bytes) -> Any:
    """orjson, or the standard library where a golden holds an escaped lone surrogate (Pi
    keeps them, content.surrogates), which orjson refuses and an implementation must read."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def dumps(value: Any) -> bytes:
    """orjson, or the standard library, which writes a lone surrogate escaped as Node does."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")


def write(answer: Any) -> None:
    sys.stdout.buffer.write(dumps(answer) + b"\n")
    sys.stdout.buffer.flush()


def serve(answer: Callable[[dict[str, Any]], Any], hello: dict[str, Any] = HELLO) -> None:
    """The protocol loop; ``answer`` gets each run request and writes (or not) its answer."""
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = loads(line)
        if message["cmd"] == "hello":
            write(hello)
        elif message["cmd"] == "bye" and not OPTIONS["linger"]:
            return
        elif message["cmd"] == "run":
            answer(message)
    if OPTIONS["linger"]:
        time.sleep(3600)
