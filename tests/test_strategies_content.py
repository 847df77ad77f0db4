"""Content blocks: text, thinking (redacted too), images, tool calls."""

import base64

from hypothesis import given
from reach import reach_all

from strategies import (
    assistant_content,
    image_blocks,
    text_blocks,
    thinking_blocks,
    tool_call_ids,
    tool_calls,
    tool_result_content,
    user_content,
)


@given(text_blocks())
def test_text_blocks(block):
    assert block["type"] == "text" and isinstance(block["text"], str)
    assert set(block) <= {"type", "text", "textSignature"}


@given(thinking_blocks(redacted=True))
def test_redacted_thinking_has_empty_text_and_keeps_its_payload_in_the_signature(block):
    assert block == {"type": "thinking", "thinking": "", "thinkingSignature":
                     block["thinkingSignature"], "redacted": True}
    assert block["thinkingSignature"]


@given(thinking_blocks(redacted=False))
def test_plain_thinking_is_never_marked_redacted(block):
    assert "redacted" not in block and block["type"] == "thinking"


@given(image_blocks())
def test_images_are_base64_with_a_mime_type(block):
    base64.b64decode(block["data"], validate=True)
    assert block["mimeType"].startswith("image/")


@given(tool_calls())
def test_tool_calls_have_an_id_a_name_and_object_arguments(block):
    assert block["type"] == "toolCall" and block["id"] and block["name"]
    assert isinstance(block["arguments"], dict)
    assert set(block) <= {"type", "id", "name", "arguments", "thoughtSignature", "namespace"}


@given(tool_call_ids())
def test_tool_call_ids_are_plain_or_call_pipe_item(value):
    assert value.startswith("call_") and value.count("|") <= 1


def test_tool_call_ids_reach_both_forms_and_thinking_both_kinds():
    reach_all(tool_call_ids(), {"plain": lambda v: "|" not in v,
                                "call|item": lambda v: "|" in v and v.split("|")[1]})
    reach_all(thinking_blocks(), {"redacted": lambda b: b.get("redacted") is True,
                                  "plain": lambda b: "redacted" not in b and b["thinking"]})


@given(user_content(), assistant_content(), tool_result_content())
def test_each_role_gets_only_the_blocks_it_may_hold(user, assistant, result):
    if isinstance(user, list):
        assert {b["type"] for b in user} <= {"text", "image"}
    assert {b["type"] for b in assistant} <= {"text", "thinking", "toolCall"}
    assert {b["type"] for b in result} <= {"text", "image"}
