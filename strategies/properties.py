"""Invariants every implementation of Pi's formats must keep, checked on stage outputs.

Each property takes the input session and/or stage outputs (the shapes the protocol's stages
use: ``entries`` = ``{"header", "entries"}``, ``branch`` = ``{"leafId", "path"}``, ``context``
= ``{"messages", "thinkingLevel", "model"}``, ``projection`` = ``{"entries": [{"sourceEntryId",
"messages"}]}``, ``llm`` = a message list, ``prompt`` = ``{"system", "text"}``, ``stats``) and
raises :class:`PropertyViolation` saying what is wrong. They come from
pi-behaviour-1.6.0.md and the seed; the test suite checks each one against the real Pi on
generated sessions, so they are facts about Pi, not wishes. Use them in your own tests::

    from strategies import properties

    @given(strategies.session_files())
    def test_my_port(data):
        outputs = my_port.run(data, stages=["entries", "branch", "projection", "stats"])
        assert properties.check(data, outputs) == []
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "PROPERTIES",
    "PropertyViolation",
    "Violation",
    "check",
    "compaction_summary_leads_the_context",
    "context_is_the_projection",
    "custom_entries_never_reach_the_context",
    "entries_survive_loading",
    "leaf_is_the_last_entry",
    "legacy_files_are_migrated",
    "llm_has_only_provider_roles",
    "message_timestamps_are_numbers",
    "parse_session",
    "prompt_sections_are_a_set",
    "response_ignores_chunk_boundaries",
    "same_json",
    "settings_follow_the_active_path",
    "stats_count_every_usage_once",
]

PROVIDER_ROLES = frozenset({"system", "user", "assistant", "toolResult"})
SILENT_ENTRY_TYPES = frozenset({"custom", "label", "model_change", "thinking_level_change",
                                "usage", "session_info", "context_edit"})
_TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")


class PropertyViolation(AssertionError):
    """An implementation broke an invariant that the real Pi keeps."""


def _fail(message: str) -> None:
    raise PropertyViolation(message)


def parse_session(data: bytes) -> tuple[dict[str, Any] | None, list[Any]]:
    """The header and the entries of a session file, read like Pi reads it (no migration):
    cut on ``\\n``, skip blank, unparsable and ``null`` lines; the first value is the header."""
    values = []
    for line in data.decode("utf-8", errors="replace").split("\n"):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if value is not None:
            values.append(value)
    if not values or not isinstance(values[0], dict) or values[0].get("type") != "session":
        return None, []
    entries = [v for v in values[1:] if not (isinstance(v, dict) and v.get("type") == "session")]
    return values[0], entries


def same_json(a: Any, b: Any) -> bool:
    """Equality of parsed JSON as JavaScript sees it: one number type (a double), object key
    order ignored, list order kept."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


#: What a stream parser takes from the clock, not from the bytes: the message's ``timestamp``
#: and ``durationMs``, in each event's ``partial`` too.
_CLOCK_KEYS = frozenset({"timestamp", "durationMs"})


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_clock(item) for key, item in value.items() if key not in _CLOCK_KEYS}
    if isinstance(value, list):
        return [_without_clock(item) for item in value]
    return value


def response_ignores_chunk_boundaries(whole: dict[str, Any], cut: dict[str, Any]) -> None:
    """A ``response.<api>`` answer (``{"events", "message"}``) does not depend on where the
    body was cut: the answer to the response in its own chunks and to the same bytes cut
    elsewhere (:func:`strategies.body_cuts`) have the same events, in order, and the same final
    message, the clock's values aside. Pi keeps it for every response of the corpus."""
    whole_events, cut_events = whole.get("events", []), cut.get("events", [])
    for index, (want, got) in enumerate(zip(whole_events, cut_events, strict=False)):
        if not same_json(_without_clock(want), _without_clock(got)):
            _fail(f"event {index} differs once the body is cut: {got!r} != {want!r}")
    if len(whole_events) != len(cut_events):
        _fail(f"{len(whole_events)} events from the whole chunks, {len(cut_events)} once cut")
    if not same_json(_without_clock(whole.get("message")), _without_clock(cut.get("message"))):
        _fail(f"the final message differs once the body is cut: {cut.get('message')!r}")


