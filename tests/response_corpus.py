"""A one-case corpus of provider responses (Anthropic and Completions sending one turn with
thinking, emoji, CJK and a tool call), for the tests of the response stage, rechunking and
chunk-boundary fuzzing. Its goldens are written by the real Pi (``regenerated_responses``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from corpus_builder import CLAUSES, write_corpus

from conformance._paths import corpus_root
from conformance.corpus import http_responses
from conformance.corpus.cases import Corpus
from conformance.corpus.http_responses import HttpResponse
from conformance.maintenance.captures import wire
from conformance.maintenance.captures.script import Block, Turn, Usage

TURN = Turn(blocks=(Block("thinking", "let me see", signature="c2ln"),
                    Block("text", "héllo 😀 世界"),
                    Block("tool_call", id="toolu_1", name="read", arguments={"path": "ä.txt"})),
            stop="toolUse", usage=Usage(10, 5, 3))


def raw_utf8(frame: bytes) -> bytes:
    """An SSE frame with its JSON's non-ASCII characters sent as UTF-8, as services send them
    (the capture encoders escape them), so that a cut may fall inside a character."""
    lines = []
    for line in frame.decode().split("\n"):
        if line.startswith("data: {"):
            line = "data: " + json.dumps(json.loads(line[6:]), ensure_ascii=False,
                                         separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines).encode()


def response_corpus(root: Path) -> Corpus:
    """One case holding the same turn as Anthropic and OpenAI Completions send it."""
    write_corpus(root, CLAUSES, {"resp/turn": (
        'features = ["basic"]\n'
        'stages = ["response.anthropic-messages", "response.openai-completions"]\n')})
    shutil.copy(corpus_root() / "models.json", root / "models.json")
    folder = root / "cases" / "resp" / "turn" / "responses"
    folder.mkdir()
    for api, encode in (("anthropic-messages", wire.anthropic_messages),
                        ("openai-completions", wire.openai_completions)):
        frames, _ = encode(TURN, "claude-sonnet-4-5", 1)
        response = HttpResponse(200, (("content-type", "text/event-stream"),),
                                tuple(map(raw_utf8, frames)))
        (folder / f"{api}.json").write_text(http_responses.dumps(response))
    return Corpus(root)
