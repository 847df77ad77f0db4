"""A one-case corpus of provider responses (Anthropic and Completions sending one turn with
thinking, emoji, CJK and a tool call), for the tests of the response stage, rechunking and
chunk-boundary fuzzing. Its goldens are written by the real Pi (``regenerated_responses``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus_builder import CLAUSES, write_corpus

from conformance._paths import corpus_root
from conformance.corpus import http_responses
from conformance.corpus.cases import Corpus
from conformance.maintenance.captures.script import Block, Turn, Usage
from conformance.maintenance.responses import encoders
from conformance.maintenance.responses.from_turn import spec_of

TURN = Turn(blocks=(Block("thinking", "let me see", signature="c2ln"),
                    Block("text", "héllo 😀 世界"),
                    Block("tool_call", id="toolu_1", name="read", arguments={"path": "ä.txt"})),
            stop="toolUse", usage=Usage(10, 5, 3))


def response_corpus(root: Path) -> Corpus:
    """One case holding the same turn as Anthropic and OpenAI Completions send it."""
    write_corpus(root, CLAUSES, {"resp/turn": (
        'features = ["basic"]\n'
        'stages = ["response.anthropic-messages", "response.openai-completions"]\n')})
    shutil.copy(corpus_root() / "models.json", root / "models.json")
    folder = root / "cases" / "resp" / "turn" / "responses"
    folder.mkdir()
    for api in ("anthropic-messages", "openai-completions"):
        # The encoders send non-ASCII characters as UTF-8, as services do, so that a cut may
        # fall inside a character.
        response = encoders.encode(api, spec_of(TURN, api, 1), "claude-sonnet-4-5")
        assert response is not None
        (folder / f"{api}.json").write_text(http_responses.dumps(response))
    return Corpus(root)
