"""Whole sessions: headers plus entry trees with branches, compactions, edits and labels.

The tree is built the way Pi writes one: every entry is appended at the current leaf and
becomes the new leaf; a branch moves the leaf to an earlier entry first (or to no entry, for a
new root); ``branch_summary`` entries record the leaf they came back from. References always
point at entries that exist at that moment: a compaction keeps an entry on its own path (or
itself, "retain none"), a context edit targets editable content on the active branch, a label
targets any entry. Each step is drawn independently, so Hypothesis can delete steps when it
shrinks and the session stays valid.

Also here: legacy v1 files (no ids; ``firstKeptEntryIndex``) and v2 files (``hookMessage``),
which Pi migrates on load, and serialisation to JSONL bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies import entries as E
from strategies.messages import (
    MODELS,
    assistant_messages,
    bash_execution_messages,
    custom_messages,
    system_messages,
    tool_result_messages,
    unknown_role_messages,
    user_messages,
)
from strategies.seeded import SEEDS, SeededDraw
from strategies.values import BOOLEANS, ORDINARY, Values, entry_ids

__all__ = [
    "EDITABLE_ROLES",
    "LEGACY_ENTRY_TYPES",
    "Session",
    "hook_messages",
    "legacy_sessions",
    "session_files",
    "sessions",
]

EDITABLE_ROLES = ("user", "assistant", "toolResult")
ROLES = ("user", "assistant", "toolResult", "system", "bashExecution", "custom", "unknown")
# What a file written before v3 can hold (no system messages, usage or context edits yet).
LEGACY_ENTRY_TYPES = ("message", "thinking_level_change", "model_change", "compaction",
                      "branch_summary", "custom", "custom_message", "label", "session_info")


def dumps_line(value: Any) -> str:
    """One JSONL line as ``JSON.stringify`` would write it (compact, UTF-8, no NaN)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass
class Session:
    """A session file's content: the header, then the entries in file order."""

    header: dict[str, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return int(self.header.get("version") or 1)

    @property
    def leaf_id(self) -> str | None:
        """Pi's leaf: the id of the last entry in file order, whatever its type."""
        return self.entries[-1].get("id") if self.entries else None

    def by_id(self) -> dict[str, dict[str, Any]]:
        return {entry["id"]: entry for entry in self.entries if "id" in entry}

    def path(self, leaf: str | None = None) -> list[dict[str, Any]]:
        """The active branch, root first: the parent chain from ``leaf`` (default Pi's)."""
        index = self.by_id()
        out: list[dict[str, Any]] = []
        current = index.get(leaf if leaf is not None else self.leaf_id or "")
        while current is not None and len(out) <= len(self.entries):
            out.append(current)
            current = index.get(current.get("parentId") or "")
        return out[::-1]

    def lines(self) -> list[str]:
        return [dumps_line(self.header), *map(dumps_line, self.entries)]

    def to_jsonl(self) -> bytes:
        """The file: one JSON value per line, each line ending in ``\\n``."""
        return "".join(line + "\n" for line in self.lines()).encode("utf-8")


def hook_messages(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """The pre-v3 name of a custom message: ``{"role": "hookMessage", "customType",
    "content", "display", "timestamp"}``; Pi renames the role to ``custom`` when migrating."""
    return custom_messages(values).map(lambda m: {**m, "role": "hookMessage"})


class _Tree:
    """The session under construction: ids, the current leaf, the tool calls seen."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self.leaf: str | None = None
        self.call_ids: list[str] = []

    def path(self) -> list[dict[str, Any]]:
        out, current = [], self.by_id.get(self.leaf or "")
        while current is not None:
            out.append(current)
            current = self.by_id.get(current.get("parentId") or "")
        return out[::-1]

    def add(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.leaf = entry["id"]
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "assistant":
            self.call_ids += [b["id"] for b in message["content"] if b.get("type") == "toolCall"]


def _role(entry: dict[str, Any]) -> str | None:
    if entry["type"] == "custom_message":
        return "custom"
    if entry["type"] == "message":
        return cast("str | None", entry["message"].get("role"))
    return None


def _message(draw: st.DrawFn, tree: _Tree, values: Values, roles: tuple[str, ...],
             hooks: bool) -> dict[str, Any]:
    role = draw(_weighted(roles + (("hookMessage",) if hooks else ()), ROLE_WEIGHTS))
    if role == "toolResult":
        message = draw(tool_result_messages(values))
        answer_earlier_call: bool = draw(BOOLEANS)
        if tree.call_ids and answer_earlier_call:
            message["toolCallId"] = _pick(draw, tree.call_ids)
        return message
    strategy = _BY_ROLE.get(role, unknown_role_messages)
    return draw(strategy(values))


_BY_ROLE: dict[str, Callable[..., SearchStrategy[dict[str, Any]]]] = {
    "user": user_messages, "assistant": assistant_messages, "system": system_messages,
    "bashExecution": bash_execution_messages, "custom": custom_messages,
    "hookMessage": hook_messages,
}

_SIMPLE = {
    "thinking_level_change": E.thinking_level_change_entries,
    "model_change": E.model_change_entries,
    "usage": E.usage_entries,
    "custom": E.custom_entries,
    "custom_message": E.custom_message_entries,
    "session_info": E.session_info_entries,
}


# How often each kind is drawn relative to the others: conversations are mostly messages, and
# assistant messages carry the most structure (usage, thinking, tool calls).
_VERSIONS = {None: st.none(), 2: st.just(2), 3: st.just(3)}  # one strategy each: cached
ENTRY_WEIGHTS = (("message", 8),)
ROLE_WEIGHTS = (("user", 3), ("assistant", 4), ("toolResult", 2), ("system", 2))


@cache
def _weighted(choices: tuple[str, ...],
              weights: tuple[tuple[str, int], ...]) -> SearchStrategy[str]:
    """``sampled_from`` with repeats; the first choice is still what it shrinks to."""
    weight = dict(weights)
    return st.sampled_from(tuple(c for c in choices for _ in range(weight.get(c, 1))))


def _pick(draw: st.DrawFn, choices: Any) -> Any:
    """``sampled_from`` without building a new strategy per call (the tree's choices change
    at every step): an index drawn from a cached ``integers``; shrinks to the first."""
    return choices[draw(st.integers(0, len(choices) - 1))]


def _fresh_id(draw: st.DrawFn, taken: dict[str, Any]) -> str:
    """A new unique id; a collision steps to the next hex number, which shrinks well."""
    candidate = draw(entry_ids())
    while candidate in taken:
        candidate = f"{(int(candidate, 16) + 1) % 2**32:08x}"
    return candidate


def _next_entry(draw: st.DrawFn, tree: _Tree, kind: str, values: Values,
                roles: tuple[str, ...], hooks: bool) -> dict[str, Any]:
    new_id = _fresh_id(draw, tree.by_id)
    parent = tree.leaf
    path = tree.path()
    fields: dict[str, Any]
    if kind == "context_edit":
        editable = [e for e in path if _role(e) in (*EDITABLE_ROLES, "custom")]
        if editable:
            target = _pick(draw, editable)
            fields = {"targetId": target["id"],
                      "replacement": draw(E.replacements(values, target_role=_role(target)))}
            return E.assemble(kind, new_id, parent, draw(values.iso_timestamp), fields)
        kind = "message"
    if kind == "label":
        if tree.entries:
            fields = {"targetId": _pick(draw, list(tree.by_id))}
            if draw(BOOLEANS):
                fields["label"] = draw(values.text)
            return E.assemble(kind, new_id, parent, draw(values.iso_timestamp), fields)
        kind = "message"
    if kind == "compaction":
        rest = draw(E.compaction_rests(values))
        kept = _pick(draw, [new_id] + [e["id"] for e in path])  # own id: retain none
        fields = E.compaction_fields(rest, kept)
    elif kind == "branch_summary":
        came_from = tree.leaf or "root"
        parent = _pick(draw, [None, *tree.by_id])
        fields = {"fromId": came_from, **draw(E.branch_summary_rests(values))}
    elif kind == "message":
        fields = {"message": _message(draw, tree, values, roles, hooks)}
    else:
        entry = draw(_SIMPLE[kind](values))
        entry["id"], entry["parentId"] = new_id, parent  # keys exist: Pi's order is kept
        return entry
    return E.assemble(kind, new_id, parent, draw(values.iso_timestamp), fields)


def _values_draw(draw: st.DrawFn, seeded: bool) -> st.DrawFn:
    """Where one entry's values come from: ``draw`` itself, or one seed drawn with it."""
    return cast(st.DrawFn, SeededDraw(draw(SEEDS))) if seeded else draw


@st.composite
def _trees(draw: st.DrawFn, values: Values, min_entries: int, max_entries: int,
           entry_types: tuple[str, ...], roles: tuple[str, ...], branching: bool,
           version: int, hooks: bool, seeded: bool = False) -> Session:
    header = _values_draw(draw, seeded)(E.session_headers(values, versions=_VERSIONS[version]))
    tree = _Tree()
    count = draw(st.integers(min_entries, max_entries))
    for _ in range(count):
        # A branch is a leaf move before the append; 5 (not 0) so that it shrinks away.
        branches = branching and tree.entries and draw(st.integers(0, 5)) == 5
        if branches and not seeded:
            tree.leaf = _pick(draw, [None, *tree.by_id])
        kind = draw(_weighted(entry_types, ENTRY_WEIGHTS))
        entry_draw = _values_draw(draw, seeded)
        if branches and seeded:
            tree.leaf = _pick(entry_draw, [None, *tree.by_id])
        tree.add(_next_entry(entry_draw, tree, kind, values, roles, hooks))
    return Session(header, tree.entries)


def sessions(values: Values = ORDINARY, *, min_entries: int = 0, max_entries: int = 12,
             entry_types: tuple[str, ...] = E.ENTRY_TYPES, roles: tuple[str, ...] = ROLES,
             branching: bool = True, seeded: bool = False) -> SearchStrategy[Session]:
    """A valid v3 session tree as a :class:`Session`; Pi loads it without rewriting it.

    ``entry_types`` and ``roles`` narrow what is drawn (``"unknown"`` in ``roles`` stands for
    roles Pi does not know); the first of each is what Hypothesis shrinks towards.

    ``seeded=True`` draws the same sessions about ten times faster, for fuzzing at volume:
    Hypothesis draws only the tree's shape (how many entries, their types, where it
    branches) and one seed per entry, from which :mod:`strategies.seeded` draws the entry's
    values. Shrinking still drops entries and simplifies their types, and a seed shrinks to
    0, the simplest entry of its type; an entry's values are not shrunk one by one. Every
    strategy in ``values`` must then be one :class:`~strategies.seeded.SeededDraw` knows.
    Example (as JSONL)::

        {"type":"session","version":3,"id":"sess-1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/project"}
        {"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"...","message":{"role":"user",...}}
        {"type":"compaction","id":"0c1d2e3f","parentId":"a1b2c3d4",...,"firstKeptEntryId":"a1b2c3d4",...}
        {"type":"label","id":"9f8e7d6c","parentId":"0c1d2e3f",...,"targetId":"a1b2c3d4","label":"bm"}
    """
    return _trees(values, min_entries, max_entries, tuple(entry_types), tuple(roles),
                  branching, 3, False, seeded)


def legacy_sessions(version: int = 1, values: Values = ORDINARY, *, min_entries: int = 0,
                    max_entries: int = 10, seeded: bool = False) -> SearchStrategy[Session]:
    """A v1 or v2 file, which Pi migrates to v3 on load (and rewrites).

    v2: a tree with ids, ``hookMessage`` roles among the messages. v1: a header without
    ``version``, entries without ids in one line of history, compactions pointing back with
    ``firstKeptEntryIndex`` (the physical line index, the header being 0). Example v1 line:
    ``{"type":"compaction","timestamp":"...","summary":"S","firstKeptEntryIndex":2,
    "tokensBefore":10}``. ``seeded`` as in :func:`sessions`.
    """
    if version == 2:
        return _trees(values, min_entries, max_entries, LEGACY_ENTRY_TYPES,
                      ("user", "assistant", "toolResult", "bashExecution", "custom"),
                      True, 2, True, seeded)
    if version != 1:
        raise ValueError(f"legacy sessions are version 1 or 2, not {version!r}")
    return _v1(values, min_entries, max_entries, seeded)


_V1_KINDS = st.sampled_from(["message", "compaction", "model_change", "thinking_level_change"])
_V1_MODELS = st.sampled_from(MODELS)
_V1_LEVELS = st.sampled_from(E.THINKING_LEVELS)


@st.composite
def _v1(draw: st.DrawFn, values: Values, min_entries: int, max_entries: int,
        seeded: bool = False) -> Session:
    header = _values_draw(draw, seeded)(E.session_headers(values, versions=_VERSIONS[None]))
    entries: list[dict[str, Any]] = []
    for position in range(1, draw(st.integers(min_entries, max_entries)) + 1):
        kind = draw(_V1_KINDS)
        fill = _values_draw(draw, seeded)
        timestamp = fill(values.iso_timestamp)
        if kind == "compaction" and position > 1:
            entries.append({"type": "compaction", "timestamp": timestamp,
                            "summary": fill(values.text),
                            "firstKeptEntryIndex": fill(st.integers(1, position - 1)),
                            "tokensBefore": fill(values.tokens)})
        elif kind == "model_change":
            _, provider, model = fill(_V1_MODELS)
            entries.append({"type": "model_change", "timestamp": timestamp,
                            "provider": provider, "modelId": model})
        elif kind == "thinking_level_change":
            entries.append({"type": "thinking_level_change", "timestamp": timestamp,
                            "thinkingLevel": fill(_V1_LEVELS)})
        else:
            message = fill(_v1_messages(values))
            entries.append({"type": "message", "timestamp": timestamp, "message": message})
    return Session(header, entries)


@cache
def _v1_messages(values: Values) -> SearchStrategy[dict[str, Any]]:
    return st.one_of(user_messages(values), assistant_messages(values), hook_messages(values))


def session_files(values: Values = ORDINARY, **kwargs: Any) -> SearchStrategy[bytes]:
    """:func:`sessions` serialised: the bytes of a ``.jsonl`` file, ready to hand to Pi."""
    return sessions(values, **kwargs).map(Session.to_jsonl)  # seeded=True: see sessions