def _dicts(entries: list[Any]) -> list[dict[str, Any]]:
    return [e for e in entries if isinstance(e, dict)]


def _path(entries: dict[str, Any], branch: dict[str, Any]) -> list[dict[str, Any]]:
    all_entries = entries["entries"]
    return [all_entries[step["index"]] for step in branch["path"]]


def entries_survive_loading(session: bytes, entries: dict[str, Any]) -> None:
    """A v3 file is not migrated: the loaded header and entries are the file's values, in
    file order, every field kept (signatures, unknown roles and types, ``details``)."""
    header, expected = parse_session(session)
    if header is None or (header.get("version") or 1) < 3:
        return
    if not same_json(entries["header"], header):
        _fail(f"the header changed on load: {entries['header']!r} != {header!r}")
    if len(entries["entries"]) != len(expected):
        _fail(f"{len(expected)} entries in the file, {len(entries['entries'])} loaded")
    for index, (want, got) in enumerate(zip(expected, entries["entries"], strict=True)):
        if not same_json(want, got):
            _fail(f"entry {index} changed on load: {got!r} != {want!r}")


def legacy_files_are_migrated(session: bytes, entries: dict[str, Any]) -> None:
    """A v1/v2 file loads as v3: the header says 3, ``hookMessage`` messages became
    ``custom``; a v1 file becomes one chain (each entry's parent is the previous one) and
    its compactions lose ``firstKeptEntryIndex``."""
    header, _ = parse_session(session)
    if header is None or (header.get("version") or 1) >= 3:
        return
    if entries["header"].get("version") != 3:
        _fail(f"a v{header.get('version') or 1} file must load as version 3")
    loaded = _dicts(entries["entries"])
    for entry in loaded:
        if entry.get("type") == "message" and \
                (entry.get("message") or {}).get("role") == "hookMessage":
            _fail(f"entry {entry.get('id')}: role hookMessage must be migrated to custom")
    if (header.get("version") or 1) < 2:
        previous = None
        for entry in loaded:
            if entry.get("parentId") != previous:
                _fail(f"a v1 file must load as one chain: {entry.get('id')} has parent "
                      f"{entry.get('parentId')!r}, expected {previous!r}")
            if "firstKeptEntryIndex" in entry:
                _fail(f"entry {entry.get('id')}: firstKeptEntryIndex must be migrated")
            previous = entry.get("id")


def leaf_is_the_last_entry(entries: dict[str, Any], branch: dict[str, Any]) -> None:
    """The leaf is the last entry in file order, whatever its type (no timestamps, no
    persisted pointer), and the active path is its parent chain, root first."""
    loaded = entries["entries"]
    if not loaded:
        if branch["leafId"] is not None or branch["path"]:
            _fail("an empty session has no leaf and no path")
        return
    last = loaded[-1]
    expected = last.get("id") if isinstance(last, dict) else None
    if branch["leafId"] != expected:
        _fail(f"leaf is {branch['leafId']!r}, but the last entry is {expected!r}")
    path = _path(entries, branch)
    if path and path[-1] is not last and path[-1] != last:
        _fail("the active path does not end at the leaf")
    for parent, child in itertools.pairwise(path):
        if child.get("parentId") != parent.get("id"):
            _fail(f"path step {child.get('id')} does not follow its parent {parent.get('id')}")
    ids = {e.get("id") for e in _dicts(loaded)}
    if path and path[0].get("parentId") in ids - {None} and \
            path[0].get("parentId") != path[0].get("id"):
        _fail(f"the path starts at {path[0].get('id')}, but its parent exists")


def context_is_the_projection(projection: dict[str, Any], context: dict[str, Any]) -> None:
    """The context's messages are the projection's contributions, concatenated in order."""
    joined = [m for item in projection["entries"] for m in item["messages"]]
    if not same_json(joined, context["messages"]):
        _fail(f"context has {len(context['messages'])} messages, the projection contributes "
              f"{len(joined)} (or they differ)")


