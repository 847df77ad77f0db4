"""The block x provider matrix: block classification, producible cells, generated cases."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conformance.corpus.cases import Corpus
from conformance.maintenance.block_axes import (
    Cell,
    all_cells,
    block_variants,
    cells_of,
    producible,
    result_variants,
)
from conformance.maintenance.block_matrix import case_toml, session_for, write_matrix

MODELS = {
    "anthropic-messages": {"id": "claude", "provider": "anthropic", "api": "anthropic-messages"},
    "openai-responses": {"id": "gpt", "provider": "openai", "api": "openai-responses"},
    "openai-completions": {"id": "fake", "provider": "fake", "api": "openai-completions"},
    "google-generative-ai": {"id": "gemini", "provider": "google",
                             "api": "google-generative-ai"},
    "azure-openai-responses": {"id": "gpt", "provider": "azure", "api": "azure-openai-responses"},
    "openai-codex-responses": {"id": "gpt-codex", "provider": "openai-codex",
                               "api": "openai-codex-responses"},
    "mistral-conversations": {"id": "large", "provider": "mistral",
                              "api": "mistral-conversations"},
    "bedrock-converse-stream": {"id": "anthropic.claude", "provider": "amazon-bedrock",
                                "api": "bedrock-converse-stream"},
    "google-vertex": {"id": "gemini", "provider": "google-vertex", "api": "google-vertex"},
    "pi-messages": {"id": "claude", "provider": "radius", "api": "pi-messages"},
}


@pytest.mark.parametrize(("block", "variants"), [
    ({"type": "text", "text": "a"}, {"text"}),
    ({"type": "text", "text": "a", "textSignature": "msg_1"}, {"text-signature"}),
    ({"type": "thinking", "thinking": "t", "thinkingSignature": "sig"}, {"thinking-signed"}),
    ({"type": "thinking", "thinking": "t"}, {"thinking-unsigned"}),
    ({"type": "thinking", "thinking": "t", "thinkingSignature": ""},
     {"thinking-empty-signature"}),
    ({"type": "thinking", "thinking": "", "thinkingSignature": "x", "redacted": True},
     {"thinking-redacted"}),
    ({"type": "toolCall", "id": "c", "name": "read", "arguments": {"p": 1}}, {"tool-call"}),
    ({"type": "toolCall", "id": "c", "name": "read"}, {"tool-call-no-arguments"}),
    ({"type": "toolCall", "id": "c", "name": "read", "arguments": {}},
     {"tool-call-no-arguments"}),
    ({"type": "toolCall", "id": "c", "name": "read", "arguments": {"p": 1},
      "thoughtSignature": "c2ln", "partialJson": "{"},
     {"tool-call", "tool-call-thought-signature", "tool-call-partial-json"}),
])
def test_block_variants(block, variants):
    assert block_variants(block) == variants


def test_result_variants():
    assert result_variants({"isError": True, "details": {"a": 1}, "content": [
        {"type": "image", "data": "x", "mimeType": "image/png"}]}) == {
        "tool-result-error", "tool-result-details", "tool-result-image"}
    assert result_variants({"isError": False, "content": [], "details": None}) == set()


def test_tool_results_are_not_producible_after_error_or_aborted_turns():
    assert not producible("tool-result-error", "aborted")
    assert producible("tool-result-error", "length")
    assert producible("image-user", "-") and not producible("image-user", "stop")
    cells = all_cells()
    assert Cell("thinking-signed", "openai-responses", "error", "other", "on") in cells
    assert not any(cell.variant == "tool-result-image" and cell.stop == "error" for cell in cells)


def test_cells_follow_the_calling_turn_and_the_target_model():
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"p": 1}}
    messages = [
        {"role": "assistant", "content": [call], "stopReason": "length", "provider": "anthropic",
         "api": "anthropic-messages", "model": "claude"},
        {"role": "toolResult", "toolCallId": "c1", "isError": True, "content": []},
    ]
    found = set(cells_of(messages, "google-generative-ai", MODELS["google-generative-ai"], "on"))
    assert found == {Cell("tool-call", "google-generative-ai", "length", "other", "on"),
                     Cell("tool-result-error", "google-generative-ai", "length", "other", "on")}
    same = set(cells_of(messages, "anthropic-messages", MODELS["anthropic-messages"], "off"))
    assert {cell.replay for cell in same} == {"same"}


def _messages(session: str) -> list[dict]:
    return [json.loads(line)["message"] for line in session.splitlines()[1:]]


@pytest.mark.parametrize("api", list(MODELS))
def test_each_generated_session_fills_every_producible_cell_of_its_variant(api):
    for variant in {cell.variant for cell in all_cells()}:
        found = set(cells_of(_messages(session_for(variant, api, MODELS)), api, MODELS[api],
                             "off"))
        wanted = {cell for cell in all_cells()
                  if (cell.variant, cell.api, cell.reasoning) == (variant, api, "off")}
        assert wanted <= found, (variant, sorted(cell.key for cell in wanted - found))


def test_case_toml_is_valid_with_reasoning_options():
    meta = tomllib.loads(case_toml("thinking-signed", "openai-completions", "on"))
    assert meta["id"] == "matrix.thinking-signed-completions-reasoning-on"
    assert meta["options"]["request"]["reasoning"] == "medium"
    assert meta["options"]["request"]["models"]["openai-completions"] == {"reasoning": True}
    # entries too: the input of context, for implementations given their input
    assert meta["stages"] == ["entries", "context", "llm", "prompt",
                              "request.openai-completions", "wire.openai-completions"]
    off = tomllib.loads(case_toml("text", "anthropic-messages", "off"))
    assert "reasoning" not in off.get("options", {}).get("request", {})


def test_the_matrix_covers_every_api_with_another_models_turns():
    """Each of the ten APIs is a target, and its "other model" is of another API."""
    from conformance.corpus.stages import APIS
    from conformance.maintenance.block_axes import MATRIX_APIS
    from conformance.maintenance.block_matrix import OTHER_API

    assert set(MATRIX_APIS) == set(APIS)
    assert all(OTHER_API[api] != api and OTHER_API[api] in APIS for api in APIS)


def test_write_matrix_keeps_curated_cases(tmp_path: Path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "models.json").write_text(json.dumps({"models": MODELS}))
    corpus = Corpus(tmp_path)
    first = write_matrix(corpus)
    assert len(first) == 14 * 10 * 2  # variants x every API pi-ai knows x reasoning
    curated = first[0] / "case.toml"
    curated.write_text(curated.read_text() + "# curated\n")
    assert write_matrix(corpus) == []
    assert curated.read_text().endswith("# curated\n")
    assert len(write_matrix(corpus, overwrite=True)) == len(first)
