"""Session entries of every type Pi 1.6.0 writes, in Pi's own key order.

Entry envelope: ``type``, ``id`` (8 lowercase hex), ``parentId`` (``None`` for a root),
``timestamp`` (an ISO string, unlike the millisecond ``message.timestamp``). ``custom`` and
``custom_message`` entries put their payload before the envelope, as Pi does. Each strategy
takes ``ids`` and ``parent_ids`` so that :mod:`strategies.sessions` can wire them into a tree;
on their own they draw free ids (a dangling parent is valid: it makes a root).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies.content import text_blocks, user_content, with_optional
from strategies.messages import MODELS, stored_messages, system_messages
from strategies.usage import usages
from strategies.values import BOOLEANS, ORDINARY, Values, entry_ids

__all__ = [
    "ENTRY_TYPES",
    "THINKING_LEVELS",
    "branch_summary_entries",
    "compaction_entries",
    "context_edit_entries",
    "custom_entries",
    "custom_message_entries",
    "label_entries",
    "message_entries",
    "model_change_entries",
    "replacements",
    "session_entries",
    "session_headers",
    "session_info_entries",
    "thinking_level_change_entries",
    "usage_entries",
]

ENTRY_TYPES = ("message", "thinking_level_change", "model_change", "usage", "compaction",
               "branch_summary", "custom", "custom_message", "context_edit", "label",
               "session_info")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
_PARENTS = st.none() | entry_ids()


PAYLOAD_FIRST = ("custom", "custom_message")


def assemble(kind: str, id_: str, parent_id: str | None, timestamp: str,
             fields: dict[str, Any]) -> dict[str, Any]:
    """An entry in Pi's key order: the envelope first, or last for custom entry types."""
    envelope = {"id": id_, "parentId": parent_id, "timestamp": timestamp}
    if kind in PAYLOAD_FIRST:
        return {"type": kind, **fields, **envelope}
    return {"type": kind, **envelope, **fields}


@st.composite
def _envelope(draw: st.DrawFn, kind: str, body: SearchStrategy[dict[str, Any]], values: Values,
              ids: SearchStrategy[str] | None,
              parent_ids: SearchStrategy[str | None] | None) -> dict[str, Any]:
    id_ = draw(ids if ids is not None else entry_ids())
    parent = draw(parent_ids if parent_ids is not None else _PARENTS)
    return assemble(kind, id_, parent, draw(values.iso_timestamp), draw(body))


def _entry(kind: str, body: SearchStrategy[dict[str, Any]], values: Values,
           ids: SearchStrategy[str] | None, parent_ids: SearchStrategy[str | None] | None,
           ) -> SearchStrategy[dict[str, Any]]:
    return _envelope(kind, body, values, ids, parent_ids)


@cache
def message_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                    parent_ids: SearchStrategy[str | None] | None = None,
                    messages: SearchStrategy[dict[str, Any]] | None = None,
                    ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "message", "id", "parentId", "timestamp", "message"}``.

    Example: ``{"type": "message", "id": "a1b2c3d4", "parentId": None, "timestamp":
    "2024-12-03T14:00:01.000Z", "message": {"role": "user", "content": "Hello",
    "timestamp": 1733234401000}}``.
    """
    body = (messages if messages is not None else stored_messages(values)).map(
        lambda message: {"message": message})
    return _entry("message", body, values, ids, parent_ids)


@cache
def thinking_level_change_entries(values: Values = ORDINARY, *,
                                  ids: SearchStrategy[str] | None = None,
                                  parent_ids: SearchStrategy[str | None] | None = None,
                                  ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "thinking_level_change", ..., "thinkingLevel"}``. Example level: ``"high"``."""
    body = st.sampled_from(THINKING_LEVELS).map(lambda level: {"thinkingLevel": level})
    return _entry("thinking_level_change", body, values, ids, parent_ids)


