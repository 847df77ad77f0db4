"""The wire goldens against the request goldens and the documented header rule.

Both are written by the real Pi; these tests say how the two surfaces relate, so that a
change in either (a new SDK header, a field pi-ai adds after onPayload) is seen and explained
in docs/stages.md rather than slipped into the corpus.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest

from conformance._paths import REFERENCE_DIR
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.stages import APIS, REQUEST_PREFIX, WIRE_PREFIX

CORPUS = Corpus()
PAIRS = [(case, stage[len(REQUEST_PREFIX):]) for case in CORPUS.cases for stage in case.stages
         if stage.startswith(REQUEST_PREFIX)]
DOCS = (REFERENCE_DIR.parent.parent.parent / "docs" / "stages.md").read_text()


def harness_allow_list() -> set[str]:
    source = (REFERENCE_DIR / "harness.mjs").read_text()
    block = re.search(r"const WIRE_HEADERS = \[(.*?)\];", source, re.S)
    assert block is not None
    return set(re.findall(r'"([a-z0-9-]+)"', block.group(1)))


def test_every_case_with_a_request_stage_has_its_wire_stage():
    assert PAIRS
    for case, api in PAIRS:
        assert WIRE_PREFIX + api in case.stages, case.id


def test_the_header_allow_list_is_the_documented_one():
    section = DOCS.split("### Which headers a `wire` golden keeps", 1)[1].split("Everything", 1)[0]
    assert set(re.findall(r"`([a-z0-9-]+)`", section)) == harness_allow_list()


def test_every_api_has_wire_goldens():
    """Every API pi-ai knows has request and wire goldens on the cases with a request stage."""
    assert {api for _, api in PAIRS} == set(APIS)


@pytest.mark.parametrize("api", APIS)
def test_wire_goldens_keep_only_allowed_headers_and_never_the_key(api):
    allowed = harness_allow_list()
    for case, the_api in PAIRS:
        if the_api != api:
            continue
        golden = read_golden(case, WIRE_PREFIX + api)
        if golden.kind != "output":
            continue
        output = golden.result["output"]
        assert set(output["headers"]) <= allowed, case.id
        assert "sk-test-key" not in repr(output), case.id
        # Nor any of the harness's other fake credentials (the AWS example key, the JWT).
        assert "AKIAIOSFODNN7EXAMPLE" not in repr(output), case.id
        assert "eyJ" not in repr(output["headers"]), case.id


#: Mistral's wire names for pi-ai's camelCase parameters (toMistralWirePayload in pi-ai).
MISTRAL_NAMES = {"topP": "top_p", "maxTokens": "max_tokens", "randomSeed": "random_seed",
                 "responseFormat": "response_format", "toolChoice": "tool_choice",
                 "presencePenalty": "presence_penalty", "frequencyPenalty": "frequency_penalty",
                 "parallelToolCalls": "parallel_tool_calls", "reasoningEffort": "reasoning_effort",
                 "promptMode": "prompt_mode", "promptCacheKey": "prompt_cache_key",
                 "safePrompt": "safe_prompt", "toolCalls": "tool_calls",
                 "toolCallId": "tool_call_id", "imageUrl": "image_url"}


def mistral_wire(value: Any) -> Any:
    """The parameters with every camelCase name pi-ai renames in Mistral's snake_case."""
    if isinstance(value, dict):
        return {MISTRAL_NAMES.get(k, k): mistral_wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mistral_wire(v) for v in value]
    return value


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions", "openai-responses",
                                 "azure-openai-responses", "openai-codex-responses",
                                 "mistral-conversations", "bedrock-converse-stream",
                                 "pi-messages"])
def test_the_wire_body_is_the_sdk_parameters_but_where_docs_stages_says(api):
    """Anthropic: betas go in the anthropic-beta header and pi-ai adds thread after onPayload
    (only for api.anthropic.com). Mistral: the names in snake_case. Bedrock: the model id in
    the path. The others (OpenAI, Azure, Codex once decompressed, pi-messages): the body is
    the parameters."""
    for case, the_api in PAIRS:
        if the_api != api:
            continue
        request = read_golden(case, REQUEST_PREFIX + api)
        wire = read_golden(case, WIRE_PREFIX + api)
        assert request.kind == wire.kind, case.id
        if request.kind != "output":
            continue
        params, sent = dict(request.result["output"]), wire.result["output"]
        body = dict(sent["body"])
        if api == "anthropic-messages":
            betas = params.pop("betas", None)
            assert sent["headers"].get("anthropic-beta") == (",".join(betas) if betas else None)
            thread = body.pop("thread", None)
            model = CORPUS.request_options(case)["request"]["models"][api]
            assert (thread is not None) == ("api.anthropic.com" in model["baseUrl"]), case.id
        if api == "mistral-conversations":
            params = mistral_wire(params)
        if api == "bedrock-converse-stream":
            model_id = params.pop("modelId")
            assert sent["path"] == f"/model/{quote(model_id, safe='')}/converse-stream"
        assert body == params, case.id


@pytest.mark.parametrize("google_api", ["google-generative-ai", "google-vertex"])
def test_google_wire_is_rejected_exactly_where_there_is_nothing_to_send(google_api):
    """The Google SDK refuses empty contents before sending; onPayload still saw them."""
    for case, api in PAIRS:
        if api != google_api:
            continue
        request = read_golden(case, REQUEST_PREFIX + api)
        wire = read_golden(case, WIRE_PREFIX + api)
        if request.kind == "output" and wire.kind == "rejected":
            assert request.result["output"]["contents"] == [], case.id
            assert "contents are required" in wire.result["rejected"]["message"]
        else:
            assert request.kind == wire.kind, case.id