def custom_entries_never_reach_the_context(entries: dict[str, Any],
                                           projection: dict[str, Any]) -> None:
    """``custom`` entries (extension state), labels, model and thinking-level changes, usage,
    session_info and context_edit entries contribute no message to the model context."""
    kinds = {e.get("id"): e.get("type") for e in _dicts(entries["entries"])}
    for item in projection["entries"]:
        kind = kinds.get(item["sourceEntryId"])
        if kind in SILENT_ENTRY_TYPES and item["messages"]:
            _fail(f"a {kind} entry ({item['sourceEntryId']}) reached the model context")


def message_timestamps_are_numbers(context: dict[str, Any]) -> None:
    """Message timestamps are Unix milliseconds (``null`` for an unparsable entry time),
    never the entry's ISO string: the seed's two-timestamps trap."""
    for index, message in enumerate(context["messages"]):
        if not isinstance(message, dict) or "timestamp" not in message:
            continue
        stamp = message["timestamp"]
        if stamp is not None and (isinstance(stamp, bool) or not isinstance(stamp, int | float)):
            _fail(f"message {index} ({message.get('role')}) has timestamp {stamp!r}, "
                  "not milliseconds")


def _close(actual: float | None, expected: float) -> bool:
    """Equal up to summation order; a sum that overflows is JS Infinity, written as null."""
    if not math.isfinite(expected):
        return actual is None
    return actual is not None and math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9)


def stats_count_every_usage_once(entries: dict[str, Any], stats: dict[str, Any]) -> None:
    """Totals sum ``input``, ``output``, ``cacheRead``, ``cacheWrite`` and ``cost.total`` once
    per usage over every entry of every branch (assistant and tool-result messages, usage
    entries, compaction and branch-summary usage). ``reasoning`` is already inside
    ``output`` and ``cacheWrite1h`` inside ``cacheWrite``: neither is added again, and
    ``total`` is the sum of the four token counts."""
    sums = dict.fromkeys(_TOKEN_KEYS, 0.0)
    cost = 0.0
    for entry in _dicts(entries["entries"]):
        usage = None
        if entry.get("type") in ("usage", "compaction", "branch_summary"):
            usage = entry.get("usage")
        elif entry.get("type") == "message":
            message = entry.get("message") or {}
            if message.get("role") in ("assistant", "toolResult"):
                usage = message.get("usage")
        if isinstance(usage, dict):
            for key in _TOKEN_KEYS:
                sums[key] += usage.get(key) or 0
            cost += (usage.get("cost") or {}).get("total") or 0
    tokens = stats["tokens"]
    for key in _TOKEN_KEYS:
        if not _close(tokens[key], sums[key]):
            _fail(f"tokens.{key} is {tokens[key]}, the usages sum to {sums[key]:g}"
                  + (" (reasoning counted twice?)" if key == "output" else "")
                  + (" (cacheWrite1h counted twice?)" if key == "cacheWrite" else ""))
    if not _close(tokens["total"], sum(sums.values())):
        _fail(f"tokens.total {tokens['total']} is not input + output + cacheRead + cacheWrite")
    if not _close(stats["cost"], cost):
        _fail(f"cost is {stats['cost']}, the usages' cost.total sum to {cost:g}")


def settings_follow_the_active_path(entries: dict[str, Any], branch: dict[str, Any],
                                    context: dict[str, Any]) -> None:
    """Thinking level and model are the last ones set on the whole active path (compaction
    does not hide them): ``thinking_level_change``, ``model_change``, or an assistant
    message's ``provider``/``model``; ``"off"`` and ``null`` when nothing set them."""
    level: Any = "off"
    model: Any = None
    for entry in _path(entries, branch):
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "thinking_level_change":
            level = entry.get("thinkingLevel")
        elif entry.get("type") == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif entry.get("type") == "message" and \
                (entry.get("message") or {}).get("role") == "assistant":
            message = entry["message"]
            model = {"provider": message.get("provider"), "modelId": message.get("model")}
    if context["thinkingLevel"] != level:
        _fail(f"thinking level is {context['thinkingLevel']!r}, the path says {level!r}")
    if not same_json(context["model"], model):
        _fail(f"model is {context['model']!r}, the path says {model!r}")


