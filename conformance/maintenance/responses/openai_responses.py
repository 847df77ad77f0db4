"""The Responses family (openai-responses, azure-openai-responses, openai-codex-responses):
a spec as Responses API events, one ``event:``/``data:`` pair each, numbered.

Fields as OpenAI documents them and pi-ai's shared Responses parser reads them: one output
item per block (reasoning with summary parts, raw reasoning text or only encrypted content;
message with output_text or refusal; function_call with streamed arguments, several
interleaved by output_index); response.completed / response.incomplete carrying status,
incomplete_details and usage; an ``error`` event mid-stream.
"""

from __future__ import annotations

from typing import Any

from conformance.maintenance.responses import framing
from conformance.maintenance.responses.capability import ALL_ENDINGS, of
from conformance.maintenance.responses.openai_completions import OVERLOAD, error_body
from conformance.maintenance.responses.spec import Block, Ending, Kind, ResponseSpec, model_of

CAPABILITY = of({Kind.TEXT, Kind.THINKING, Kind.REASONING_SUMMARY, Kind.ENCRYPTED_REASONING,
                 Kind.TOOL_CALL}, ALL_ENDINGS, {"cache_read", "cache_write", "reasoning"},
                tool_use_from_content=True)
CREATED = 1767225600


class _Events:
    def __init__(self) -> None:
        self.frames = framing.Frames()

    def __call__(self, kind: str, **data: Any) -> None:
        self.frames.add(framing.sse(
            {"type": kind, "sequence_number": len(self.frames.chunks), **data}, event=kind),
            delta=kind.endswith(".delta"))


def encode(spec: ResponseSpec, model: str) -> framing.Encoded | None:
    if not CAPABILITY.accepts(spec):
        return None
    if spec.error is not None:
        status = spec.error.status or OVERLOAD
        extra = (("retry-after", "0"),) if status == OVERLOAD else ()
        return framing.error(spec.error, status, error_body(status, spec.error.message), extra)
    ev = _Events()
    name = model_of(spec, model)

    def response(status: str, output: list[Any], **more: Any) -> dict[str, Any]:
        return {"id": spec.response_id, "object": "response", "created_at": CREATED,
                "status": status, "model": name, "output": output, **more}

    ev("response.created", response=response("in_progress", []))
    ev("response.in_progress", response=response("in_progress", []))
    done: list[Any] = []
    for group in framing.groups(spec.blocks, spec.interleave):
        index, block = group[0], spec.blocks[group[0]]
        if block.kind is Kind.TOOL_CALL:
            done += _function_calls(ev, spec.item_prefix, spec.blocks, group)
            continue
        item_id = f"{'rs' if block.reasoning else 'msg'}_{spec.item_prefix}_{index}"
        done.append(_reasoning(ev, item_id, index, block) if block.reasoning
                    else _message(ev, item_id, index, block))
    if spec.ending is Ending.CUT:
        return ev.frames.encoded()
    if spec.ending is Ending.ERROR_EVENT:
        ev("error", code="server_error", message=spec.message, param=None)
        return ev.frames.encoded()
    more: dict[str, Any] = {}
    if spec.usage is not None:
        u = spec.usage
        details: dict[str, int] = {"cached_tokens": u.cache_read}
        if u.cache_write:
            details["cache_write_tokens"] = u.cache_write
        more["usage"] = {"input_tokens": u.input + u.cache_read + u.cache_write,
                         "input_tokens_details": details, "output_tokens": u.output,
                         "output_tokens_details": {"reasoning_tokens": u.reasoning},
                         "total_tokens": u.input + u.cache_read + u.cache_write + u.output}
    else:
        more["usage"] = None
    if spec.ending in (Ending.LENGTH, Ending.REFUSAL):
        reason = "max_output_tokens" if spec.ending is Ending.LENGTH else "content_filter"
        ev("response.incomplete", response=response(
            "incomplete", done, incomplete_details={"reason": reason}, **more))
    else:
        ev("response.completed", response=response("completed", done, **more))
    return ev.frames.encoded()


def _reasoning(ev: _Events, item_id: str, index: int, block: Block) -> dict[str, Any]:
    """Keys in the order the service sends them: pi-ai keeps the item's JSON as the block's
    signature."""
    ev("response.output_item.added", output_index=index,
       item={"type": "reasoning", "id": item_id, "summary": []})
    item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": []}
    where = {"item_id": item_id, "output_index": index}
    if block.kind is Kind.REASONING_SUMMARY:
        part = {"type": "summary_text", "text": block.text}
        ev("response.reasoning_summary_part.added", **where, summary_index=0,
           part={"type": "summary_text", "text": ""})
        for piece in block.deltas:
            ev("response.reasoning_summary_text.delta", **where, summary_index=0, delta=piece)
        ev("response.reasoning_summary_text.done", **where, summary_index=0, text=block.text)
        ev("response.reasoning_summary_part.done", **where, summary_index=0, part=part)
        item["summary"] = [part]
    elif block.kind is Kind.THINKING:
        for piece in block.deltas:
            ev("response.reasoning_text.delta", **where, content_index=0, delta=piece)
        ev("response.reasoning_text.done", **where, content_index=0, text=block.text)
        item["content"] = [{"type": "reasoning_text", "text": block.text}]
    if block.kind is not Kind.THINKING:
        item["encrypted_content"] = block.signature
    ev("response.output_item.done", output_index=index, item=item)
    return item


def _message(ev: _Events, item_id: str, index: int, block: Block) -> dict[str, Any]:
    ev("response.output_item.added", output_index=index, item={
        "type": "message", "id": item_id, "role": "assistant", "status": "in_progress",
        "content": []})
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    ev("response.content_part.added", **where,
       part={"type": "output_text", "text": "", "annotations": []})
    for piece in block.deltas:
        ev("response.output_text.delta", **where, delta=piece)
    ev("response.output_text.done", **where, text=block.text)
    part = {"type": "output_text", "text": block.text, "annotations": []}
    ev("response.content_part.done", **where, part=part)
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [part]}
    ev("response.output_item.done", output_index=index, item=item)
    return item


def _function_calls(ev: _Events, prefix: str, blocks: tuple[Block, ...],
                    group: tuple[int, ...]) -> list[dict[str, Any]]:
    """Each call's item added, its argument deltas, the call done (a group's calls all
    added, their deltas alternating, all done)."""
    items = []
    for step, index, piece in framing.call_steps(blocks, group):
        block = blocks[index]
        if step == "start":
            ev("response.output_item.added", output_index=index, item={
                "type": "function_call", "id": f"fc_{prefix}_{index}",
                "call_id": block.call_id, "name": block.name, "arguments": "",
                "status": "in_progress"})
            continue
        if step == "delta":
            ev("response.function_call_arguments.delta", item_id=f"fc_{prefix}_{index}",
               output_index=index, delta=piece)
            continue
        arguments = block.text or "{}"
        ev("response.function_call_arguments.done", item_id=f"fc_{prefix}_{index}",
           output_index=index, arguments=arguments)
        item = {"type": "function_call", "id": f"fc_{prefix}_{index}",
                "call_id": block.call_id, "name": block.name, "arguments": arguments,
                "status": "completed"}
        ev("response.output_item.done", output_index=index, item=item)
        items.append(item)
    return items
