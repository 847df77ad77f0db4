"""The response encoders: what each wire can say, the chunks as the services send them, and
Bedrock's binary frames checked by a decoder written here, apart from the encoder."""

from __future__ import annotations

import base64
import binascii
import json
import struct
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus import http_responses
from conformance.maintenance.captures.script import Block as TurnBlock
from conformance.maintenance.captures.script import Turn
from conformance.maintenance.captures.script import Usage as TurnUsage
from conformance.maintenance.responses import catalog, encoders, eventstream
from conformance.maintenance.responses.from_turn import spec_of
from conformance.maintenance.responses.spec import (
    Block,
    BodyStyle,
    Ending,
    HttpError,
    Kind,
    ResponseSpec,
    UsageShape,
)

MODEL = "model-x"
SSE_APIS = [api for api in encoders.ENCODERS if api != "bedrock-converse-stream"]
KINDS = {kind.slug: kind for kind in (*catalog.CONTENT_KINDS, *catalog.STRESS_KINDS)}


def spec(kind: str, ending: Ending = Ending.STOP, shape: UsageShape = UsageShape.FINAL,
         **more: Any) -> ResponseSpec:
    return ResponseSpec(KINDS[kind].blocks, ending, shape.usage(),
                        interleave=KINDS[kind].interleave, **more)


def sse_data(response: http_responses.HttpResponse) -> list[Any]:
    """Each chunk is one whole SSE event; its data, parsed."""
    out = []
    for chunk in response.chunks:
        text = chunk.decode()
        assert text.endswith("\n\n") and text.count("\n\n") == 1, text
        data = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
        assert len(data) == 1, text
        out.append(data[0] if data[0] == "[DONE]" else json.loads(data[0]))
    return out


def decode_frames(body: bytes) -> list[tuple[dict[str, str], bytes]]:
    """An AWS event stream decoder of its own: checks both CRCs and every length."""
    frames, at = [], 0
    while at < len(body):
        total, headers_length = struct.unpack_from(">II", body, at)
        (prelude_crc,) = struct.unpack_from(">I", body, at + 8)
        assert binascii.crc32(body[at:at + 8]) == prelude_crc, "prelude CRC"
        (message_crc,) = struct.unpack_from(">I", body, at + total - 4)
        assert binascii.crc32(body[at:at + total - 4]) == message_crc, "message CRC"
        headers, h = {}, at + 12
        while h < at + 12 + headers_length:
            name_length = body[h]
            name = body[h + 1:h + 1 + name_length].decode()
            h += 1 + name_length
            assert body[h] == 7, "string header"
            (value_length,) = struct.unpack_from(">H", body, h + 1)
            headers[name] = body[h + 3:h + 3 + value_length].decode()
            h += 3 + value_length
        assert h == at + 12 + headers_length
        frames.append((headers, body[h:at + total - 4]))
        at += total
    assert at == len(body)
    return frames


@pytest.mark.parametrize("api", list(encoders.ENCODERS))
def test_a_response_round_trips_through_its_file(tmp_path: Path, api: str) -> None:
    said = 0
    for kind in KINDS:
        for ending in catalog.STREAM_ENDINGS:
            response = encoders.encode(api, spec(kind, ending, UsageShape.CACHE_READ), MODEL)
            if response is None:
                continue
            path = tmp_path / f"{kind}-{ending.value}.json"
            path.write_text(http_responses.dumps(response))
            assert http_responses.load(path) == response
            said += 1
    assert said >= 20


@pytest.mark.parametrize("api", SSE_APIS)
def test_every_stream_is_one_event_a_chunk(api: str) -> None:
    for kind in KINDS:
        for ending in catalog.STREAM_ENDINGS:
            response = encoders.encode(api, spec(kind, ending), MODEL)
            if response is not None:
                assert response.status == 200
                assert ("content-type", "text/event-stream") in response.headers
                sse_data(response)


