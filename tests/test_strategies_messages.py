"""Messages of every role, system messages with section and tool deltas, unknown roles."""

from hypothesis import given
from reach import reach_all

from strategies import (
    agent_messages,
    assistant_messages,
    bash_execution_messages,
    branch_summary_messages,
    compaction_summary_messages,
    custom_messages,
    stored_messages,
    system_messages,
    tool_result_messages,
    unknown_role_messages,
    user_messages,
)
from strategies.messages import KNOWN_ROLES


def _timestamp_is_ms(message):
    assert isinstance(message["timestamp"], int | float)
    assert not isinstance(message["timestamp"], bool)


@given(user_messages())
def test_user_messages(message):
    assert message["role"] == "user"
    assert isinstance(message["content"], str | list)
    _timestamp_is_ms(message)


@given(assistant_messages())
def test_assistant_messages_are_finished_and_carry_usage(message):
    assert message["role"] == "assistant"
    assert message["stopReason"] in ("stop", "length", "toolUse", "error", "aborted")
    assert {"api", "provider", "model", "usage"} <= message.keys()
    assert message["usage"].get("reasoning", 0) <= message["usage"]["output"]
    _timestamp_is_ms(message)


@given(tool_result_messages())
def test_tool_results(message):
    assert message["role"] == "toolResult" and isinstance(message["isError"], bool)
    assert message["toolCallId"] and message["toolName"]


@given(system_messages())
def test_system_messages_patch_sections_and_tools(message):
    assert message["role"] == "system"
    for name, value in message.get("sections", {}).items():
        assert isinstance(name, str) and (value is None or isinstance(value, str))
    added = [tool["name"] for tool in message.get("toolsAdded", [])]
    assert len(added) == len(set(added))
    assert all(set(ref) == {"name"} for ref in message.get("toolsRemoved", []))


def test_system_messages_reach_null_removals_integer_like_names_and_tool_removals():
    reach_all(system_messages(), {
        "a removed section": lambda m: None in m.get("sections", {}).values(),
        "an integer-like section name": lambda m: any(k.isdigit() for k in m.get("sections", {})),
        "tools added and removed": lambda m: m.get("toolsAdded") and m.get("toolsRemoved"),
    })


@given(bash_execution_messages(), custom_messages())
def test_coding_agent_roles(bash, custom):
    assert bash["role"] == "bashExecution" and isinstance(bash["cancelled"], bool)
    assert bash["exitCode"] is None or isinstance(bash["exitCode"], int)
    assert custom["role"] == "custom" and isinstance(custom["display"], bool)


@given(branch_summary_messages(), compaction_summary_messages())
def test_derived_summary_roles(branch, compaction):
    assert branch["role"] == "branchSummary" and "fromId" in branch
    assert compaction["role"] == "compactionSummary" and "tokensBefore" in compaction


@given(unknown_role_messages())
def test_unknown_roles_are_not_any_role_pi_knows(message):
    assert message["role"] not in KNOWN_ROLES and message["role"] != "hookMessage"


@given(stored_messages())
def test_stored_messages_never_hold_the_derived_summary_roles(message):
    assert message["role"] not in ("branchSummary", "compactionSummary")


def test_agent_messages_reach_every_role():
    reach_all(agent_messages(), {
        **{role: (lambda m, role=role: m["role"] == role) for role in KNOWN_ROLES},
        "an unknown role": lambda m: m["role"] not in KNOWN_ROLES,
    })