def compaction_summary_leads_the_context(entries: dict[str, Any], branch: dict[str, Any],
                                         context: dict[str, Any]) -> None:
    """With a compaction on the active path, the context starts with the last one's
    checkpoint system message (if it has one) and its summary; nothing before it survives
    except the kept range. (Not checked when a context edit targets the compaction.)"""
    path = [e for e in _path(entries, branch) if isinstance(e, dict)]
    compactions = [e for e in path if e.get("type") == "compaction"]
    if not compactions:
        return
    last = compactions[-1]
    if any(e.get("type") == "context_edit" and e.get("targetId") == last.get("id")
           for e in _dicts(entries["entries"])):
        return
    messages = context["messages"]
    head = [] if last.get("systemMessage") is None else [last["systemMessage"]]
    if not same_json(messages[:len(head)], head):
        _fail("the context does not start with the compaction's checkpoint system message")
    summary = messages[len(head)] if len(messages) > len(head) else None
    if not isinstance(summary, dict) or summary.get("role") != "compactionSummary" or \
            summary.get("summary") != last.get("summary"):
        _fail(f"the compaction {last.get('id')}'s summary does not lead the context")


def llm_has_only_provider_roles(llm: list[Any]) -> None:
    """After ``convertToLlm`` only ``system``, ``user``, ``assistant`` and ``toolResult``
    remain: bash executions, custom messages and summaries become user messages and
    unknown roles are dropped."""
    for index, message in enumerate(llm):
        if message.get("role") not in PROVIDER_ROLES:
            _fail(f"llm message {index} has role {message.get('role')!r}")


def prompt_sections_are_a_set(prompt: dict[str, Any]) -> None:
    """The replayed system state holds each section and tool once; removed sections
    (``null``) and removed tools are gone, not kept as empty values."""
    system = prompt.get("system")
    if system is None:
        return
    names = [name for name, _ in system["sections"]]
    if len(names) != len(set(names)):
        _fail(f"a section appears twice: {names}")
    if any(value is None for _, value in system["sections"]):
        _fail("a removed (null) section is still in the replayed prompt")
    tools = [tool.get("name") for tool in system["tools"]]
    if len(tools) != len(set(tools)):
        _fail(f"a tool appears twice: {tools}")


@dataclass(frozen=True)
class Property:
    name: str
    needs: tuple[str, ...]
    check: Callable[..., None]


PROPERTIES = (
    Property("entries_survive_loading", ("session", "entries"), entries_survive_loading),
    Property("legacy_files_are_migrated", ("session", "entries"), legacy_files_are_migrated),
    Property("leaf_is_the_last_entry", ("entries", "branch"), leaf_is_the_last_entry),
    Property("context_is_the_projection", ("projection", "context"),
             context_is_the_projection),
    Property("custom_entries_never_reach_the_context", ("entries", "projection"),
             custom_entries_never_reach_the_context),
    Property("message_timestamps_are_numbers", ("context",), message_timestamps_are_numbers),
    Property("stats_count_every_usage_once", ("entries", "stats"),
             stats_count_every_usage_once),
    Property("settings_follow_the_active_path", ("entries", "branch", "context"),
             settings_follow_the_active_path),
    Property("compaction_summary_leads_the_context", ("entries", "branch", "context"),
             compaction_summary_leads_the_context),
    Property("llm_has_only_provider_roles", ("llm",), llm_has_only_provider_roles),
    Property("prompt_sections_are_a_set", ("prompt",), prompt_sections_are_a_set),
)


@dataclass(frozen=True)
class Violation:
    property: str
    message: str


def check(session: bytes, outputs: dict[str, Any]) -> list[Violation]:
    """Every property whose stages are in ``outputs`` (stage id -> output), run on them;
    returns the violations (empty when the implementation keeps them all)."""
    available = {"session": session, **outputs}
    found = []
    for prop in PROPERTIES:
        if all(need in available for need in prop.needs):
            try:
                prop.check(*(available[need] for need in prop.needs))
            except PropertyViolation as exc:
                found.append(Violation(prop.name, str(exc)))
    return found
