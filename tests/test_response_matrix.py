"""The content x ending matrix of provider responses: cells read from what Pi answered."""

from __future__ import annotations

import pytest

from conformance.corpus.stages import APIS
from conformance.maintenance.response_matrix import (
    CONTENT_KINDS,
    ENDINGS,
    HTTP_ENDINGS,
    content_kinds,
    ending,
    expected_cells,
)


def message(*blocks: dict, stop: str = "stop", raw: str | None = None) -> dict:
    found = {"role": "assistant", "content": list(blocks), "stopReason": stop}
    if raw is not None:
        found["rawStopReason"] = raw
    return found


def test_content_is_read_from_the_blocks_pi_made():
    final = message({"type": "thinking", "thinking": "t", "thinkingSignature": "c2ln"},
                    {"type": "thinking", "thinking": "", "thinkingSignature": "x",
                     "redacted": True},
                    {"type": "text", "text": "hi"},
                    {"type": "toolCall", "id": "a", "name": "n", "arguments": {}},
                    {"type": "toolCall", "id": "b", "name": "n", "arguments": {"p": 1}})
    assert content_kinds(final, []) == {"thinking-signed", "thinking-redacted", "text",
                                        "tool-call-empty-arguments", "tool-call",
                                        "tool-calls-several"}


def test_a_signature_pi_dropped_is_plain_thinking_and_empty_text_is_nothing():
    assert content_kinds(message({"type": "thinking", "thinking": "t",
                                  "thinkingSignature": ""}), []) == {"thinking"}
    assert content_kinds(message({"type": "text", "text": ""}), []) == {"none"}


def test_arguments_streamed_in_three_deltas_or_more():
    deltas = [{"type": "toolcall_delta", "contentIndex": 0, "delta": "{"}] * 3
    final = message({"type": "toolCall", "id": "a", "name": "n", "arguments": {"p": 1}})
    assert "tool-call-streamed" in content_kinds(final, deltas)
    assert "tool-call-streamed" not in content_kinds(final, deltas[:2])


@pytest.mark.parametrize(("final", "status", "expected"), [
    (message(stop="stop"), 200, "stop"),
    (message(stop="toolUse"), 200, "toolUse"),
    (message(stop="length"), 200, "length"),
    (message(stop="error"), 200, "error-in-stream"),
    (message(stop="stop", raw="refusal"), 200, "refusal"),
    (message(stop="error", raw="incomplete.content_filter"), 200, "refusal"),
    (message(stop="error"), 400, "http-4xx"),
    (message(stop="error"), 500, "http-5xx"),
    (message(stop="error"), 529, "overloaded"),
    (message(stop="error"), 429, "overloaded"),
])
def test_the_ending_is_pis_stop_reason_or_the_status(final, status, expected):
    assert ending(final, status) == expected


def test_the_expected_cells_keep_the_rules_of_a_stream():
    cells = expected_cells()
    assert {cell.api for cell in cells} == set(APIS)
    assert all(cell.content in CONTENT_KINDS and cell.ending in ENDINGS for cell in cells)
    for cell in cells:
        if cell.ending in HTTP_ENDINGS:
            assert cell.content == "none"
        if cell.content.startswith("tool-call"):
            assert cell.ending == "toolUse"
    assert len({cell.key for cell in cells}) == len(cells)


def test_the_response_corpus_fills_every_cell_pi_can_produce():
    """Read from the shipped goldens."""
    from conformance._paths import corpus_root
    from conformance.corpus.cases import Corpus
    from conformance.maintenance.response_matrix import compute_response_matrix

    corpus = Corpus(corpus_root())
    matrix = compute_response_matrix(corpus.select(["response.*"]))
    assert [cell.key for cell in matrix.empty] == []
    assert min(matrix.responses.values()) >= 100
