"""Replacements of the same shape, chosen by a secret key: the mapping of one anonymization.

Equal inputs get equal replacements, distinct inputs distinct ones, so ids still pair with
their parents within one file; without the key nobody can compute the mapping again, so a
dictionary run through this code says nothing about a file anonymized with another key.
What a replacement keeps is its shape: the same length, letters for letters of the same case,
digits for digits (hex stays hex), and the same UTF-8 width for any other character (a CJK
letter, an emoji, non-ASCII punctuation), so JavaScript sees a string of the same length.
ASCII punctuation, whitespace and control characters are kept: they are the structure of a
path, an id or a sentence, not its content.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re

#: A run: what lies between ASCII punctuation, whitespace and control characters.
RUN = re.compile(r"[^\s!-/:-@\[-`{-~\x00-\x1f\x7f]+")
_HEX_LOWER = re.compile(r"(?=.*\d)(?=.*[a-f])[0-9a-f]+")
_HEX_UPPER = re.compile(r"(?=.*\d)(?=.*[A-F])[0-9A-F]+")
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_WIDE2 = "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ"


class KeyedShapes:
    """One keyed mapping: runs of text, numbers and filler bytes."""

    def __init__(self, key: bytes):
        self._key = key
        self._runs: dict[str, str] = {}
        self._used: set[str] = set()
        self._numbers: dict[str, int | float] = {}

    def stream(self, purpose: str, value: str, size: int) -> bytes:
        """``size`` bytes that only the key gives for (``purpose``, ``value``)."""
        out = b""
        counter = 0
        while len(out) < size:
            message = f"{purpose}\0{counter}\0{value}".encode("utf-8", "surrogatepass")
            out += hmac.new(self._key, message, hashlib.sha256).digest()
            counter += 1
        return out[:size]

    def run(self, original: str) -> str:
        """The replacement of one run: same shape, never a replacement already given."""
        if original in self._runs:
            return self._runs[original]
        hexa = bool(_HEX_LOWER.fullmatch(original) or _HEX_UPPER.fullmatch(original))
        made = original
        for attempt in range(64):
            stream = self.stream(f"run{attempt}", original, len(original))
            made = "".join(_same_shape(ch, byte, hexa) for ch, byte in zip(original, stream,
                                                                          strict=True))
            if made != original and made not in self._used:
                break
        self._runs[original] = made
        self._used.add(made)
        return made

    def text(self, value: str) -> str:
        """Every run of ``value`` replaced; punctuation, whitespace and controls kept."""
        return RUN.sub(lambda match: self.run(match.group(0)), value)

    def number(self, value: int | float) -> int | float:
        """A number of the same kind and magnitude: its significant digits replaced (the
        first one by a non-zero digit), its leading zeros, sign and exponent kept."""
        if isinstance(value, float) and not math.isfinite(value):
            return value
        spelled = json.dumps(value)
        if spelled in self._numbers:
            return self._numbers[spelled]
        mantissa, mark, exponent = [*re.split(r"([eE])", spelled, maxsplit=1), "", ""][:3]
        stream = self.stream("number", spelled, len(mantissa))
        digits = []
        leading = True  # zeros before the first significant digit stay: the magnitude
        for ch, byte in zip(mantissa, stream, strict=True):
            if not ch.isdigit() or (leading and ch == "0"):
                digits.append(ch)
            elif leading:
                digits.append("123456789"[byte % 9])
                leading = False
            else:
                digits.append("0123456789"[byte % 10])
        text = "".join(digits) + mark + exponent
        made: int | float = int(text) if isinstance(value, int) else float(text)
        self._numbers[spelled] = made
        return made


def _same_shape(ch: str, byte: int, hexa: bool) -> str:
    if "0" <= ch <= "9":
        return "0123456789"[byte % 10]
    if "a" <= ch <= "z":
        return "abcdef"[byte % 6] if hexa else _LOWER[byte % 26]
    if "A" <= ch <= "Z":
        return "ABCDEF"[byte % 6] if hexa else _UPPER[byte % 26]
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:  # half of a surrogate pair, alone: another of its half
        return chr((code & 0xFC00) | (byte * 4))
    width = len(ch.encode("utf-8"))
    if width == 2:
        return _WIDE2[byte % len(_WIDE2)]
    if width == 3:
        return chr(0x4E00 + byte * 7)
    return chr(0x20000 + byte * 7)  # four bytes (an emoji too): a CJK letter beyond the BMP
