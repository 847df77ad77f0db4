"""The fake provider speaks each API's streaming protocol for a script (no Pi needed)."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from conformance.maintenance.captures.fake_provider import FakeProvider
from conformance.maintenance.captures.script import Block, Turn, Usage

TOOL = Block("tool_call", id="call_1", name="read", arguments={"path": "a.txt"})
TEXT = Block("text", text="Hello there")
THINK = Block("thinking", text="Let me think", signature="c2ln")


def post(url: str, body: Any) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json",
                                              "authorization": "Bearer k"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers["content-type"], answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read()


def frames(raw: bytes) -> list[tuple[str | None, str]]:
    """(event name, data) of every SSE frame; frames are separated by a blank line."""
    out = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        event, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        out.append((event, "\n".join(data)))
    return out


def serve(api: str, *turns: Turn) -> FakeProvider:
    return FakeProvider(api, list(turns), "fake-model")


def test_completions_stream_reassembles_to_the_script_and_ends_with_done():
    turn = Turn(blocks=(THINK, TEXT, TOOL), stop="toolUse", usage=Usage(input=7, output=3))
    with serve("openai-completions", turn) as fake:
        status, kind, raw = post(fake.base_url + "/v1/chat/completions", {"model": "m"})
    assert (status, kind) == (200, "text/event-stream")
    data = [d for _, d in frames(raw)]
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("content") or "" for d in deltas) == "Hello there"
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "Let me think"
    calls = [t for d in deltas for t in d.get("tool_calls", [])]
    assert calls[0]["id"] == "call_1" and calls[0]["function"]["name"] == "read"
    assert json.loads("".join(t["function"]["arguments"] for t in calls)) == {"path": "a.txt"}
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "tool_calls" and set(finishes[:-1]) == {None}
    assert chunks[-1]["usage"]["prompt_tokens"] == 7
    assert {c["id"] for c in chunks} == {"chatcmpl-fake-0"}


def test_anthropic_event_names_match_their_types_and_carry_signatures():
    turn = Turn(blocks=(THINK, Block("redacted_thinking", signature="opaque"), TEXT, TOOL),
                stop="toolUse")
    with serve("anthropic-messages", turn) as fake:
        _, _, raw = post(fake.base_url + "/v1/messages?beta=true", {"model": "m"})
    parsed = [(name, json.loads(d)) for name, d in frames(raw)]
    assert all(name == data["type"] for name, data in parsed)
    types = [name for name, _ in parsed]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    starts = [d["content_block"] for n, d in parsed if n == "content_block_start"]
    assert [b["type"] for b in starts] == ["thinking", "redacted_thinking", "text", "tool_use"]
    assert starts[1]["data"] == "opaque"
    deltas = [d["delta"] for n, d in parsed if n == "content_block_delta"]
    assert {"type": "signature_delta", "signature": "c2ln"} in deltas
    assert parsed[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_responses_items_are_sequenced_and_a_length_stop_is_incomplete():
    turn = Turn(blocks=(THINK, TEXT), stop="length")
    with serve("openai-responses", turn) as fake:
        _, _, raw = post(fake.base_url + "/v1/responses", {"model": "m"})
    events = [json.loads(d) for _, d in frames(raw)]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done[0] == {"type": "reasoning", "id": "rs_fake_0_0",
                       "summary": [{"type": "summary_text", "text": "Let me think"}],
                       "encrypted_content": "c2ln"}
    assert done[1]["content"][0]["text"] == "Hello there"
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}


def test_google_parts_carry_thought_signatures_and_the_last_chunk_finishes():
    turn = Turn(blocks=(THINK, TOOL), stop="toolUse")
    with serve("google-generative-ai", turn) as fake:
        _, _, raw = post(fake.base_url + "/v1beta/models/m:streamGenerateContent?alt=sse", {})
    chunks = [json.loads(d) for _, d in frames(raw)]
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert [p.get("thought") for p in parts[:2]] == [True, True]
    assert parts[1]["thoughtSignature"] == "c2ln"
    assert parts[2]["functionCall"] == {"name": "read", "args": {"path": "a.txt"}, "id": "call_1"}
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert "usageMetadata" in chunks[-1]


def test_turns_are_served_in_order_and_requests_recorded_as_received():
    with serve("openai-completions", Turn(error_status=400, error_body='{"error":"bad"}'),
               Turn(blocks=(TEXT,))) as fake:
        first = post(fake.base_url + "/v1/chat/completions", {"model": "m", "n": 1})
        second = post(fake.base_url + "/v1/chat/completions", {"model": "m", "n": 2})
        third = post(fake.base_url + "/v1/chat/completions", {"model": "m", "n": 3})
    assert first[0] == 400 and first[2] == b'{"error":"bad"}'
    assert second[0] == 200
    assert third[0] == 500 and b"no scripted turn 2" in third[2]
    assert [r["body"]["n"] for r in fake.requests] == [1, 2, 3]
    assert fake.requests[0]["path"] == "/v1/chat/completions"
    assert fake.requests[0]["headers"]["authorization"] == "Bearer k"


def test_a_stalled_turn_sends_its_first_delta_then_waits_for_the_client_to_hang_up():
    turn = Turn(blocks=(TEXT,), stall=True)
    fake = serve("openai-completions", turn).__enter__()
    try:
        sock = socket.create_connection(("127.0.0.1", fake.port), timeout=30)
        body = b'{"model":"m"}'
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
        received = b""
        while b'"content":"Hello"' not in received:
            received += sock.recv(65536)  # a 30 s socket timeout if it never comes
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):
            sock.recv(65536)  # nothing more comes (yet): the stream is held open
        assert b"[DONE]" not in received
    finally:
        # The client never hangs up: shutting down must end the held stream, not wait for
        # the client (which would be forever, so 30 s is no speed figure).
        stopping = threading.Thread(target=fake.__exit__, args=(None, None, None))
        stopping.start()
        stopping.join(timeout=30)
    assert not stopping.is_alive(), "shutting down waited for the held stream"
    sock.settimeout(30)
    rest = b""
    while chunk := sock.recv(65536):  # the server hung up: the stream ends
        rest += chunk
    assert b"[DONE]" not in rest
    sock.close()


def test_an_unknown_api_is_refused():
    with pytest.raises(ValueError, match="no wire encoder"):
        FakeProvider("bedrock-converse-stream", [])
