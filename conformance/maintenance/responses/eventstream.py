"""The AWS event stream (``application/vnd.amazon.eventstream``): one binary message a frame.

A message is a prelude (total length, headers length, both big-endian 32-bit, and the
prelude's CRC32), the headers (name length, name, type 7 = string, value length, value), the
payload and the CRC32 of everything before it.
"""

from __future__ import annotations

import struct
import zlib

STRING = 7
CONTENT_TYPE = "application/vnd.amazon.eventstream"


def _headers(headers: dict[str, str]) -> bytes:
    out = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        out += struct.pack(">B", len(raw_name)) + raw_name
        out += struct.pack(">BH", STRING, len(raw_value)) + raw_value
    return out


def message(headers: dict[str, str], payload: bytes) -> bytes:
    head = _headers(headers)
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(event_type: str, payload: bytes) -> bytes:
    return message({":event-type": event_type, ":content-type": "application/json",
                    ":message-type": "event"}, payload)


def exception(exception_type: str, payload: bytes) -> bytes:
    return message({":exception-type": exception_type, ":content-type": "application/json",
                    ":message-type": "exception"}, payload)
