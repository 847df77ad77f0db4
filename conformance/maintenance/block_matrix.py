"""``corpus block-matrix``: write the generated cases of the content-block x provider matrix.

One case per block variant x API x reasoning (off, on). Inside a case the variant appears in
one assistant turn per stop reason, first from the target model and then from another one,
each turn after its own user message, so no turn hides another (an error or aborted turn is
dropped by Pi on its own). Signatures, ids and tool call shapes follow the API of the model
that wrote the turn, so a request is never rejected for an incidental reason. Goldens come
from ``corpus regenerate matrix.*`` as for any case; existing cases are kept (they may have
been curated) unless ``overwrite`` is given.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.corpus.cases import Corpus
from conformance.corpus.metadata import CaseMetadata
from conformance.maintenance.block_axes import (
    API_SHORT,
    MATRIX_APIS,
    NO_TOOL_RESULTS_AFTER,
    REASONING,
    REPLAYS,
    STOP_REASONS,
    TOOL_RESULT_VARIANTS,
    USER_VARIANTS,
    VARIANTS,
)

AREA = "matrix"
#: The "other model" of each target: another provider on another API; for the APIs that
#: serve a family of models elsewhere, the family's own API (Claude on Bedrock after
#: Anthropic's, Gemini on Vertex after Google's), and for the Responses APIs the OpenAI
#: provider pi-ai lets them replay tool-call ids from (its *_TOOL_CALL_PROVIDERS).
OTHER_API = {"anthropic-messages": "openai-responses", "openai-responses": "anthropic-messages",
             "openai-completions": "google-generative-ai",
             "google-generative-ai": "openai-completions",
             "azure-openai-responses": "openai-codex-responses",
             "openai-codex-responses": "openai-responses",
             "mistral-conversations": "anthropic-messages",
             "bedrock-converse-stream": "anthropic-messages",
             "google-vertex": "google-generative-ai",
             "pi-messages": "openai-completions"}
REASONING_LEVEL = "medium"
#: openai-completions' catalog model is not a reasoning model; the matrix makes it one so
#: that "reasoning on" reaches the request (reasoning_effort) instead of being clamped away.
MODEL_OVERRIDES = {"openai-completions": {"reasoning": True}}
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
       "rkJggg==")
TOOLS = [
    {"name": "read", "description": "Read a file",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                    "required": ["path"]}},
    {"name": "bash", "description": "Run a command",
     "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                    "required": ["command"]}},
]
USAGE = {"input": 120, "output": 30, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 150,
         "cost": {"input": 0.00036, "output": 0.00045, "cacheRead": 0, "cacheWrite": 0,
                  "total": 0.00081}}

VARIANT_CLAUSES: dict[str, tuple[str, ...]] = {
    "text": ("message-types/assistant-content-blocks", "code-requests/foreign-text-plain"),
    "text-signature": ("message-types/text-signature-opaque",
                       "code-requests/foreign-text-plain"),
    "thinking-signed": ("message-types/thinking-signature-opaque",
                        "code-requests/same-model-thinking",
                        "code-requests/foreign-thinking-dropped"),
    "thinking-unsigned": ("code-requests/same-model-thinking",
                          "code-requests/foreign-thinking-dropped"),
    "thinking-redacted": ("message-types/thinking-redacted-empty-text",
                          "code-requests/same-model-thinking",
                          "code-requests/foreign-thinking-dropped"),
    "thinking-empty-signature": ("code-requests/same-model-thinking",
                                 "code-requests/foreign-thinking-dropped"),
    "tool-call": ("message-types/tool-call-fields", "code-requests/foreign-tool-call"),
    "tool-call-thought-signature": ("message-types/tool-call-thought-signature",
                                    "code-requests/foreign-tool-call"),
    "tool-call-no-arguments": ("message-types/tool-call-fields",),
    "tool-call-partial-json": ("message-types/tool-call-fields",),
    "tool-result-image": ("message-types/tool-result-shape", "message-types/image-base64-mime"),
    "tool-result-error": ("message-types/tool-result-shape",),
    "tool-result-details": ("message-types/tool-result-details",),
    "image-user": ("message-types/user-content-union", "message-types/image-base64-mime"),
}
API_CLAUSES: dict[str, tuple[str, ...]] = {
    "anthropic-messages": ("code-requests/anthropic-assistant",
                           "code-requests/anthropic-tool-results"),
    "openai-completions": ("code-requests/completions-assistant",
                           "code-requests/completions-tool-results"),
    "openai-responses": ("code-requests/responses-function-call",
                         "code-requests/responses-tool-output"),
    "google-generative-ai": ("code-requests/google-parts",
                             "code-requests/google-function-response"),
    "azure-openai-responses": ("code-requests/azure-responses-input",
                               "code-requests/responses-function-call",
                               "code-requests/responses-tool-output"),
    "openai-codex-responses": ("code-requests/codex-developer-items",
                               "code-requests/responses-function-call",
                               "code-requests/responses-tool-output"),
    "mistral-conversations": ("code-requests/mistral-tool-call-ids",),
    "bedrock-converse-stream": ("code-requests/bedrock-cache-points",),
    "google-vertex": ("code-requests/vertex-google-parts", "code-requests/google-parts",
                      "code-requests/google-function-response"),
    "pi-messages": ("code-requests/pi-messages-context",),
}
REASONING_CLAUSES = {
    "anthropic-messages": "code-requests/anthropic-thinking-param",
    "openai-responses": "code-requests/responses-reasoning-param",
    "google-generative-ai": "code-requests/google-thinking-config",
}
VARIANT_FEATURES: dict[str, tuple[str, ...]] = {
    "text": ("role-assistant",),
    "text-signature": ("block-text-signature",),
    "thinking-signed": ("block-thinking", "block-thinking-signature"),
    "thinking-unsigned": ("block-thinking",),
    "thinking-redacted": ("block-thinking", "block-thinking-redacted"),
    "thinking-empty-signature": ("block-thinking", "block-thinking-signature"),
    "tool-call": ("block-tool-call",),
    "tool-call-thought-signature": ("block-tool-call", "block-tool-call-thought-signature"),
    "tool-call-no-arguments": ("block-tool-call",),
    "tool-call-partial-json": ("block-tool-call", "block-tool-call-partial-json"),
    "tool-result-image": ("role-tool-result", "block-image", "request-images"),
    "tool-result-error": ("role-tool-result", "tool-result-error"),
    "tool-result-details": ("role-tool-result", "tool-result-details"),
    "image-user": ("role-user", "block-image", "request-images"),
}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


#: The API whose stored forms (signatures, ids) an API shares: the Responses APIs store
#: reasoning items and call|item ids as openai-responses does, Bedrock's Claude turns carry
#: Anthropic's signatures, Vertex's Gemini turns Google's.
FAMILY = {"azure-openai-responses": "openai-responses",
          "openai-codex-responses": "openai-responses",
          "bedrock-converse-stream": "anthropic-messages",
          "google-vertex": "google-generative-ai"}


def thinking_signature(api: str, n: int) -> str:
    """A signature as the API that wrote the turn stores it (Pi replays it verbatim)."""
    api = FAMILY.get(api, api)
    if api == "openai-responses":
        return json.dumps({"type": "reasoning", "id": f"rs_matrix{n:03d}", "summary": [],
                           "encrypted_content": _b64(f"encrypted reasoning {n}")},
                          separators=(",", ":"))
    if api == "openai-completions":
        return "reasoning_content"
    if api == "anthropic-messages":
        return "EqQBCkYIBxgCKkB" + _b64(f"anthropic thinking signature {n}")
    return _b64(f"gemini thought signature {n:04d}")


def text_signature(api: str, n: int) -> str:
    api = FAMILY.get(api, api)
    if api == "openai-responses":
        return json.dumps({"v": 1, "id": f"msg_matrix{n:03d}", "phase": "final_answer"},
                          separators=(",", ":"))
    if api == "google-generative-ai":
        return _b64(f"gemini text signature {n:04d}")
    return f"msg_matrix{n:03d}"


def tool_call_id(api: str, n: int) -> str:
    """A tool-call id of the form the API's provider gives (Mistral's are nine letters and
    digits, Bedrock's tooluse_...)."""
    return {"anthropic-messages": f"toolu_matrix{n:03d}",
            "openai-responses": f"call_matrix{n:03d}|fc_matrix{n:03d}",
            "openai-completions": f"call_matrix{n:03d}",
            "google-generative-ai": f"read_matrix{n:03d}",
            "mistral-conversations": f"mtrx{n:05d}",
            "bedrock-converse-stream": f"tooluse_matrix{n:03d}",
            "pi-messages": f"call_matrix{n:03d}",
            "azure-openai-responses": f"call_matrix{n:03d}|fc_matrix{n:03d}",
            "openai-codex-responses": f"call_matrix{n:03d}|fc_matrix{n:03d}",
            "google-vertex": f"read_matrix{n:03d}"}[api]


