"""A port right everywhere but in one provider API, where it has one bug a port of pi-ai could
have (``--bug API``): it replays the goldens and spoils that API's request and wire answers the
way the bug would. Each bug is a rule of Pi's that a port might miss, for an API the suite did
not cover before pi-ai's ten were all there (issue 28).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from _fake import Goldens, arguments, serve, write

Output = dict[str, Any]


def _payload(output: Output, stage: str) -> Output:
    """The parameters: the request stage's output, or the wire stage's body."""
    body: Output = output["body"] if stage.startswith("wire.") else output
    return body


def mistral_ids_not_shortened(output: Output, stage: str, llm: list[Any]) -> None:
    """Pi shortens every tool-call id to Mistral's nine alphanumerics (a hash where the id is
    not already of that form); the port sends the ids as the session has them."""
    originals = list(dict.fromkeys(
        block["id"] for message in llm if message.get("role") == "assistant"
        and isinstance(message.get("content"), list)
        for block in message["content"] if block.get("type") == "toolCall"))
    calls, result_key = (("tool_calls", "tool_call_id") if stage.startswith("wire.")
                         else ("toolCalls", "toolCallId"))
    messages = _payload(output, stage)["messages"]
    shortened = list(dict.fromkeys(
        call["id"] for message in messages for call in message.get(calls) or []))
    original_of = dict(zip(shortened, originals, strict=False))
    for message in messages:
        for call in message.get(calls) or []:
            call["id"] = original_of.get(call["id"], call["id"])
        if result_key in message:
            message[result_key] = original_of.get(message[result_key], message[result_key])


def bedrock_cache_points_missing(output: Output, stage: str, llm: list[Any]) -> None:
    """Pi marks the system prompt and the last user turn with a cache point for Claude models;
    the port sends none."""
    payload = _payload(output, stage)
    for message in payload.get("messages", []):
        message["content"] = [block for block in message["content"] if "cachePoint" not in block]
    if "system" in payload:
        payload["system"] = [block for block in payload["system"] if "cachePoint" not in block]


def azure_no_prompt_cache_key(output: Output, stage: str, llm: list[Any]) -> None:
    """Pi sends the session id as Azure's prompt_cache_key; the port leaves it out."""
    _payload(output, stage).pop("prompt_cache_key", None)


def codex_system_prompt_as_instructions(output: Output, stage: str, llm: list[Any]) -> None:
    """Pi sends Codex the system prompt as a leading developer item, not as ``instructions``
    (which the backend appends after the input, defeating the prompt cache); the port uses
    ``instructions``, as for other Responses APIs."""
    payload = _payload(output, stage)
    for index, item in enumerate(payload.get("input", [])):
        if item.get("role") == "developer" and isinstance(item.get("content"), str):
            payload["instructions"] = payload["input"].pop(index)["content"]
            return


def vertex_sent_to_the_gemini_path(output: Output, stage: str, llm: list[Any]) -> None:
    """Vertex serves models under /v1/publishers/google/models/; the port builds the Gemini
    API's /v1beta/models/ path (its request parameters are right)."""
    if stage.startswith("wire."):
        output["path"] = output["path"].replace("/v1/publishers/google/models/",
                                                "/v1beta/models/")


def pi_messages_no_session_id(output: Output, stage: str, llm: list[Any]) -> None:
    """Pi's own protocol carries the session id in ``options``; the port leaves it out."""
    _payload(output, stage).get("options", {}).pop("sessionId", None)


BUGS: dict[str, Callable[[Output, str, list[Any]], None]] = {
    "mistral-conversations": mistral_ids_not_shortened,
    "bedrock-converse-stream": bedrock_cache_points_missing,
    "azure-openai-responses": azure_no_prompt_cache_key,
    "openai-codex-responses": codex_system_prompt_as_instructions,
    "google-vertex": vertex_sent_to_the_gemini_path,
    "pi-messages": pi_messages_no_session_id,
}


def extra(parser: Any) -> None:
    parser.add_argument("--bug", required=True, choices=sorted(BUGS))


args = arguments(extra)
goldens = Goldens(args.corpus)
STAGES = (f"request.{args.bug}", f"wire.{args.bug}")


def answer(request: dict[str, Any]) -> None:
    reply = goldens.answer(request)
    case = request["case"]["id"]
    for stage in STAGES:
        result = reply["results"].get(stage)
        if result and "output" in result:
            llm = goldens.result(case, "llm").get("output", [])
            BUGS[args.bug](result["output"], stage, llm)
    write(reply)


serve(answer)
