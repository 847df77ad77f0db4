"""controls.printable: what could act on a terminal or reorder text is shown, not obeyed."""

from __future__ import annotations

import pytest

from conformance.controls import printable


@pytest.mark.parametrize(("text", "shown"), [
    ("a\x1b]0;pwned\x07b", "a\\x1b]0;pwned\\x07b"),
    ("nul\x00", "nul\\x00"),
    ("c1\x9b2J", "c1\\x9b2J"),
    ("file\u202egpj.jsonl", "file\\u202egpj.jsonl"),  # right-to-left override
    ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
    ("lone \ud800", "lone \\ud800"),
])
def test_controls_are_shown(text: str, shown: str):
    assert printable(text) == shown


def test_text_tabs_newlines_and_any_script_stay():
    text = "línea\t\u0443\u0440\u043e\u0432\u0435\u043d\u044c\n日本語 🙂 \u200f"
    assert printable(text) == text