@cache
def model_change_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                         parent_ids: SearchStrategy[str | None] | None = None,
                         ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "model_change", ..., "provider", "modelId"}``.

    Example: ``{..., "provider": "anthropic", "modelId": "claude-sonnet-4-5"}``.
    """
    body = st.sampled_from(MODELS).map(lambda m: {"provider": m[1], "modelId": m[2]})
    return _entry("model_change", body, values, ids, parent_ids)


@cache
def usage_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                  parent_ids: SearchStrategy[str | None] | None = None,
                  ) -> SearchStrategy[dict[str, Any]]:
    """Model work outside assistant messages: ``{"type": "usage", ..., "kind", "provider",
    "model", "usage", "note"?}``. Example: ``{..., "kind": "cache_warm", "provider":
    "anthropic", "model": "claude-sonnet-4-5", "usage": {...}}``.
    """
    body = st.builds(
        lambda kind, provider, model, usage: {"kind": kind, "provider": provider,
                                              "model": model, "usage": usage},
        st.sampled_from(["cache_warm"]) | values.name, values.name, values.name, usages(values),
    )
    return _entry("usage", with_optional(body, "note", values.text), values, ids, parent_ids)


@cache
def compaction_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                       parent_ids: SearchStrategy[str | None] | None = None,
                       first_kept_ids: SearchStrategy[str] | None = None,
                       ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "compaction", ..., "summary", "firstKeptEntryId", "tokensBefore",
    "details"?, "usage"?, "fromHook"?, "systemMessage"?}``.

    ``first_kept_ids`` says which entries may be kept; the session strategies pass ids on the
    path before the compaction, or the compaction's own id ("retain none"). Example:
    ``{..., "summary": "so far", "firstKeptEntryId": "a1b2c3d4", "tokensBefore": 12000}``.
    """
    body = st.builds(compaction_fields, compaction_rests(values),
                     first_kept_ids if first_kept_ids is not None else entry_ids())
    return _entry("compaction", body, values, ids, parent_ids)


@cache
def compaction_rests(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """A compaction entry's fields after the envelope, except ``firstKeptEntryId``, which
    :func:`compaction_fields` puts in its place."""
    return _compaction_rest(values)


@st.composite
def _compaction_rest(draw: st.DrawFn, values: Values) -> dict[str, Any]:
    fields: dict[str, Any] = {"summary": draw(values.text), "tokensBefore": draw(values.tokens)}
    if draw(BOOLEANS):
        fields["details"] = draw(values.json)
    if draw(BOOLEANS):
        fields["usage"] = draw(usages(values))
    if draw(BOOLEANS):
        fields["fromHook"] = draw(BOOLEANS)
    if draw(BOOLEANS):
        fields["systemMessage"] = draw(system_messages(values))
    return fields


def compaction_fields(rest: dict[str, Any], first_kept: str) -> dict[str, Any]:
    """Pi's order: summary, firstKeptEntryId, tokensBefore, then the optional fields."""
    return {"summary": rest["summary"], "firstKeptEntryId": first_kept, **rest}


@cache
def branch_summary_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                           parent_ids: SearchStrategy[str | None] | None = None,
                           from_ids: SearchStrategy[str] | None = None,
                           ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "branch_summary", ..., "fromId", "summary", "details"?, "usage"?,
    "fromHook"?}``; ``fromId`` is the leaf the branch came back from, or ``"root"``.

    Example: ``{..., "fromId": "c3d4e5f6", "summary": "tried X, failed"}``.
    """
    body = st.builds(lambda from_id, rest: {"fromId": from_id, **rest},
                     from_ids if from_ids is not None else entry_ids() | st.just("root"),
                     branch_summary_rests(values))
    return _entry("branch_summary", body, values, ids, parent_ids)


@cache
def branch_summary_rests(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """A branch_summary entry's fields after ``fromId``."""
    return _branch_summary_rest(values)


@st.composite
def _branch_summary_rest(draw: st.DrawFn, values: Values) -> dict[str, Any]:
    fields: dict[str, Any] = {"summary": draw(values.text)}
    if draw(BOOLEANS):
        fields["details"] = draw(values.json)
    if draw(BOOLEANS):
        fields["usage"] = draw(usages(values))
    if draw(BOOLEANS):
        fields["fromHook"] = draw(BOOLEANS)
    return fields


@cache
def custom_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                   parent_ids: SearchStrategy[str | None] | None = None,
                   ) -> SearchStrategy[dict[str, Any]]:
    """An extension's private state, never part of the model context:
    ``{"type": "custom", "customType", "data"?, "id", "parentId", "timestamp"}``.

    Example: ``{"type": "custom", "customType": "todo", "data": {"items": []}, "id": ...}``.
    """
    body = with_optional(values.name.map(lambda kind: {"customType": kind}), "data",
                         values.json)
    return _entry("custom", body, values, ids, parent_ids)


