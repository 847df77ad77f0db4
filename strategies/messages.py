"""Messages of every role in Pi's ``AgentMessage`` union, plus unknown custom roles.

Base roles (pi-ai): ``system``, ``user``, ``assistant``, ``toolResult``. Coding-agent roles:
``bashExecution``, ``custom``, ``branchSummary``, ``compactionSummary``. Hosts may add roles by
declaration merging, so consumers must tolerate unknown ones (:func:`unknown_role_messages`).
Message timestamps are Unix milliseconds, never the entry's ISO string.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies.content import (
    assistant_content,
    text_blocks,
    tool_call_ids,
    tool_result_content,
    user_content,
)
from strategies.usage import usages
from strategies.values import BOOLEANS, ORDINARY, Values, entry_ids

__all__ = [
    "KNOWN_ROLES",
    "MODELS",
    "STOP_REASONS",
    "agent_messages",
    "assistant_messages",
    "bash_execution_messages",
    "branch_summary_messages",
    "compaction_summary_messages",
    "custom_messages",
    "stored_messages",
    "system_messages",
    "tool_result_messages",
    "tools",
    "unknown_role_messages",
    "user_messages",
]

KNOWN_ROLES = ("system", "user", "assistant", "toolResult", "bashExecution", "custom",
               "branchSummary", "compactionSummary")
STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")
# (api, provider, model): the corpus's request models first, so that same-model rules
# (thinking replay, signatures) are exercised, then a foreign one.
MODELS = (
    ("anthropic-messages", "anthropic", "claude-sonnet-4-5"),
    ("openai-responses", "openai", "gpt-5"),
    ("google-generative-ai", "google", "gemini-2.5-pro"),
    ("openai-completions", "fake", "fake-model"),
    ("openai-completions", "openrouter", "some/other-model"),
)


@cache
def user_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """``{"role": "user", "content": str | blocks, "timestamp": ms}``.

    Example: ``{"role": "user", "content": "Hello", "timestamp": 1733234401000}``.
    """
    return st.builds(lambda content, ts: {"role": "user", "content": content, "timestamp": ts},
                     user_content(values), values.ms_timestamp)


@cache
def assistant_messages(values: Values = ORDINARY, *,
                       models: tuple[tuple[str, str, str], ...] = MODELS,
                       stop_reasons: tuple[str, ...] = STOP_REASONS,
                       ) -> SearchStrategy[dict[str, Any]]:
    """A finished assistant message with consistent usage (see :mod:`strategies.usage`).

    ``pending`` is never generated: Pi does not persist streaming partials. Example:
    ``{"role": "assistant", "content": [{"type": "text", "text": "Hi"}], "api":
    "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": {...},
    "stopReason": "stop", "timestamp": 1733234402000}``.
    """
    return _assistant(values, st.sampled_from(models), st.sampled_from(stop_reasons))


@st.composite
def _assistant(draw: st.DrawFn, values: Values,
               models: SearchStrategy[tuple[str, str, str]],
               stop_reasons: SearchStrategy[str]) -> dict[str, Any]:
    api, provider, model = draw(models)
    message: dict[str, Any] = {
        "role": "assistant", "content": draw(assistant_content(values)), "api": api,
        "provider": provider, "model": model}
    if draw(BOOLEANS):
        message["responseModel"] = draw(values.name)
    if draw(BOOLEANS):
        message["responseId"] = draw(values.text)
    message["usage"] = draw(usages(values))
    message["stopReason"] = draw(stop_reasons)
    if message["stopReason"] in ("error", "aborted") and draw(BOOLEANS):
        message["errorMessage"] = draw(values.text)
    message["timestamp"] = draw(values.ms_timestamp)
    return message


@cache
def tool_result_messages(values: Values = ORDINARY, *,
                         call_ids: SearchStrategy[str] | None = None,
                         ) -> SearchStrategy[dict[str, Any]]:
    """``{"role": "toolResult", "toolCallId", "toolName", "content", "details"?, "usage"?,
    "isError", "timestamp"}``; ``usage`` stands for nested model work of the tool.

    Example: ``{"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
    "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 1733234403000}``.
    """
    return _tool_result(values, call_ids if call_ids is not None else tool_call_ids())


@st.composite
def _tool_result(draw: st.DrawFn, values: Values,
                 call_ids: SearchStrategy[str]) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "toolResult", "toolCallId": draw(call_ids), "toolName": draw(values.name),
        "content": draw(tool_result_content(values))}
    if draw(BOOLEANS):
        message["details"] = draw(values.json)
    if draw(BOOLEANS):
        message["usage"] = draw(usages(values))
    message["isError"] = draw(BOOLEANS)
    message["timestamp"] = draw(values.ms_timestamp)
    return message


@cache
def tools(values: Values = ORDINARY, *,
          names: SearchStrategy[str] | None = None) -> SearchStrategy[dict[str, Any]]:
    """A tool declaration as a system message adds it: ``{"name", "description",
    "parameters"}``. Example: ``{"name": "read", "description": "Read a file",
    "parameters": {"type": "object", "properties": {}}}``.
    """
    return st.builds(
        lambda name, description, props: {
            "name": name, "description": description,
            "parameters": {"type": "object", "properties": props}},
        names if names is not None else values.name, values.text,
        st.dictionaries(values.name, st.just({"type": "string"}), max_size=2))


@cache
def section_names() -> SearchStrategy[str]:
    """A prompt section name: a word, or integer-like (``"2"``, ``"10"``), which JS orders
    first and numerically. Example: ``'preamble'``."""
    return st.sampled_from(["preamble", "tools", "rules", "docs", "cwd", "env", "a", "b"]) \
        | st.integers(0, 12).map(str)


@cache
def system_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """A system message: content, named ``sections`` (``None`` removes one), and tool deltas
    (``toolsAdded`` / ``toolsRemoved``), replayed in order by Pi.

    Example: ``{"role": "system", "content": "", "sections": {"preamble": "You are...",
    "2": "TWO", "env": None}, "toolsAdded": [{"name": "read", ...}],
    "toolsRemoved": [{"name": "bash"}], "timestamp": 1733234400000}``.
    """
    return _system(values, values.text | st.lists(text_blocks(values), max_size=2),
                   st.dictionaries(section_names(), st.none() | values.text, max_size=4),
                   st.lists(tools(values, names=TOOL_NAMES), max_size=3,
                            unique_by=lambda t: t["name"]),
                   st.lists(TOOL_NAMES, max_size=2, unique=True))


TOOL_NAMES = st.sampled_from(["read", "bash", "edit", "write", "zed"])


@st.composite
def _system(draw: st.DrawFn, values: Values, content: SearchStrategy[Any],
            sections: SearchStrategy[Any], added: SearchStrategy[Any],
            removed: SearchStrategy[Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "system", "content": draw(content)}
    if draw(BOOLEANS):
        message["sections"] = draw(sections)
    if draw(BOOLEANS):
        message["toolsAdded"] = draw(added)
    if draw(BOOLEANS):
        message["toolsRemoved"] = [{"name": name} for name in draw(removed)]
    message["timestamp"] = draw(values.ms_timestamp)
    return message


@cache
def bash_execution_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """A direct shell command (not an LLM tool result): ``{"role": "bashExecution",
    "command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath"?,
    "excludeFromContext"?, "timestamp"}``.

    Example: ``{"role": "bashExecution", "command": "ls", "output": "a.txt", "exitCode": 0,
    "cancelled": False, "truncated": False, "timestamp": 1733234404000}``.
    """
    return _bash(values)


_EXIT_CODES = st.none() | st.integers(0, 255)


@st.composite
def _bash(draw: st.DrawFn, values: Values) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "bashExecution", "command": draw(values.text), "output": draw(values.text),
        "exitCode": draw(_EXIT_CODES),
        "cancelled": draw(BOOLEANS), "truncated": draw(BOOLEANS)}
    if draw(BOOLEANS):
        message["fullOutputPath"] = draw(values.text)
    if draw(BOOLEANS):
        message["excludeFromContext"] = draw(BOOLEANS)
    message["timestamp"] = draw(values.ms_timestamp)
    return message


@cache
def custom_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """An extension's context message: ``{"role": "custom", "customType", "content",
    "display", "details"?, "timestamp"}``; ``display: False`` is still sent to the model.

    Example: ``{"role": "custom", "customType": "note", "content": "remember x",
    "display": True, "timestamp": 1733234405000}``.
    """
    return _custom(values)


@st.composite
def _custom(draw: st.DrawFn, values: Values) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "custom", "customType": draw(values.name),
        "content": draw(user_content(values)), "display": draw(BOOLEANS)}
    if draw(BOOLEANS):
        message["details"] = draw(values.json)
    message["timestamp"] = draw(values.ms_timestamp)
    return message


@cache
def branch_summary_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """The message Pi derives from a ``branch_summary`` entry (``fromId`` may be null).

    Example: ``{"role": "branchSummary", "summary": "tried X", "fromId": "4b687de0",
    "timestamp": 1733234406000}``.
    """
    return st.builds(
        lambda summary, from_id, ts: {"role": "branchSummary", "summary": summary,
                                      "fromId": from_id, "timestamp": ts},
        values.text, st.none() | entry_ids(), values.ms_timestamp)


@cache
def compaction_summary_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """The message Pi derives from a ``compaction`` entry.

    Example: ``{"role": "compactionSummary", "summary": "so far...", "tokensBefore": 12000,
    "timestamp": 1733234407000}``.
    """
    return st.builds(
        lambda summary, tokens, ts: {"role": "compactionSummary", "summary": summary,
                                     "tokensBefore": tokens, "timestamp": ts},
        values.text, values.tokens, values.ms_timestamp)


@cache
def unknown_role_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """A message with a role Pi does not know (a host's declaration-merged role), carried
    through the context and dropped by ``convertToLlm``.

    Example: ``{"role": "weird", "content": "x", "timestamp": 1733234408000}``.
    """
    roles = values.name.filter(lambda r: r not in KNOWN_ROLES and r != "hookMessage")
    return st.builds(
        lambda role, content, ts: {"role": role, "content": content, "timestamp": ts},
        roles, user_content(values), values.ms_timestamp)


@cache
def stored_messages(values: Values = ORDINARY, *,
                    unknown_roles: bool = True) -> SearchStrategy[dict[str, Any]]:
    """A message as Pi stores it in a ``message`` entry: every role except the two summary
    roles, which Pi derives from entries instead of storing. User messages shrink first."""
    options = [user_messages(values), assistant_messages(values), tool_result_messages(values),
               system_messages(values), bash_execution_messages(values), custom_messages(values)]
    if unknown_roles:
        options.append(unknown_role_messages(values))
    return st.one_of(options)


@cache
def agent_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """Any ``AgentMessage`` of the coding agent, on any surface, unknown roles included."""
    return st.one_of(stored_messages(values), branch_summary_messages(values),
                     compaction_summary_messages(values))
