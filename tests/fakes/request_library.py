"""A request-only adapter, written from docs/protocol.md alone: a toy provider library.

It claims the ``request.<api>`` and ``wire.<api>`` stages *given their input* (hello
``capabilities.inputs``), so every run request carries the golden ``llm`` messages and the
``prompt`` system state, and it builds each request from those and the model in
``options.request.models``. It reads no session file, keeps no Pi and starts no process.

Its conversion is deliberately small (text, images as placeholders, tool calls and results,
the system prompt): a test of the protocol's inputs, not a port of pi-ai, so it differs from
Pi on most cases. Where Pi refused the session (the ``llm`` input is ``rejected``), it refuses
every stage too, as protocol.md says.

Usage: python request_library.py [--drop-max-tokens]. With ``--drop-max-tokens`` it has a
planted bug beside its toy conversion: Anthropic request bodies lack ``max_tokens``.
"""

import json
import sys
from urllib.parse import urlsplit

DROP_MAX_TOKENS = "--drop-max-tokens" in sys.argv[1:]
APIS = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai")
STAGES = [f"{kind}.{api}" for api in APIS for kind in ("request", "wire")]
HELLO = {
    "protocol": 1,
    "implementation": {"name": "toy-request-library", "version": "0.1.0", "language": "python"},
    "capabilities": {"stages": STAGES, "inputs": STAGES},
}


def text_of(content):
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or []
                   if isinstance(block, dict) and block.get("type") == "text")


def blocks(message):
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def chat_messages(messages, system):
    out = [{"role": "system", "content": system}] if system else []
    for message in messages:
        role = message.get("role")
        if role == "user":
            out.append({"role": "user", "content": text_of(message.get("content"))})
        elif role == "assistant":
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"],
                                   "arguments": json.dumps(b.get("arguments", {}))}}
                     for b in blocks(message) if b.get("type") == "toolCall"]
            entry = {"role": "assistant", "content": text_of(message.get("content"))}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif role == "toolResult":
            out.append({"role": "tool", "tool_call_id": message.get("toolCallId"),
                        "content": text_of(message.get("content"))})
    return out


def body_for(api, model, messages, system):
    if api == "anthropic-messages":
        turns = [m for m in chat_messages(messages, "") if m["role"] in ("user", "assistant")]
        body = {"model": model["id"], "messages": turns, "max_tokens": model["maxTokens"],
                "stream": True, "system": [{"type": "text", "text": system}]}
        if DROP_MAX_TOKENS:
            del body["max_tokens"]
        return body
    if api == "openai-completions":
        return {"model": model["id"], "messages": chat_messages(messages, system),
                "stream": True, "max_completion_tokens": model["maxTokens"]}
    if api == "openai-responses":
        items = [{"role": m["role"], "content": m.get("content") or ""}
                 for m in chat_messages(messages, "") if m["role"] in ("user", "assistant")]
        return {"model": model["id"], "input": items, "instructions": system, "stream": True,
                "max_output_tokens": model["maxTokens"]}
    contents = [{"role": "model" if m["role"] == "assistant" else "user",
                 "parts": [{"text": m.get("content") or ""}]}
                for m in chat_messages(messages, "") if m["role"] in ("user", "assistant")]
    return {"contents": contents, "systemInstruction": {"parts": [{"text": system}]},
            "generationConfig": {"maxOutputTokens": model["maxTokens"]}}


def wire_for(api, model, body):
    base = urlsplit(model["baseUrl"]).path.rstrip("/")
    if api == "anthropic-messages":
        return {"method": "POST", "path": base + "/v1/messages",
                "headers": {"anthropic-version": "2023-06-01",
                            "content-type": "application/json"}, "body": body}
    if api == "google-generative-ai":
        return {"method": "POST",
                "path": f"{base}/models/{model['id']}:streamGenerateContent?alt=sse",
                "headers": {"content-type": "application/json"}, "body": body}
    endpoint = "/chat/completions" if api == "openai-completions" else "/responses"
    return {"method": "POST", "path": base + endpoint,
            "headers": {"content-type": "application/json"}, "body": body}


def run(request):
    inputs = request.get("inputs", {})
    llm, prompt = inputs.get("llm"), inputs.get("prompt", {})
    models = request["options"].get("request", {}).get("models", {})
    results = {}
    for stage in request["stages"]:
        kind, api = stage.split(".", 1)
        if llm is None or "output" not in llm:
            results[stage] = {"rejected": {"message": "Pi refused this session: no messages"}}
            continue
        system = prompt.get("output", {}).get("text") or ""
        body = body_for(api, models[api], llm["output"], system)
        results[stage] = {"output": body if kind == "request"
                          else wire_for(api, models[api], body)}
    return results


for line in sys.stdin.buffer:  # JSON lines: split on \n only
    if not line.strip():
        continue
    message = json.loads(line)
    if message["cmd"] == "hello":
        answer = HELLO
    elif message["cmd"] == "run":
        answer = {"seq": message["seq"], "results": run(message)}
    else:
        break
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
