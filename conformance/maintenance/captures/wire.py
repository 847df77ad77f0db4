"""Per-API streaming encoders: a scripted turn as the exact SSE events each API sends.

Each encoder returns the SSE frames in order and the index after the first content delta
(where a ``stall`` turn stops sending). Only the fields Pi's adapters read are sent, shaped
as the real services document them; the fields are listed in docs/captures.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.maintenance.captures.script import Block, Turn

Frames = tuple[list[bytes], int]


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"{head}data: {body}\n\n".encode()


def _pieces(text: str) -> list[str]:
    """Split text into two deltas where possible, so streams show more than one update."""
    if len(text) < 2:
        return [text]
    half = len(text) // 2
    return [text[:half], text[half:]]


def _args(block: Block) -> str:
    return json.dumps(block.arguments, separators=(",", ":"))


class _Marker:
    """Remembers where the first delta was sent."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.first_delta: int | None = None

    def add(self, frame: bytes, delta: bool = False) -> None:
        self.frames.append(frame)
        if delta and self.first_delta is None:
            self.first_delta = len(self.frames)

    def result(self) -> Frames:
        return self.frames, self.first_delta or len(self.frames)


def openai_completions(turn: Turn, model: str, n: int) -> Frames:
    rid = turn.response_id or f"chatcmpl-fake-{n}"
    out = _Marker()

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({"id": rid, "object": "chat.completion.chunk", "created": 1767225600,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out.add(chunk({"role": "assistant", "content": ""}))
    calls = 0
    for block in turn.blocks:
        if block.type == "thinking":
            for piece in _pieces(block.text):
                out.add(chunk({"reasoning_content": piece}), delta=True)
        elif block.type == "text":
            for piece in _pieces(block.text):
                out.add(chunk({"content": piece}), delta=True)
        elif block.type == "tool_call":
            out.add(chunk({"tool_calls": [{"index": calls, "id": block.id, "type": "function",
                                           "function": {"name": block.name, "arguments": ""}}]}))
            for piece in _pieces(_args(block)):
                out.add(chunk({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]}),
                        delta=True)
            calls += 1
    finish = {"stop": "stop", "toolUse": "tool_calls", "length": "length"}[turn.stop]
    out.add(chunk({}, finish))
    u = turn.usage
    usage: dict[str, Any] = {
        "prompt_tokens": u.input + u.cache_read, "completion_tokens": u.output,
        "total_tokens": u.input + u.cache_read + u.output,
        "prompt_tokens_details": {"cached_tokens": u.cache_read},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning},
    }
    out.add(sse({"id": rid, "object": "chat.completion.chunk", "created": 1767225600,
                 "model": model, "choices": [], "usage": usage}))
    out.add(sse("[DONE]"))
    return out.result()