def test_bedrock_frames_pass_an_independent_decoder_with_their_crcs() -> None:
    response = encoders.encode("bedrock-converse-stream", ResponseSpec(
        KINDS["signed-thinking"].blocks + KINDS["stress-many-blocks"].blocks, Ending.TOOL_USE,
        UsageShape.CACHE_WRITE.usage(), interleave=True), MODEL)
    assert response is not None
    assert ("content-type", eventstream.CONTENT_TYPE) in response.headers
    frames = [decode_frames(chunk) for chunk in response.chunks]
    assert all(len(f) == 1 for f in frames), "one message a chunk"
    events = [(h[":event-type"], json.loads(p)) for ((h, p),) in frames]
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "messageStart" and kinds[-2:] == ["messageStop", "metadata"]
    assert events[-1][1]["usage"]["cacheWriteInputTokens"] == 40
    signature = [e["delta"]["reasoningContent"]["signature"] for k, e in events
                 if k == "contentBlockDelta" and "signature" in
                 e["delta"].get("reasoningContent", {})]
    assert signature == [catalog.SIGNATURE]
    # Three tool calls, their pieces alternating by contentBlockIndex.
    tool_indexes = [e["contentBlockIndex"] for k, e in events
                    if k == "contentBlockDelta" and "toolUse" in e["delta"]]
    assert tool_indexes == [3, 4, 5, 3, 4, 5]


def test_a_flipped_bit_fails_the_decoder() -> None:
    frame = eventstream.event("messageStart", b'{"role":"assistant"}')
    broken = frame[:-6] + bytes([frame[-6] ^ 1]) + frame[-5:]
    with pytest.raises(AssertionError, match="message CRC"):
        decode_frames(broken)


def test_a_bedrock_exception_mid_stream_is_an_exception_message() -> None:
    response = encoders.encode("bedrock-converse-stream", spec("text", Ending.ERROR_EVENT),
                               MODEL)
    assert response is not None
    ((headers, payload),) = decode_frames(response.chunks[-1])
    assert headers[":message-type"] == "exception"
    assert headers[":exception-type"] == "modelStreamErrorException"
    assert json.loads(payload)["message"] == "pi-conformance: scripted failure"


def test_redacted_bedrock_reasoning_is_base64_of_the_payload() -> None:
    response = encoders.encode("bedrock-converse-stream", spec("redacted-thinking"), MODEL)
    assert response is not None
    payloads = [json.loads(p) for chunk in response.chunks for _, p in decode_frames(chunk)]
    redacted = [p["delta"]["reasoningContent"]["redactedContent"] for p in payloads
                if "reasoningContent" in p.get("delta", {})]
    assert redacted == [catalog.REDACTED]
    base64.b64decode(redacted[0], validate=True)


@pytest.mark.parametrize(("api", "what", "the_spec"), [
    ("anthropic-messages", "reasoning as encrypted content", spec("encrypted-reasoning")),
    ("anthropic-messages", "no usage", spec("text", shape=UsageShape.NONE)),
    ("openai-completions", "redacted thinking", spec("redacted-thinking")),
    ("openai-responses", "no response id", spec("text", response_id="")),
    ("google-generative-ai", "arguments in pieces", spec("tool-call-split")),
    ("google-vertex", "cache writes", spec("text", shape=UsageShape.CACHE_WRITE)),
    ("mistral-conversations", "a refusal", spec("text", Ending.REFUSAL)),
    ("mistral-conversations", "reasoning tokens", spec("text", shape=UsageShape.REASONING)),
    ("bedrock-converse-stream", "another model's name",
     spec("text", response_model="other")),
    ("pi-messages", "a reasoning summary", spec("reasoning-summary")),
    ("openai-completions", "a signed tool call", ResponseSpec(
        (Block(Kind.TOOL_CALL, ("{}",), "sig", "c1", "read"),))),
])
def test_what_a_wire_cannot_say_is_not_encoded(api: str, what: str,
                                                the_spec: ResponseSpec) -> None:
    assert encoders.encode(api, the_spec, MODEL) is None, what


def test_tool_call_pieces_alternate_where_the_wire_keys_them() -> None:
    response = encoders.encode("openai-completions", spec("tool-calls-interleaved"), MODEL)
    assert response is not None
    pieces = [(c["index"], c["function"]["arguments"]) for d in sse_data(response)
              if isinstance(d, dict) and d.get("choices")
              for c in d["choices"][0]["delta"].get("tool_calls", [])
              if c["function"].get("arguments")]
    assert [i for i, _ in pieces] == [0, 1, 0, 1, 0, 1]
    assert json.loads("".join(p for i, p in pieces if i == 0)) == catalog.READ


