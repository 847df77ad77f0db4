"""Control characters made visible: the one sanitizer for text shown to people.

Implementations, sessions and file names may hold anything; on a terminal an ESC starts a
sequence that retitles the window or clears the screen, NUL and BEL and CR hide or overwrite
text, and the same characters corrupt a Markdown page or an XML file. Everything printed or
rendered for people passes ``printable``; machine output (JSON) keeps the exact data.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls, the bidirectional overrides and isolates
# (they reorder what follows them on screen: a file name could show as another), and the lone
# surrogates and non-characters no file format can hold.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
                      "\ufffe\uffff\ud800-\udfff]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: Any) -> str:
    """``text`` with every control character but tab and newline written as ``\\xNN``."""
    return _CONTROL.sub(_shown, str(text))


__all__ = ["printable"]
