"""Normalize a raw recording so that two runs of the same scenario give the same bytes.

The rules (docs/captures.md), applied in this order to every surface alike:

1. paths: the session file path, the sandbox's working directory, the sandbox itself, the
   Pi install prefix and the fake provider's port become fixed placeholders
   (``/pi-conformance/sessions/session.jsonl``, ``/pi-conformance/cwd``,
   ``/pi-conformance/sandbox``, ``/pi-conformance/pi``, ``127.0.0.1:0``), inside any string.
2. timestamps, by identity, never by value: in the session file, every ``timestamp`` inside
   line *i* (the header is line 0) becomes 2026-01-01T00:00:00Z + *i* seconds, as an ISO
   string or as Unix milliseconds like the original. Any object elsewhere (events, RPC
   answers) that equals a raw entry or a raw message of the file takes that entry's or
   message's normalized form. The pending assistant of a ``message_start`` takes the
   timestamp of the ``message_end`` that follows it; a message built from an entry's
   timestamp (a compaction summary) takes that entry's. Anything left becomes
   ``<timestamp>``.
3. ``durationMs`` becomes 0 everywhere.
4. generated ids: the session id becomes ``00000000-0000-7000-8000-000000000000`` and the
   entry ids, in file order, ``00000001``, ``00000002``, ...; every string equal to one of
   them is replaced anywhere (``parentId``, ``firstKeptEntryId``, ``prompt_cache_key``...).
5. ``message_update.usage`` is dropped: it is whatever the adapter's usage object held when
   the event was serialized, which depends on how the network split the stream.
6. the assistant of a ``message_start`` is a live object Pi keeps filling while the event
   waits to be written (Pi's json.md documents ``content: []``; recorded runs also showed a
   first thinking block, the usage and the ``responseId``): only the fields that do not
   change while streaming are kept, ``role, api, provider, model, stopReason, timestamp``.
7. parallel tool calls finish in any order: a run of consecutive ``tool_execution_end``
   events is put in the order of their ``tool_execution_start`` events.

Scripted values (tool call ids, response ids, signatures) are deterministic already.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

BASE = datetime(2026, 1, 1, tzinfo=UTC)
SESSION_ID = "00000000-0000-7000-8000-000000000000"
PLACEHOLDER_TIMESTAMP = "<timestamp>"
STABLE_AT_START = ("role", "api", "provider", "model", "stopReason", "timestamp")
PATHS = {
    "session": "/pi-conformance/sessions/session.jsonl",
    "work": "/pi-conformance/cwd",
    "sandbox": "/pi-conformance/sandbox",
    "prefix": "/pi-conformance/pi",
}


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _map_strings(value: Any, fn: Any) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    return value


def _iso_ms(text: str) -> int | None:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(parsed.timestamp() * 1000) if parsed.tzinfo else None


def _instant(index: int) -> datetime:
    return BASE + timedelta(seconds=index)


def _stamp(original: Any, index: int) -> Any:
    instant = _instant(index)
    if isinstance(original, str):
        return instant.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return int(instant.timestamp() * 1000)


def _restamp(value: Any, index: int) -> Any:
    """Every ``timestamp`` inside ``value`` set to line ``index``'s instant."""
    if isinstance(value, list):
        return [_restamp(v, index) for v in value]
    if isinstance(value, dict):
        return {k: (_stamp(v, index) if k == "timestamp" and isinstance(v, (str, int, float))
                    else _restamp(v, index)) for k, v in value.items()}
    return value