def test_an_anthropic_refusal_carries_its_explanation() -> None:
    response = encoders.encode("anthropic-messages", spec("text", Ending.REFUSAL), MODEL)
    assert response is not None
    delta = next(d for d in sse_data(response) if d["type"] == "message_delta")["delta"]
    assert delta["stop_reason"] == "refusal"
    assert delta["stop_details"]["explanation"] == "pi-conformance: scripted failure"


@pytest.mark.parametrize("api", list(encoders.ENCODERS))
def test_a_cut_stream_is_the_whole_stream_without_its_end(api: str) -> None:
    whole = encoders.encode(api, spec("tool-call", Ending.TOOL_USE), MODEL)
    cut = encoders.encode(api, spec("tool-call", Ending.CUT), MODEL)
    if whole is None or cut is None:
        pytest.skip(f"{api} cannot say a tool call")
    assert whole.chunks[:len(cut.chunks)] == cut.chunks
    assert len(whole.chunks) > len(cut.chunks)


@pytest.mark.parametrize("api", list(encoders.ENCODERS))
@pytest.mark.parametrize("style", list(BodyStyle))
def test_http_errors_have_the_status_and_the_body_style(api: str, style: BodyStyle) -> None:
    response = encoders.encode(api, ResponseSpec(ending=Ending.HTTP_4XX, usage=None,
                                                 error=HttpError(404, style)), MODEL)
    assert response is not None and response.status == 404
    if style is BodyStyle.JSON:
        assert json.loads(response.body)
    elif style is BodyStyle.TEXT:
        assert response.body == b"pi-conformance: scripted error\n"
    else:
        assert response.body == b""


@pytest.mark.parametrize(("api", "status"), [
    ("anthropic-messages", 529), ("openai-completions", 429), ("openai-responses", 429),
    ("google-generative-ai", 503), ("mistral-conversations", 429),
    ("bedrock-converse-stream", 429), ("pi-messages", 429)])
def test_an_overload_is_signalled_as_the_api_does(api: str, status: int) -> None:
    response = encoders.encode(api, ResponseSpec(ending=Ending.OVERLOAD, usage=None,
                                                 error=HttpError()), MODEL)
    assert response is not None and response.status == status


def test_a_captured_turn_keeps_its_ids_and_halves() -> None:
    turn = Turn(blocks=(TurnBlock("thinking", "Think it over", "c2ln"),
                        TurnBlock("tool_call", id="toolu_1", name="read",
                                  arguments={"path": "a"})),
                stop="toolUse", usage=TurnUsage(10, 5, 3, 0))
    the_spec = spec_of(turn, "anthropic-messages", 2)
    assert the_spec is not None
    assert the_spec.response_id == "msg_fake_2"
    assert the_spec.blocks[0] == Block(Kind.SIGNED_THINKING, ("Think ", "it over"), "c2ln")
    assert the_spec.blocks[1].call_id == "toolu_1"
    assert the_spec.blocks[1].arguments == {"path": "a"}


def test_a_captured_error_turn_sends_its_body_as_is() -> None:
    body = '{"error":{"message":"nope"}}'
    the_spec = spec_of(Turn(error_status=400, error_body=body), "openai-completions", 0)
    assert the_spec is not None
    response = encoders.encode("openai-completions", the_spec, MODEL)
    assert response is not None and response.status == 400 and response.body == body.encode()


def test_tool_calls_not_interleaved_are_each_sent_whole_in_turn() -> None:
    two = ResponseSpec(KINDS["tool-calls-interleaved"].blocks, Ending.TOOL_USE)
    response = encoders.encode("openai-completions", two, MODEL)
    assert response is not None
    indexes = [c["index"] for d in sse_data(response)
               if isinstance(d, dict) and d.get("choices")
               for c in d["choices"][0]["delta"].get("tool_calls", [])]
    assert indexes == [0, 0, 0, 0, 1, 1, 1, 1]


def test_the_first_delta_is_where_a_stalled_capture_stops() -> None:
    for api in encoders.ENCODERS:
        found = encoders.encoded(api, spec("thinking", Ending.STOP), MODEL) or \
            encoders.encoded(api, spec("signed-thinking", Ending.STOP), MODEL)
        assert found is not None, api
        first = found.response.chunks[found.first_delta - 1]
        assert b"Let me " in first or b"Check the " in first, api
        assert not any(b"Let me " in c or b"Check the " in c
                       for c in found.response.chunks[:found.first_delta - 1]), api