def _tool_call(api: str, n: int, **extra: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "toolCall", "id": tool_call_id(api, n), "name": "read",
                            "arguments": {"path": f"file-{n}.txt"}}
    call.update(extra)
    return call


def assistant_blocks(variant: str, api: str, n: int, stop: str) -> list[dict[str, Any]]:
    """The content of an assistant turn holding ``variant``, written by a model of ``api``."""
    answer = {"type": "text", "text": f"Answer {n}."}
    if variant == "text":
        return [answer]
    if variant == "text-signature":
        return [{**answer, "textSignature": text_signature(api, n)}]
    if variant == "thinking-signed":
        return [{"type": "thinking", "thinking": f"Reasoning {n}.",
                 "thinkingSignature": thinking_signature(api, n)}, answer]
    if variant == "thinking-unsigned":
        return [{"type": "thinking", "thinking": f"Reasoning {n}."}, answer]
    if variant == "thinking-redacted":
        return [{"type": "thinking", "thinking": "", "thinkingSignature":
                 thinking_signature(api, n), "redacted": True}, answer]
    if variant == "thinking-empty-signature":
        return [{"type": "thinking", "thinking": f"Reasoning {n}.", "thinkingSignature": ""},
                answer]
    if variant == "tool-call":
        return [_tool_call(api, n)]
    if variant == "tool-call-thought-signature":
        return [_tool_call(api, n, thoughtSignature=_b64(f"thought signature {n:04d}"))]
    if variant == "tool-call-no-arguments":
        empty = _tool_call(api, n, arguments={})
        absent = {key: value for key, value in _tool_call(api, n + 500).items()
                  if key != "arguments"}
        return [empty, absent]
    if variant == "tool-call-partial-json":
        if stop in NO_TOOL_RESULTS_AFTER:
            # Interrupted mid-call: the arguments parsed so far, the raw JSON cut short.
            return [_tool_call(api, n, arguments={"path": "fi"},
                               partialJson='{"path": "fi')]
        return [_tool_call(api, n, partialJson=json.dumps({"path": f"file-{n}.txt"}))]
    raise ValueError(f"not an assistant variant: {variant}")