class Normalizer:
    """Built from one raw recording; ``__call__`` normalizes any part of it."""

    def __init__(self, *, session_path: str, work: str, sandbox: str, prefix: str, port: int,
                 session_lines: list[Any]):
        # Most specific first: the install link and the workdir live inside the sandbox.
        self.replacements = [
            (session_path, PATHS["session"]), (work, PATHS["work"]),
            (prefix, PATHS["prefix"]), (sandbox, PATHS["sandbox"]),
            (f"127.0.0.1:{port}", "127.0.0.1:0"),
        ]
        lines = [self.paths(line) for line in session_lines]
        self.lookup: dict[str, Any] = {}
        self.derived_ms: dict[int, int] = {}
        self.session = []
        for index, line in enumerate(lines):
            normalized = _restamp(line, index)
            self.session.append(normalized)
            if not isinstance(line, dict):
                continue
            self.lookup[canon(line)] = normalized
            if isinstance(line.get("message"), dict):
                self.lookup[canon(line["message"])] = normalized["message"]
            if line.get("type") in ("compaction", "branch_summary", "custom_message") and \
                    isinstance(line.get("timestamp"), str):
                raw_ms = _iso_ms(line["timestamp"])
                if raw_ms is not None:
                    self.derived_ms[raw_ms] = _stamp(0, index)
        self.ids: dict[str, str] = {}
        for index, line in enumerate(lines):
            if isinstance(line, dict) and isinstance(line.get("id"), str):
                self.ids[line["id"]] = SESSION_ID if index == 0 else f"{index:08x}"

    def paths(self, value: Any) -> Any:
        def fix(text: str) -> str:
            for old, new in self.replacements:
                if old:
                    text = text.replace(old, new)
            return text
        return _map_strings(value, fix)

    def _timestamps(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._timestamps(v) for v in value]
        if not isinstance(value, dict):
            return value
        known = self.lookup.get(canon(value))
        if known is not None:
            return copy.deepcopy(known)
        out = {k: self._timestamps(v) for k, v in value.items()}
        if "timestamp" in out and out["timestamp"] == value.get("timestamp"):
            raw = value["timestamp"]
            if isinstance(raw, int) and raw in self.derived_ms:
                out["timestamp"] = self.derived_ms[raw]
            elif isinstance(raw, (str, int, float)):
                out["timestamp"] = PLACEHOLDER_TIMESTAMP
        return out

    def _finish(self, value: Any) -> Any:
        """Durations to 0 and generated ids replaced."""
        if isinstance(value, list):
            return [self._finish(v) for v in value]
        if isinstance(value, dict):
            return {k: (0 if k == "durationMs" and isinstance(v, (int, float))
                        else self._finish(v)) for k, v in value.items()}
        if isinstance(value, str):
            return self.ids.get(value, value)
        return value

    def __call__(self, value: Any) -> Any:
        return self._finish(self._timestamps(self.paths(value)))

    def session_lines(self) -> list[Any]:
        return [self._finish(line) for line in self.session]

    def events(self, records: list[Any]) -> list[Any]:
        """The event stream: pending assistants paired with their end, updates without usage."""
        records = [self.paths(r) for r in records]
        out = []
        for position, record in enumerate(records):
            event = self(record)
            if record.get("type") == "message_start" and \
                    isinstance(event.get("message"), dict) and \
                    event["message"].get("timestamp") == PLACEHOLDER_TIMESTAMP:
                end = next((r for r in records[position + 1:]
                            if r.get("type") == "message_end"), None)
                if end is not None and \
                        end.get("message", {}).get("timestamp") == record["message"].get(
                            "timestamp"):
                    event["message"]["timestamp"] = self(end)["message"]["timestamp"]
            if event.get("type") == "message_update":
                event.pop("usage", None)
            message = event.get("message")
            if event.get("type") == "message_start" and isinstance(message, dict) and \
                    message.get("role") == "assistant":
                event["message"] = {k: message[k] for k in STABLE_AT_START if k in message}
            out.append(event)
        return _tool_ends_in_call_order(out)


def _tool_ends_in_call_order(events: list[Any]) -> list[Any]:
    started = [e.get("toolCallId") for e in events if e.get("type") == "tool_execution_start"]
    rank = {call: i for i, call in enumerate(started)}
    out: list[Any] = []
    run: list[Any] = []
    for event in [*events, None]:
        if event is not None and event.get("type") == "tool_execution_end":
            run.append(event)
            continue
        out += sorted(run, key=lambda e: rank.get(e.get("toolCallId"), len(rank)))
        run = []
        if event is not None:
            out.append(event)
    return out