def anthropic_messages(turn: Turn, model: str, n: int) -> Frames:
    rid = turn.response_id or f"msg_fake_{n}"
    out = _Marker()
    u = turn.usage

    def ev(kind: str, data: dict[str, Any], delta: bool = False) -> None:
        out.add(sse({"type": kind, **data}, event=kind), delta=delta)

    ev("message_start", {"message": {
        "id": rid, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": u.input, "output_tokens": 1,
                  "cache_read_input_tokens": u.cache_read, "cache_creation_input_tokens": 0}}})
    for index, block in enumerate(turn.blocks):
        if block.type == "text":
            ev("content_block_start", {"index": index,
                                       "content_block": {"type": "text", "text": ""}})
            for piece in _pieces(block.text):
                ev("content_block_delta", {"index": index,
                                           "delta": {"type": "text_delta", "text": piece}}, True)
        elif block.type == "thinking":
            ev("content_block_start", {"index": index,
                                       "content_block": {"type": "thinking", "thinking": ""}})
            for piece in _pieces(block.text):
                ev("content_block_delta", {"index": index, "delta": {
                    "type": "thinking_delta", "thinking": piece}}, True)
            if block.signature:
                ev("content_block_delta", {"index": index, "delta": {
                    "type": "signature_delta", "signature": block.signature}})
        elif block.type == "redacted_thinking":
            ev("content_block_start", {"index": index, "content_block": {
                "type": "redacted_thinking", "data": block.signature}})
        elif block.type == "tool_call":
            ev("content_block_start", {"index": index, "content_block": {
                "type": "tool_use", "id": block.id, "name": block.name, "input": {}}})
            for piece in _pieces(_args(block)):
                ev("content_block_delta", {"index": index, "delta": {
                    "type": "input_json_delta", "partial_json": piece}}, True)
        ev("content_block_stop", {"index": index})
    stop = {"stop": "end_turn", "toolUse": "tool_use", "length": "max_tokens"}[turn.stop]
    ev("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                         "usage": {"output_tokens": u.output}})
    ev("message_stop", {})
    return out.result()


def openai_responses(turn: Turn, model: str, n: int) -> Frames:
    rid = turn.response_id or f"resp_fake_{n}"
    out = _Marker()
    seq = 0

    def ev(kind: str, data: dict[str, Any], delta: bool = False) -> None:
        nonlocal seq
        out.add(sse({"type": kind, "sequence_number": seq, **data}), delta=delta)
        seq += 1

    def response(status: str, output: list[Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"id": rid, "object": "response", "created_at": 1767225600,
                                "status": status, "model": model, "output": output}
        if status == "incomplete":
            body["incomplete_details"] = {"reason": "max_output_tokens"}
        return body

    ev("response.created", {"response": response("in_progress", [])})
    done_items: list[Any] = []
    for index, block in enumerate(turn.blocks):
        if block.type in ("thinking", "redacted_thinking"):
            item_id = f"rs_fake_{n}_{index}"
            ev("response.output_item.added", {"output_index": index, "item": {
                "type": "reasoning", "id": item_id, "summary": []}})
            summary = []
            if block.type == "thinking" and block.text:
                ev("response.reasoning_summary_part.added", {
                    "item_id": item_id, "output_index": index, "summary_index": 0,
                    "part": {"type": "summary_text", "text": ""}})
                for piece in _pieces(block.text):
                    ev("response.reasoning_summary_text.delta", {
                        "item_id": item_id, "output_index": index, "summary_index": 0,
                        "delta": piece}, True)
                ev("response.reasoning_summary_text.done", {
                    "item_id": item_id, "output_index": index, "summary_index": 0,
                    "text": block.text})
                ev("response.reasoning_summary_part.done", {
                    "item_id": item_id, "output_index": index, "summary_index": 0,
                    "part": {"type": "summary_text", "text": block.text}})
                summary = [{"type": "summary_text", "text": block.text}]
            item = {"type": "reasoning", "id": item_id, "summary": summary,
                    "encrypted_content": block.signature}
        elif block.type == "text":
            item_id = f"msg_fake_{n}_{index}"
            ev("response.output_item.added", {"output_index": index, "item": {
                "type": "message", "id": item_id, "role": "assistant", "status": "in_progress",
                "content": []}})
            ev("response.content_part.added", {
                "item_id": item_id, "output_index": index, "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []}})
            for piece in _pieces(block.text):
                ev("response.output_text.delta", {
                    "item_id": item_id, "output_index": index, "content_index": 0,
                    "delta": piece}, True)
            ev("response.output_text.done", {
                "item_id": item_id, "output_index": index, "content_index": 0,
                "text": block.text})
            part = {"type": "output_text", "text": block.text, "annotations": []}
            ev("response.content_part.done", {
                "item_id": item_id, "output_index": index, "content_index": 0, "part": part})
            item = {"type": "message", "id": item_id, "role": "assistant",
                    "status": "completed", "content": [part]}
        else:
            item_id = f"fc_fake_{n}_{index}"
            ev("response.output_item.added", {"output_index": index, "item": {
                "type": "function_call", "id": item_id, "call_id": block.id,
                "name": block.name, "arguments": "", "status": "in_progress"}})
            for piece in _pieces(_args(block)):
                ev("response.function_call_arguments.delta", {
                    "item_id": item_id, "output_index": index, "delta": piece}, True)
            ev("response.function_call_arguments.done", {
                "item_id": item_id, "output_index": index, "arguments": _args(block)})
            item = {"type": "function_call", "id": item_id, "call_id": block.id,
                    "name": block.name, "arguments": _args(block), "status": "completed"}
        ev("response.output_item.done", {"output_index": index, "item": item})
        done_items.append(item)
    u = turn.usage
    final = response("incomplete" if turn.stop == "length" else "completed", done_items)
    final["usage"] = {
        "input_tokens": u.input + u.cache_read, "output_tokens": u.output,
        "total_tokens": u.input + u.cache_read + u.output,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens_details": {"reasoning_tokens": u.reasoning},
    }
    ev("response.incomplete" if turn.stop == "length" else "response.completed",
       {"response": final})
    return out.result()


def google_generative_ai(turn: Turn, model: str, n: int) -> Frames:
    rid = turn.response_id or f"fake-{n}"
    out = _Marker()

    def chunk(parts: list[Any], finish: str | None = None, usage: bool = False) -> bytes:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        body: dict[str, Any] = {"candidates": [candidate], "modelVersion": model,
                                "responseId": rid}
        if usage:
            u = turn.usage
            body["usageMetadata"] = {
                "promptTokenCount": u.input + u.cache_read, "candidatesTokenCount": u.output,
                "totalTokenCount": u.input + u.cache_read + u.output + u.reasoning,
                "thoughtsTokenCount": u.reasoning, "cachedContentTokenCount": u.cache_read}
        return sse(body)

    for block in turn.blocks:
        if block.type == "thinking":
            pieces = _pieces(block.text)
            for i, piece in enumerate(pieces):
                part: dict[str, Any] = {"text": piece, "thought": True}
                if block.signature and i == len(pieces) - 1:
                    part["thoughtSignature"] = block.signature
                out.add(chunk([part]), delta=True)
        elif block.type == "text":
            for piece in _pieces(block.text):
                out.add(chunk([{"text": piece}]), delta=True)
        elif block.type == "tool_call":
            call = {"name": block.name, "args": block.arguments, "id": block.id}
            part = {"functionCall": call}
            if block.signature:
                part["thoughtSignature"] = block.signature
            out.add(chunk([part]), delta=True)
    finish = {"stop": "STOP", "toolUse": "STOP", "length": "MAX_TOKENS"}[turn.stop]
    out.add(chunk([], finish, usage=True))
    return out.result()


ENCODERS: dict[str, Callable[[Turn, str, int], Frames]] = {
    "openai-completions": openai_completions,
    "anthropic-messages": anthropic_messages,
    "openai-responses": openai_responses,
    "google-generative-ai": google_generative_ai,
}