@dataclass
class SessionWriter:
    """Appends entries with sequential ids, parents and timestamps."""

    session_id: str
    lines: list[dict[str, Any]]
    count: int = 0

    @classmethod
    def start(cls, session_id: str) -> SessionWriter:
        header = {"type": "session", "version": 3, "id": session_id,
                  "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/project"}
        return cls(session_id, [header])

    def add(self, message: dict[str, Any]) -> str:
        self.count += 1
        entry_id = f"m{self.count:07d}"
        parent = self.lines[-1].get("id") if self.count > 1 else None
        millis = 1748772000000 + self.count * 1000
        minutes, seconds = divmod(self.count, 60)
        self.lines.append({
            "type": "message", "id": entry_id, "parentId": parent,
            "timestamp": f"2025-06-01T10:{minutes:02d}:{seconds:02d}.000Z",
            "message": {**message, "timestamp": millis},
        })
        return entry_id

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)


def _assistant(model: Mapping[str, Any], content: list[dict[str, Any]],
               stop: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "api": model["api"],
                               "provider": model["provider"], "model": model["id"],
                               "usage": USAGE, "stopReason": stop}
    if stop == "error":
        message["errorMessage"] = "500 upstream error"
    return message


def _tool_result(call: Mapping[str, Any], variant: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {"role": "toolResult", "toolCallId": call["id"],
                              "toolName": call["name"],
                              "content": [{"type": "text", "text": "contents"}],
                              "isError": False}
    if variant == "tool-result-error":
        result.update(content=[{"type": "text", "text": "ENOENT: no such file"}], isError=True)
    elif variant == "tool-result-image":
        result["content"] = [{"type": "text", "text": "Screenshot:"},
                             {"type": "image", "data": PNG, "mimeType": "image/png"}]
    elif variant == "tool-result-details":
        result["details"] = {"lines": 3, "truncation": {"truncated": False, "totalLines": 3}}
    return result


def session_for(variant: str, api: str, models: Mapping[str, Mapping[str, Any]]) -> str:
    """The session of the case for ``variant`` replayed to ``api``."""
    writer = SessionWriter.start(f"sess-matrix-{variant}-{API_SHORT[api]}")
    writer.add({"role": "system", "content": "You are a coding assistant.", "toolsAdded": TOOLS})
    sources = {"same": models[api], "other": models[OTHER_API[api]]}
    if variant in USER_VARIANTS:
        writer.add({"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "data": PNG, "mimeType": "image/png"}]})
        writer.add(_assistant(sources["same"], [{"type": "text", "text": "A dot."}], "stop"))
        writer.add({"role": "user", "content": [
            {"type": "image", "data": PNG, "mimeType": "image/jpeg"}]})
        writer.add(_assistant(sources["other"], [{"type": "text", "text": "Same dot."}], "stop"))
        writer.add({"role": "user", "content": "Thanks."})
        return writer.text()
    turn = 0
    for replay in REPLAYS:
        model = sources[replay]
        for stop in STOP_REASONS:
            if variant in TOOL_RESULT_VARIANTS and stop in NO_TOOL_RESULTS_AFTER:
                continue
            turn += 1
            writer.add({"role": "user", "content": f"Turn {turn}: {replay} model, {stop}."})
            if variant in TOOL_RESULT_VARIANTS:
                content = [{"type": "text", "text": "Reading."}, _tool_call(model["api"], turn)]
            else:
                content = assistant_blocks(variant, model["api"], turn, stop)
                if stop == "toolUse" and not variant.startswith("tool-call"):
                    content.append(_tool_call(model["api"], turn))
            writer.add(_assistant(model, content, stop))
            if stop in NO_TOOL_RESULTS_AFTER:
                continue
            calls = [block for block in content if block["type"] == "toolCall"]
            for index, call in enumerate(calls):
                result_variant = variant if variant in TOOL_RESULT_VARIANTS and index == 0 else None
                writer.add(_tool_result(call, result_variant))
    writer.add({"role": "user", "content": "Carry on."})
    return writer.text()


def case_id(variant: str, api: str, reasoning: str) -> str:
    return f"{AREA}.{variant}-{API_SHORT[api]}-reasoning-{reasoning}"


def case_toml(variant: str, api: str, reasoning: str) -> str:
    where = ("a user message" if variant in USER_VARIANTS else
             "a tool result, after turns ending in stop, length and toolUse"
             if variant in TOOL_RESULT_VARIANTS else
             "assistant turns ending in each stop reason")
    other = OTHER_API[api]
    features = ["block-matrix", *VARIANT_FEATURES[variant]]
    if variant not in USER_VARIANTS:
        features += ["request-cross-model", "stop-reason-length"]
    if variant not in USER_VARIANTS + TOOL_RESULT_VARIANTS:
        features += ["stop-reason-error", "stop-reason-aborted"]
    clauses = [*VARIANT_CLAUSES[variant], *API_CLAUSES[api]]
    if variant not in USER_VARIANTS:
        clauses += ["message-types/assistant-stop-reasons", "code-requests/error-aborted-dropped",
                    "code-requests/same-model-definition"]
    request: dict[str, Any] = {}
    if reasoning == "on":
        features.append("request-reasoning")
        request["reasoning"] = REASONING_LEVEL
        if api in REASONING_CLAUSES:
            clauses.append(REASONING_CLAUSES[api])
    if api in MODEL_OVERRIDES:
        features.append("request-model-override")
        request["models"] = {api: MODEL_OVERRIDES[api]}
    return CaseMetadata(
        id=case_id(variant, api, reasoning),
        title=f"Matrix: {variant} replayed to {api}, reasoning {reasoning}",
        description=(
            f"Generated by pi-conformance corpus block-matrix. The block variant {variant} in "
            f"{where}, written first by the target model of {api} and then by the model of "
            f"{other}, sent to {api} with reasoning {reasoning}. One cell of the content-block "
            f"x provider matrix per turn (see pi-conformance corpus coverage)."),
        features=tuple(dict.fromkeys(features)),
        clauses=tuple(dict.fromkeys(clauses)),
        # entries, context, llm, prompt: every input of the stages after them, for a port
        # given its input.
        stages=("entries", "context", "llm", "prompt", f"request.{api}", f"wire.{api}"),
        source="generated (pi-conformance corpus block-matrix)",
        options={"request": request} if request else {},
    ).to_toml()


def write_matrix(corpus: Corpus, overwrite: bool = False) -> list[Path]:
    """Write every matrix case the corpus lacks (or all, with ``overwrite``); the directories."""
    written = []
    for variant in VARIANTS:
        for api in MATRIX_APIS:
            session = session_for(variant, api, corpus.models)
            for reasoning in REASONING:
                slug = case_id(variant, api, reasoning).removeprefix(f"{AREA}.")
                directory = corpus.root / "cases" / AREA / slug
                if directory.exists() and not overwrite:
                    continue
                directory.mkdir(parents=True, exist_ok=True)
                (directory / "session.jsonl").write_text(session, encoding="utf-8")
                (directory / "case.toml").write_text(case_toml(variant, api, reasoning),
                                                     encoding="utf-8")
                written.append(directory)
    return written
