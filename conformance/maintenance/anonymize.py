"""Anonymize a session file so that a reproducer from a private session can become public.

What a session says is replaced, what it is made of is kept. Object keys stay, and so do the
values that are vocabulary rather than content (``ENUM_KEYS``: types, roles, stop reasons, API
ids, providers, models, MIME types...). Every other string is rewritten run by run: each run
of letters and digits becomes another run of the same length and shape (case, digit or
letter, UTF-8 width), the same run always the same replacement, so ids still pair with their
parents and tool results, and paths keep their common prefixes; punctuation and whitespace
stay. Timestamps move by one offset (ISO strings and millisecond numbers alike), so their
order and spacing survive. Image data becomes synthetic bytes of the same length behind the
original's format header, so it still decodes as that format. A string holding JSON is
anonymized as JSON. The same seed gives the same output.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
import re
from typing import Any

from conformance.jsonio import jsonl_lines

ENUM_KEYS = frozenset({
    "type", "role", "stopReason", "rawStopReason", "api", "provider", "model", "modelId",
    "responseModel", "thinkingLevel", "providerThinkingLevel", "mimeType", "customType",
    "level", "reason", "status", "effort", "reasoning_effort", "display", "disposition",
    "strict", "format", "version", "toolName", "kind", "method", "content-type", "encoding",
    "media_type", "mode", "include",
})
#: Prefixes that carry meaning for providers (``call_``, ``toolu_``, ``fc_``...): kept at the
#: start of a string, before an ``_``, so an id keeps its provider's form.
ID_PREFIXES = frozenset({"call", "toolu", "fc", "rs", "msg", "resp", "chatcmpl", "ws", "srvtoolu"})
TIME_KEYS = frozenset({"timestamp"})
_ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?Z$")
_RUN = re.compile(r"[^\W_]+")
_DATA_URL = re.compile(r"^(data:[\w/+.-]+;base64,)(.*)$", re.S)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?')
#: A fixed, meaningless epoch for the earliest timestamp of the file.
EPOCH_MS = int(dt.datetime(2001, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"
_WIDE2 = "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ"
#: Bytes kept from the start of image data per format, so that it still decodes as one.
_IMAGE_HEADERS = ((b"\x89PNG\r\n\x1a\n", 33), (b"\xff\xd8\xff", 4), (b"GIF8", 13),
                  (b"RIFF", 30), (b"BM", 26))


class Anonymizer:
    """One consistent rewriting: feed it every line of one file."""

    def __init__(self, text: str, seed: str = "pi-conformance"):
        self.seed = seed
        self.runs: dict[str, str] = {}
        self.used: set[str] = set()
        self.offset_ms = self._offset(text)
        self.keys = _keys(text)

    # -- timestamps ----------------------------------------------------------------------

    def _offset(self, text: str) -> int:
        earliest: int | None = None
        for match in re.finditer(r'"timestamp"\s*:\s*("([^"]*)"|\d+)', text):
            value = match.group(2)
            ms = _iso_ms(value) if value is not None else int(match.group(1))
            if ms is not None and (earliest is None or ms < earliest):
                earliest = ms
        return 0 if earliest is None else EPOCH_MS - earliest

    def _time(self, value: str) -> str | None:
        ms = _iso_ms(value)
        if ms is None:
            return None
        match = _ISO.match(value)
        assert match is not None
        fraction = match.group(7) or ""
        moved = dt.datetime.fromtimestamp((ms + self.offset_ms) / 1000, dt.UTC)
        text = moved.strftime("%Y-%m-%dT%H:%M:%S")
        if fraction:
            digits = f"{moved.microsecond:06d}{'0' * 3}"[:len(fraction) - 1]
            text += "." + digits
        return text + "Z"

    # -- strings ---------------------------------------------------------------------------

    def run(self, original: str) -> str:
        """The replacement of one run of letters and digits (same length, same shape)."""
        if original in self.runs:
            return self.runs[original]
        for attempt in range(64):
            digest = hashlib.sha256(f"{self.seed}\0{attempt}\0{original}".encode()).digest()
            stream = digest * (len(original) // len(digest) + 1)
            made = "".join(_same_shape(ch, byte) for ch, byte in zip(original, stream,
                                                                      strict=False))
            if (made != original and made not in self.used) or attempt == 63:
                break
        self.runs[original] = made
        self.used.add(made)
        return made

    def text(self, value: str) -> str:
        """Runs rewritten; a provider prefix (``call_``) kept at the start of each part of a
        composite id (``call_x|fc_y``)."""
        return "|".join(self._part(part) for part in value.split("|"))

    def _part(self, value: str) -> str:
        prefix = ""
        head, sep, rest = value.partition("_")
        if sep and head in ID_PREFIXES:
            prefix, value = head + sep, rest
        return prefix + _RUN.sub(lambda m: self.run(m.group(0)), value)

    def string(self, value: str, key: str | None, parent: dict[str, Any] | None) -> str:
        if key in ENUM_KEYS or value == "" or value in self.keys:
            return value  # vocabulary, or a key named as a value (a schema's "required")
        if key == "name" and parent is not None and (
                parent.get("type") in ("toolCall", "function", "tool_use")
                or "parameters" in parent or "arguments" in parent):
            return value  # a tool's name: vocabulary the model was given
        moved = self._time(value)
        if moved is not None:
            return moved
        stripped = value.lstrip()
        if stripped[:1] in ("{", "[") and len(value) > 1:
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if isinstance(parsed, (dict, list)):
                return _dump_like(self.value(parsed), value, parsed)
        url = _DATA_URL.match(value)
        if url:
            return url.group(1) + self.image(url.group(2))
        if key == "data" and parent is not None and "mimeType" in parent:
            return self.image(value)
        return self.text(value)

    def image(self, data: str) -> str:
        """Synthetic image data: the original's format header, then pseudo-random bytes, as
        base64 of the same length. Data that is not base64 is rewritten as text."""
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return self.text(data)
        keep = next((size for magic, size in _IMAGE_HEADERS if raw.startswith(magic)), 0)
        filler = b""
        counter = 0
        while len(filler) < len(raw) - keep:
            filler += hashlib.sha256(f"{self.seed}\0image\0{counter}".encode()).digest()
            counter += 1
        made = base64.b64encode(raw[:keep] + filler[:len(raw) - keep]).decode()
        return made if len(made) == len(data) else self.text(data)

    # -- values and lines ------------------------------------------------------------------

    def value(self, value: Any, key: str | None = None,
              parent: dict[str, Any] | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k, value) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item, key, parent) for item in value]
        if isinstance(value, str):
            return self.string(value, key, parent)
        if key in TIME_KEYS and isinstance(value, int) and not isinstance(value, bool) \
                and value > 10**11:  # milliseconds since 1970, not a count
            return value + self.offset_ms
        return value

    def line(self, line: str) -> str:
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if not body.strip():
            return line
        try:
            parsed = json.loads(body)
        except ValueError:
            return self._raw_line(body) + ending
        return _dump_like(self.value(parsed), body, parsed) + ending

    def _raw_line(self, body: str) -> str:
        """A line that is not JSON (truncated, say): its string literals, keys kept."""
        out: list[str] = []
        last = 0
        key: str | None = None
        for match in _STRING.finditer(body):
            out.append(body[last:match.start()])
            last = match.end()
            literal, colon = match.group(1), match.group(2)
            if colon:
                key = _decode(literal)
                out.append(match.group(0))
                continue
            decoded = _decode(literal)
            if decoded is None:
                replaced = '"' + _RUN.sub(lambda m: self.run(m.group(0))
                                          if len(m.group(0)) > 1 else m.group(0),
                                          literal) + '"'
            else:
                replaced = json.dumps(self.string(decoded, key, None), ensure_ascii=False)
            out.append(replaced)
            key = None
        out.append(body[last:])
        tail = "".join(out)
        return tail


def anonymize(text: str, seed: str = "pi-conformance") -> str:
    """The anonymized session (see the module's docstring); line endings are kept."""
    anonymizer = Anonymizer(text, seed)
    return "".join(anonymizer.line(line) for line in jsonl_lines(text))


def _keys(text: str) -> frozenset[str]:
    """Every object key in the file: kept as keys, so kept where a value names one."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            found.update(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in jsonl_lines(text):
        try:
            walk(json.loads(line))
        except ValueError:
            found.update(m.group(1) for m in _STRING.finditer(line) if m.group(2))
    return frozenset(found)


def _iso_ms(value: str) -> int | None:
    match = _ISO.match(value)
    if not match:
        return None
    try:
        year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
        moment = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.UTC)
    except ValueError:
        return None
    fraction = match.group(7) or ".0"
    return int(moment.timestamp() * 1000) + int(float(fraction) * 1000)


def _same_shape(ch: str, byte: int) -> str:
    if ch in _DIGITS or (ch.isdigit() and ch.isascii()):
        return _DIGITS[byte % 10]
    if "a" <= ch <= "z":
        return _LOWER[byte % 26]
    if "A" <= ch <= "Z":
        return _UPPER[byte % 26]
    width = len(ch.encode("utf-8"))
    if width == 2:
        return _WIDE2[byte % len(_WIDE2)]
    if width == 3:
        return chr(0x4E00 + byte * 7)
    # Four bytes: a letter beyond the BMP (CJK Extension B, mathematical alphanumerics...).
    # Emoji never reach here (runs hold letters and digits only); kept, such a letter would
    # let a string of it and punctuation survive whole.
    return chr(0x20000 + byte * 7)


def _decode(literal: str) -> str | None:
    try:
        value = json.loads('"' + literal + '"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _dump_like(value: Any, original: str, parsed: Any) -> str:
    """``value`` as JSON in the original's spelling (compact or spaced, escaped or not)."""
    for ascii_only in (False, True):
        for separators in ((",", ":"), (", ", ": ")):
            if json.dumps(parsed, ensure_ascii=ascii_only, separators=separators) == original:
                return json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
