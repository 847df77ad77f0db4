"""Anonymize a session file so that a reproducer from a private session can become public.

Threat model: whoever reads the public corpus, with this code, any dictionary and every other
promoted case, must not learn what the private session said. So the replacement is keyed by
a fresh random key per anonymization (``secrets``), held in memory only and never written
(not in the case, not in its provenance): equal inputs map equal within one file, so ids
still pair with their parents and tool results, but nobody without the key can compute the
mapping again, and a dictionary run through this code tells nothing about another file.

What is kept, decided by position in Pi's schema (``session_positions``), never by a key's
name at any depth:

- structure: JSON shape, key order, the protocol's keys, booleans and nulls, line endings;
- vocabulary where Pi gives it meaning: an entry's or block's ``type``, a message's ``role``,
  ``api``/``provider``/``model``, stop reasons, thinking levels, MIME types, tool and
  custom-type names, prompt section names, unless the value has the shape of a secret
  (``secret_shapes``);
- numbers Pi counts with: usage tokens and costs (the ``stats`` stage sums them),
  ``tokensBefore``, exit codes, durations, the header's ``version``;
- time as spacing: timestamps move by one offset to 2001-01-01;
- shape: every run of letters and digits becomes a keyed run of the same length and
  character classes (``keyed_shapes``); ASCII punctuation and whitespace stay; image data
  keeps its format's header and size; a provider id keeps its prefix (``call_``).

Everything else is replaced: every string of text in any script (emoji and non-ASCII
punctuation too), the keys and values of user data (tool-call arguments, ``details``, custom
``data``, unknown fields), numbers in user data, and a string holding JSON as user data. A
line that is not JSON (cut short when Pi stopped) is closed, anonymized by position like the
others, and cut again at its length; if it cannot be closed, or is nested deeper than Python
parses, only its punctuation survives.

What still shows: lengths and character classes of words, which words repeat within the
file, relative timing, the vocabulary above. A reviewer still reads a case before it is
published.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
import secrets
from typing import Any

from conformance.jsonio import jsonl_lines
from conformance.maintenance.keyed_shapes import KeyedShapes
from conformance.maintenance.secret_shapes import secret_shape
from conformance.maintenance.session_positions import (
    ENTRY,
    ID_PREFIXES,
    SCHEMA_DATA,
    SCHEMA_KEYWORDS,
    SCHEMA_NAMED,
    SCHEMA_TEXT,
    SIGNATURE_VOCAB,
    SPECIAL_IDS,
    Field,
    Kind,
    Named,
    Obj,
)
from conformance.maintenance.truncated_json import complete

_ISO = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?Z$")
_DATA_URL = re.compile(r"^(data:[\w/+.-]+;base64,)(.*)$", re.S)
_VOCABULARY = re.compile(r"[A-Za-z0-9][\w.:/@+-]{0,99}")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$-]{0,63}")
#: A fixed, meaningless epoch for the earliest timestamp of the file.
EPOCH_MS = int(dt.datetime(2001, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
#: Bytes kept from the start of image data per format, so that it still decodes as one.
_IMAGE_HEADERS = ((b"\x89PNG\r\n\x1a\n", 33), (b"\xff\xd8\xff", 4), (b"GIF8", 13),
                  (b"RIFF", 30), (b"BM", 26))


class Anonymizer:
    """One anonymization: one key, one time offset; feed it every line of one file."""

    def __init__(self, text: str, key: bytes | None = None):
        self.shapes = KeyedShapes(key if key is not None else secrets.token_bytes(32))
        self.offset_ms: int | None = _offset(text)

    # -- lines -----------------------------------------------------------------------------

    def line(self, line: str) -> str:
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if not body.strip():
            return line
        try:
            try:
                parsed = json.loads(body)
            except ValueError:
                return self._broken_line(body) + ending
            return _dump_like(self.value(parsed, ENTRY), body, parsed) + ending
        except RecursionError:  # nested deeper than Python parses: its punctuation only
            return self.shapes.text(body) + ending

    def _broken_line(self, body: str) -> str:
        """A line that is not JSON: closed where it was cut, anonymized by position, cut
        again at its length; else its punctuation and whitespace with every run replaced."""
        closed = complete(body)
        if closed is not None:
            made = _dump_guessed(self.value(closed, ENTRY), body)
            cut = made[:len(body)]
            while cut and _parses(cut):
                cut = cut[:-1]
            if cut:
                return cut
        made = self.shapes.text(body)
        return made if not _parses(made) else "{" + made

    # -- values by position ----------------------------------------------------------------

    def value(self, value: Any, field: Field) -> Any:
        if field is Kind.DATA:
            return self.data(value)
        if field is Kind.SCHEMA:
            return self.schema(value)
        if isinstance(value, list):
            return [self.value(item, field) for item in value]
        if isinstance(value, dict):
            if field is Kind.SIGNATURE:
                return self.provider_json(value)
            if isinstance(field, Obj):
                return {(k if k in field.fields else self.shapes.text(k)):
                        self.value(v, field.fields.get(k, Kind.DATA)) for k, v in value.items()}
            if isinstance(field, Named):
                return {self.vocabulary(k): self.value(v, field.values)
                        for k, v in value.items()}
            return self.data(value)
        if isinstance(value, str):
            return self.string(value, field)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return self.number(value, field)
        return value

    def string(self, value: str, field: Field) -> str:
        if field is Kind.VOCAB:
            return self.vocabulary(value)
        if field is Kind.ID:
            return self.id(value)
        if field is Kind.ISO_TIME:
            moved = self._time(value)
            return moved if moved is not None else self.text(value)
        if field is Kind.SIGNATURE:
            return self.signature(value)
        if field is Kind.IMAGE:
            return self.image_or_text(value)
        return self.text(value)

    def number(self, value: int | float, field: Field) -> int | float:
        if field in (Kind.NUMBER, Kind.FLAG):
            return value
        if field is Kind.MS_TIME:
            if isinstance(value, int) and value > 10**11:  # milliseconds since 1970
                if self.offset_ms is None:
                    self.offset_ms = EPOCH_MS - value
                return value + self.offset_ms
            return value
        return self.shapes.number(value)

    def data(self, value: Any) -> Any:
        """User data: every key, string and number replaced."""
        if isinstance(value, dict):
            return {self.shapes.text(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(item) for item in value]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return self.shapes.number(value)
        return value

    def text(self, value: str) -> str:
        """Text: every run replaced; a string holding JSON is anonymized as user data."""
        parsed = _json_inside(value)
        if parsed is not None:
            return _dump_like(self.data(parsed), value, parsed)
        return self.shapes.text(value)

    def vocabulary(self, value: str) -> str:
        if _VOCABULARY.fullmatch(value) and secret_shape(value) is None:
            return value
        return self.text(value)

    def id(self, value: str) -> str:
        """Each part of a composite id (``call_x|fc_y``) replaced, its provider prefix kept."""
        if value in SPECIAL_IDS:
            return value
        parts = []
        for part in value.split("|"):
            head, sep, rest = part.partition("_")
            if sep and head in ID_PREFIXES:
                parts.append(head + sep + self.shapes.text(rest))
            else:
                parts.append(self.shapes.text(part))
        return "|".join(parts)

    # -- provider data, schemas, images ----------------------------------------------------

    def signature(self, value: str) -> str:
        parsed = _json_inside(value)
        if parsed is not None:
            return _dump_like(self.provider_json(parsed), value, parsed)
        return self.shapes.text(value)

    def provider_json(self, value: Any, key: str | None = None) -> Any:
        """A provider's JSON (a reasoning item): its keys and their ``type`` kept, ids
        replaced keeping their prefix, every other string replaced."""
        if isinstance(value, dict):
            return {(k if _IDENTIFIER.fullmatch(k) and secret_shape(k) is None
                     else self.shapes.text(k)): self.provider_json(v, k)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [self.provider_json(item, key) for item in value]
        if isinstance(value, str):
            if key in SIGNATURE_VOCAB:
                return self.vocabulary(value)
            if key is not None and (key == "id" or key.endswith(("_id", "Id"))):
                return self.id(value)
            return self.text(value)
        return value

    def schema(self, value: Any) -> Any:
        """A JSON Schema: keywords and ``type`` kept; property names, texts and examples
        replaced (a name the same way in ``properties``, ``required`` and arguments)."""
        if isinstance(value, list):
            return [self.schema(item) for item in value]
        if not isinstance(value, dict):
            return value if isinstance(value, bool) else self.data(value)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in SCHEMA_KEYWORDS:
                out[self.shapes.text(key)] = self.data(item)
            elif key in SCHEMA_NAMED and isinstance(item, dict):
                out[key] = {self.shapes.text(name): self.schema(sub) for name, sub in item.items()}
            elif key == "required" and isinstance(item, list):
                out[key] = [self.shapes.text(n) if isinstance(n, str) else n for n in item]
            elif key in ("type", "format"):
                out[key] = self.value(item, Kind.VOCAB)
            elif key == "$ref" and isinstance(item, str):
                out[key] = "/".join(part if part in SCHEMA_KEYWORDS or part == "#"
                                    else self.shapes.text(part) for part in item.split("/"))
            elif key in SCHEMA_TEXT or key in SCHEMA_DATA:
                out[key] = self.data(item)
            elif isinstance(item, dict | list):
                out[key] = self.schema(item)
            else:
                out[key] = item  # a bound or a flag (maxLength: 3, uniqueItems: true)
        return out

    def image_or_text(self, value: str) -> str:
        url = _DATA_URL.match(value)
        if url:
            return url.group(1) + self.image(url.group(2))
        return self.image(value)

    def image(self, data: str) -> str:
        """Synthetic image data: the original's format header, then keyed bytes, as base64
        of the same length. Data that is not base64 is replaced as text."""
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return self.shapes.text(data)
        keep = next((size for magic, size in _IMAGE_HEADERS if raw.startswith(magic)), 0)
        filler = self.shapes.stream("image", data[:64], len(raw) - keep)
        made = base64.b64encode(raw[:keep] + filler).decode()
        return made if len(made) == len(data) else self.shapes.text(data)

    # -- timestamps ------------------------------------------------------------------------

    def _time(self, value: str) -> str | None:
        ms = _iso_ms(value)
        if ms is None:
            return None
        if self.offset_ms is None:
            self.offset_ms = EPOCH_MS - ms
        match = _ISO.match(value)
        assert match is not None
        fraction = match.group(7) or ""
        moved = dt.datetime.fromtimestamp((ms + self.offset_ms) / 1000, dt.UTC)
        text = moved.strftime("%Y-%m-%dT%H:%M:%S")
        if fraction:
            digits = f"{moved.microsecond:06d}{'0' * 3}"[:len(fraction) - 1]
            text += "." + digits
        return text + "Z"


def anonymize(text: str, key: bytes | None = None) -> str:
    """The anonymized session (see the module's docstring), under ``key``, or a fresh random
    key when None (what promotion does); line endings are kept."""
    anonymizer = Anonymizer(text, key)
    return "".join(anonymizer.line(line) for line in jsonl_lines(text))


def _offset(text: str) -> int | None:
    """What moves the earliest entry or message timestamp of the file to ``EPOCH_MS``."""
    earliest: int | None = None
    for line in jsonl_lines(text):
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        found = []
        if isinstance(entry.get("timestamp"), str):
            found.append(_iso_ms(entry["timestamp"]))
        message = entry.get("message")
        if isinstance(message, dict) and isinstance(message.get("timestamp"), int) \
                and not isinstance(message["timestamp"], bool) and message["timestamp"] > 10**11:
            found.append(message["timestamp"])
        for ms in found:
            if ms is not None and (earliest is None or ms < earliest):
                earliest = ms
    return None if earliest is None else EPOCH_MS - earliest


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


def _json_inside(value: str) -> Any | None:
    """The object or array a string holds as JSON, or None."""
    if value.lstrip()[:1] not in ("{", "[") or len(value) < 2:
        return None
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    except RecursionError:
        return False  # too deep for Python; not cut further, char by char
    return True


def _dump_like(value: Any, original: str, parsed: Any) -> str:
    """``value`` as JSON in the original's spelling (compact or spaced, escaped or not)."""
    for ascii_only in (False, True):
        for separators in ((",", ":"), (", ", ": ")):
            if json.dumps(parsed, ensure_ascii=ascii_only, separators=separators) == original:
                return json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _dump_guessed(value: Any, original: str) -> str:
    """``value`` as JSON in the spelling a cut-off line seems to have."""
    separators = (", ", ": ") if re.search(r'"\s*:\s', original) else (",", ":")
    return json.dumps(value, ensure_ascii="\\u" in original and original.isascii(),
                      separators=separators)
