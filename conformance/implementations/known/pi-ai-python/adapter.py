"""pi-ai-python (PyPI), the Python port of pi-ai, behind pi-conformance protocol v1.

Runs inside the adapter's own virtualenv, so it imports only the standard library and
pi-ai-python. pi-ai-python is a port of pi-ai alone: it has no session manager and no
``convertToLlm`` (those live in pi-coding-agent, which it does not port). So it claims the
stages that follow them *given their input* (hello ``capabilities.inputs``, docs/protocol.md),
and the response stages plain (below): the runner sends
the golden ``llm`` messages of each case in the run request's ``inputs``, and pi-ai-python
answers what it really implements:

* ``prompt``: ``get_current_system_message`` / ``get_current_system_prompt``;
* ``request.<api>``: the payload its ``stream_simple`` hands to ``on_payload``, for each of
  the ten APIs pi-ai knows (pi-ai-python has a module for every one);
* ``wire.<api>``: the HTTP request ``stream_simple`` sends, caught by the transport of the
  ``http_client`` it is given (pi-ai-python's own option), which answers 400. Not for
  Bedrock: pi-ai-python sends Bedrock's request with boto3 (an optional extra, not
  installed), which never goes through that client.
* ``response.<api>``: what ``stream_simple`` makes of the case's HTTP response (the run
  request's ``responses``): the same ``http_client``'s transport answers with its status,
  headers and body, the body yielded in exactly the given chunks, each read apart; every
  event pushed on the returned stream is serialised as it is pushed (so ``partial`` is the
  message then), with the final message. Not for Bedrock, for the same reason.

The response stages are claimed *without* input (docs/adapters.md, a stream-parser port): a
provider's answer does not depend on the conversation it answers (pi-ai's parsers read only
the model, the options and the bytes), and a response case declares its response stages
alone. The call still needs a conversation to send: the ``llm`` messages when the run request
carries them (the case asks a stage fed by them too), else ``MINIMAL_CONTEXT``, one user
message. Not an empty one: Google's SDK refuses empty ``contents`` before sending, so the
response would never be read.

Credentials are fakes of the form each API reads, as the reference harness gives (Codex's
account token is a JWT); Codex is asked for its SSE transport, since its default opens a
WebSocket, which no http_client catches.

Nothing here computes an answer: messages are decoded with pi-ai-python's own
``serialization`` module and its outputs encoded back with it.

Usage: python adapter.py
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import sys
from importlib.metadata import version
from typing import Any

import httpx
from pi_ai import get_current_system_message, get_current_system_prompt, normalize_context
from pi_ai.event_stream import AssistantMessageEventStream
from pi_ai.serialization import message_from_dict, model_from_dict, to_json_value

PROTOCOL = 1
API_MODULES = {
    "anthropic-messages": "pi_ai.api.anthropic_messages",
    "openai-completions": "pi_ai.api.openai_completions",
    "openai-responses": "pi_ai.api.openai_responses",
    "google-generative-ai": "pi_ai.api.google_generative_ai",
    "azure-openai-responses": "pi_ai.api.azure_openai_responses",
    "openai-codex-responses": "pi_ai.api.openai_codex_responses",
    "mistral-conversations": "pi_ai.api.mistral_conversations",
    "bedrock-converse-stream": "pi_ai.api.bedrock_converse_stream",
    "google-vertex": "pi_ai.api.google_vertex",
    "pi-messages": "pi_ai.api.pi_messages",
}
#: APIs whose request goes out through boto3, not the http_client this adapter catches.
NO_WIRE = frozenset({"bedrock-converse-stream"})
#: The stages fed the golden ``llm`` messages (hello ``capabilities.inputs``).
FED = ["prompt", *(f"request.{api}" for api in API_MODULES),
       *(f"wire.{api}" for api in API_MODULES if api not in NO_WIRE)]
RESPONSES = [f"response.{api}" for api in API_MODULES if api not in NO_WIRE]
STAGES = [*FED, *RESPONSES]
#: The conversation a response stage's call sends when no ``llm`` input is given.
MINIMAL_CONTEXT = [{"role": "user", "content": "hi", "timestamp": 0}]
#: The headers a wire golden keeps (docs/stages.md, WIRE_HEADERS in the reference harness).
WIRE_HEADERS = frozenset({
    "anthropic-beta", "anthropic-dangerous-direct-browser-access", "anthropic-version",
    "content-encoding", "content-type", "copilot-vision-request", "http-referer", "openai-beta",
    "originator", "session-id", "x-affinity", "x-app", "x-billing-invoke-origin",
    "x-client-request-id", "x-opencode-client", "x-opencode-session",
    "x-openrouter-categories", "x-openrouter-title", "x-session-affinity", "x-session-id",
})


def _fake_jwt(payload: dict[str, Any]) -> str:
    """A JWT of the usual form (header, payload, signature), signed by nobody."""
    def part(value: Any) -> str:
        raw = value if isinstance(value, bytes) else json.dumps(value).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return ".".join((part({"alg": "RS256", "typ": "JWT"}), part(payload),
                     part(b"pi-conformance: not a signature")))


#: Codex reads the ChatGPT account id from its token (the reference harness's fake, too).
FAKE_CODEX_TOKEN = _fake_jwt({"https://api.openai.com/auth": {
    "chatgpt_account_id": "00000000-0000-4000-8000-000000000000"}})


def prompt_stage(messages: list[Any]) -> dict[str, Any]:
    system = get_current_system_message(messages)
    text = get_current_system_prompt(messages)
    if system is None:
        return {"system": None, "text": text}
    return {
        "system": {
            "content": to_json_value(system.content),
            "sections": [[name, value] for name, value in (system.sections or {}).items()],
            "tools": to_json_value(system.tools_added or []),
            "timestamp": system.timestamp,
        },
        "text": text,
    }


class Captured(Exception):
    """Raised from on_payload: the payload is all we need, nothing is sent."""


async def request_stage(api: str, messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    model_data = (options.get("models") or {}).get(api)
    if not model_data:
        raise ValueError(f"no model given for {api} (options.request.models)")
    module = importlib.import_module(API_MODULES[api])
    captured: list[Any] = []

    def on_payload(params: Any, _model: Any) -> Any:
        captured.append(json.loads(json.dumps(to_json_value(params))))
        raise Captured()

    stream_options = {**stream_options_for(api, options), "on_payload": on_payload}
    context = normalize_context({"messages": messages})
    try:
        stream = module.stream_simple(model_from_dict(model_data), context, stream_options)
        final = await stream.result()
    except Captured:
        final = None
    except Exception as exc:  # a synchronous refusal (e.g. missing auth) is a rejection
        if captured:
            return {"output": captured[0]}
        return {"rejected": {"message": f"{type(exc).__name__}: {exc}"}}
    if captured:
        return {"output": captured[0]}
    reason = getattr(final, "error_message", None) or "the adapter never built a request"
    return {"rejected": {"message": reason}}


def stream_options_for(api: str, options: dict[str, Any]) -> dict[str, Any]:
    codex = api == "openai-codex-responses"
    stream_options: dict[str, Any] = {
        "api_key": options.get("apiKey", FAKE_CODEX_TOKEN if codex else "sk-test-key"),
        "session_id": options.get("sessionId", "sess-fixed"),
        "max_retries": 0,
    }
    if codex:
        stream_options["transport"] = "sse"
    if options.get("reasoning"):
        stream_options["reasoning"] = options["reasoning"]
    return stream_options


def wire_record(request: httpx.Request) -> dict[str, Any]:
    """The request as the golden spells it: method, path and query, kept headers, body."""
    record: dict[str, Any] = {
        "method": request.method,
        "path": request.url.raw_path.decode("ascii"),
        "headers": dict(sorted((name.lower(), value) for name, value in request.headers.items()
                               if name.lower() in WIRE_HEADERS)),
    }
    text = request.content.decode("utf-8")
    try:
        record["body"] = json.loads(text) if text else None
    except ValueError:
        record["bodyText"] = text
    return record


async def wire_stage(api: str, messages: list[Any], options: dict[str, Any]) -> dict[str, Any]:
    """What pi-ai-python sends: its own ``http_client`` option gets a client whose transport
    records the request and answers 400 (nothing is retried, nothing leaves the process)."""
    model_data = (options.get("models") or {}).get(api)
    if not model_data:
        raise ValueError(f"no model given for {api} (options.request.models)")
    module = importlib.import_module(API_MODULES[api])
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(400, json={"error": {
            "type": "invalid_request_error", "message": "pi-conformance: request captured"}})

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    stream_options = {**stream_options_for(api, options), "http_client": client}
    final = None
    try:
        stream = module.stream_simple(model_from_dict(model_data),
                                      normalize_context({"messages": messages}), stream_options)
        final = await stream.result()
    except Exception as exc:  # a synchronous refusal before sending is a rejection
        if not sent:
            return {"rejected": {"message": f"{type(exc).__name__}: {exc}"}}
    finally:
        await client.aclose()
    if sent:
        return {"output": wire_record(sent[0])}
    reason = getattr(final, "error_message", None) or "the adapter never sent a request"
    return {"rejected": {"message": reason}}


class Recorder:
    """Every event pushed on one stream, serialised at that moment (as the reference harness
    records Pi's pushes): pi-ai-python's ``push`` is wrapped once, and records for the stream
    being watched only, so a stream forwarded into it is not recorded twice."""

    def __init__(self) -> None:
        self.stream: Any = None
        self.events: list[Any] = []
        original = AssistantMessageEventStream.push

        def push(stream: Any, event: Any) -> None:
            original(stream, event)
            if stream is self.stream:
                self.events.append(json.loads(json.dumps(to_json_value(event))))

        AssistantMessageEventStream.push = push


RECORDER = Recorder()


def reply_of(response: dict[str, Any]) -> tuple[int, list[tuple[str, str]], list[bytes]]:
    chunks = [base64.b64decode(chunk["base64"]) if "base64" in chunk
              else chunk["text"].encode("utf-8") for chunk in response["chunks"]]
    return response["status"], [(name, value) for name, value in response["headers"]], chunks


async def response_stage(api: str, messages: list[Any], options: dict[str, Any],
                         response: dict[str, Any]) -> dict[str, Any]:
    """What pi-ai-python makes of ``response``: its ``http_client`` gets a transport that
    answers the one request with the status, headers and the body in its chunks."""
    model_data = (options.get("models") or {}).get(api)
    if not model_data:
        raise ValueError(f"no model given for {api} (options.request.models)")
    module = importlib.import_module(API_MODULES[api])
    status, headers, chunks = reply_of(response)
    sent: list[httpx.Request] = []

    async def body() -> Any:
        for chunk in chunks:
            yield chunk
            await asyncio.sleep(0)  # a turn of the loop: each chunk is a read of its own

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(status, headers=headers, content=body())

    recorder = RECORDER
    recorder.events = []
    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    stream_options = {**stream_options_for(api, options), "http_client": client}
    try:
        stream = module.stream_simple(model_from_dict(model_data),
                                      normalize_context({"messages": messages}), stream_options)
        recorder.stream = stream
        message = await stream.result()
        result: dict[str, Any] = {"output": {
            "events": recorder.events,
            "message": json.loads(json.dumps(to_json_value(message)))}}
    except Exception as exc:  # a refusal before sending, or a stream that raised
        result = {"rejected": {"message": f"{type(exc).__name__}: {exc}"}}
    finally:
        recorder.stream = None
        await client.aclose()
    if len(sent) > 1:  # a retry would have been answered by the same body: not one response
        raise RuntimeError(f"{api}: pi-ai-python sent {len(sent)} requests for one response")
    return result


def run(request: dict[str, Any]) -> dict[str, Any]:
    wanted = request.get("stages") or STAGES
    results: dict[str, Any] = {}
    llm = (request.get("inputs") or {}).get("llm")
    if llm is None and any(stage in FED for stage in wanted):
        raise ValueError("no llm input in the run request (hello claims its stages with inputs)")
    if llm is None:  # response stages alone (module docstring)
        llm = {"output": MINIMAL_CONTEXT}
    if "output" not in llm:  # Pi rejected the session itself: so does every later stage
        reason = llm.get("rejected") or {"message": f"the llm input is {next(iter(llm))}"}
        return {stage: {"rejected": {"message": str(reason.get("message"))}}
                for stage in wanted}
    messages = [message_from_dict(m) for m in llm["output"]]
    options = (request.get("options") or {}).get("request") or {}
    responses = request.get("responses") or {}
    for stage in wanted:
        if stage == "prompt":
            try:
                results[stage] = {"output": prompt_stage(messages)}
            except Exception as exc:
                results[stage] = {"rejected": {"message": f"{type(exc).__name__}: {exc}"}}
        elif stage.startswith("request.") and stage[8:] in API_MODULES:
            results[stage] = asyncio.run(request_stage(stage[8:], messages, options))
        elif stage.startswith("wire.") and stage[5:] in API_MODULES and stage[5:] not in NO_WIRE:
            results[stage] = asyncio.run(wire_stage(stage[5:], messages, options))
        elif stage in RESPONSES:
            api = stage[9:]
            if api not in responses:
                raise ValueError(f"{stage}: the run request gives no response for {api} "
                                 "(its responses field)")
            results[stage] = asyncio.run(response_stage(api, messages, options, responses[api]))
        else:
            results[stage] = {"skipped": f"pi-ai-python does not implement {stage}"}
    return results


def hello() -> dict[str, Any]:
    return {
        "protocol": PROTOCOL,
        "implementation": {
            "name": "pi-ai-python",
            "version": version("pi-ai-python"),
            "language": "python",
            "homepage": "https://pypi.org/project/pi-ai-python/",
            "issues": "https://github.com/nivalume/pi-py/issues",
            "dependencies": {name: version(name) for name in ("anthropic", "openai",
                                                              "google-genai", "httpx")},
        },
        "capabilities": {"stages": STAGES, "inputs": FED},
    }


def main() -> None:
    out = sys.stdout
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        cmd = message.get("cmd")
        if cmd == "bye":
            break
        if cmd == "hello":
            answer: dict[str, Any] = hello()
        elif cmd == "run":
            try:
                answer = {"seq": message.get("seq"), "results": run(message)}
            except Exception as exc:
                answer = {"seq": message.get("seq"),
                          "error": {"message": f"{type(exc).__name__}: {exc}"}}
        else:
            answer = {"seq": message.get("seq"), "error": {"message": f"unknown command {cmd!r}"}}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