@cache
def custom_message_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                           parent_ids: SearchStrategy[str | None] | None = None,
                           ) -> SearchStrategy[dict[str, Any]]:
    """An extension's context message: ``{"type": "custom_message", "customType", "content",
    "display", "details"?, "id", "parentId", "timestamp"}``.

    Example: ``{"type": "custom_message", "customType": "note", "content": "remember x",
    "display": False, "id": ...}``.
    """
    body = st.builds(lambda kind, content, display: {"customType": kind, "content": content,
                                                      "display": display},
                     values.name, user_content(values), st.booleans())
    return _entry("custom_message", with_optional(body, "details", values.json), values, ids,
                  parent_ids)


@cache
def replacements(values: Values = ORDINARY, *,
                 target_role: str | None = None) -> SearchStrategy[dict[str, Any] | None]:
    """A ``context_edit`` replacement as Pi stores it: ``None`` (hide the entry) or
    ``{"content": ...}``. For an ``assistant``/``toolResult`` target Pi stores text blocks;
    for ``user``/``custom`` a string or blocks. Example: ``{"content": "redacted"}``.
    """
    blocks = st.lists(text_blocks(values), max_size=2)
    if target_role in ("assistant", "toolResult"):
        content: SearchStrategy[Any] = blocks
    else:
        content = values.text | blocks
    return st.none() | content.map(lambda c: {"content": c})


@cache
def context_edit_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                         parent_ids: SearchStrategy[str | None] | None = None,
                         target_ids: SearchStrategy[str] | None = None,
                         target_role: str | None = None,
                         ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "context_edit", ..., "targetId", "replacement"}``; see :func:`replacements`.

    Example: ``{..., "targetId": "a1b2c3d4", "replacement": None}``.
    """
    body = st.builds(lambda target, replacement: {"targetId": target,
                                                  "replacement": replacement},
                     target_ids if target_ids is not None else entry_ids(),
                     replacements(values, target_role=target_role))
    return _entry("context_edit", body, values, ids, parent_ids)


@cache
def label_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                  parent_ids: SearchStrategy[str | None] | None = None,
                  target_ids: SearchStrategy[str] | None = None,
                  ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "label", ..., "targetId", "label"?}``; no label (or ``""``) clears it.

    Example: ``{..., "targetId": "a1b2c3d4", "label": "bookmark"}``.
    """
    body = with_optional((target_ids if target_ids is not None else entry_ids()).map(
        lambda target: {"targetId": target}), "label", values.text)
    return _entry("label", body, values, ids, parent_ids)


@cache
def session_info_entries(values: Values = ORDINARY, *, ids: SearchStrategy[str] | None = None,
                         parent_ids: SearchStrategy[str | None] | None = None,
                         ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "session_info", ..., "name"?}``: the session's display name, one line.

    Example: ``{..., "name": "Refactor the parser"}``.
    """
    name = values.text.map(lambda text: " ".join(text.replace("\r", "\n").split("\n")).strip())
    body: SearchStrategy[dict[str, Any]] = st.one_of(st.just({}),
                                                     name.map(lambda n: {"name": n}))
    return _entry("session_info", body, values, ids, parent_ids)


@cache
def session_entries(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """Any one entry of any type, with free ids: for testing code that handles one entry."""
    return st.one_of(
        message_entries(values), thinking_level_change_entries(values),
        model_change_entries(values), usage_entries(values), compaction_entries(values),
        branch_summary_entries(values), custom_entries(values), custom_message_entries(values),
        context_edit_entries(values), label_entries(values), session_info_entries(values))


@cache
def session_headers(values: Values = ORDINARY, *,
                    versions: SearchStrategy[int | None] | None = None,
                    ) -> SearchStrategy[dict[str, Any]]:
    """``{"type": "session", "version"?, "id", "timestamp", "cwd", "parentSession"?}``.

    ``versions`` defaults to 3; ``None`` drawn means no ``version`` key (a v1 file). Example:
    ``{"type": "session", "version": 3, "id": "0193...", "timestamp": "2024-...Z",
    "cwd": "/project"}``.
    """
    return _header(values, versions if versions is not None else st.just(3),
                   st.sampled_from(["/project", "/home/user/work"]) | values.text)


_SESSION_IDS = st.just("sess-1") | st.uuids(version=4).map(str)


@st.composite
def _header(draw: st.DrawFn, values: Values, versions: SearchStrategy[int | None],
            cwds: SearchStrategy[str]) -> dict[str, Any]:
    header: dict[str, Any] = {"type": "session"}
    version = draw(versions)
    if version is not None:
        header["version"] = version
    header["id"] = draw(_SESSION_IDS)
    header["timestamp"] = draw(values.iso_timestamp)
    header["cwd"] = draw(cwds)
    if draw(BOOLEANS):
        header["parentSession"] = draw(values.text)
    return header
