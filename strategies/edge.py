"""Edge cases, kept apart from the everyday strategies: valid input that breaks naive code.

Every strategy here still produces data Pi accepts (the tests load edge sessions in the real
Pi); what is unusual is the values: empty strings, astral and unusual Unicode, extreme but
JS-safe numbers, timestamps at the ends of JavaScript's ``Date`` range (and unparsable ISO
strings, which Pi turns into ``NaN``, serialised as ``null``), redacted thinking with empty
text, deep nesting, and file-level quirks (CRLF, blank and garbage lines, no final newline).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies.content import thinking_blocks
from strategies.seeded import SEEDS, SeededDraw
from strategies.sessions import Session, sessions
from strategies.values import BOOLEANS, Values, iso_timestamps, ms_timestamps, texts

__all__ = [
    "deep_json",
    "edge_session_files",
    "edge_sessions",
    "edge_values",
    "empty_strings",
    "extreme_iso_timestamps",
    "extreme_ms_timestamps",
    "extreme_numbers",
    "file_variants",
    "redacted_thinking_blocks",
    "unusual_texts",
]

_UNUSUAL = [
    "\U0001f600",            # astral: an emoji, two UTF-16 code units
    "\U0001d54f",            # astral: mathematical double-struck X
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # a ZWJ family sequence
    "e\u0301",               # combining acute accent
    "\u202eabc",             # right-to-left override
    "\ufeff",                # byte order mark inside a string
    "\u2028\u2029",          # line and paragraph separators (valid in JSON strings)
    "\u0000",                # NUL
    "\x1b[31m",              # an ANSI escape
    "\r\n",                  # CRLF inside a string
    "\\\"",                  # backslash and quote
    "</summary>",            # Pi's own summary delimiter
    "\U0010ffff",            # the last code point
]


def empty_strings() -> SearchStrategy[str]:
    """Only ``""``: the empty string, everywhere a string goes. Example: ``''``."""
    return st.just("")


def unusual_texts() -> SearchStrategy[str]:
    """Short strings built from astral characters, combining marks, bidi controls, NUL,
    separators and delimiters Pi itself uses. Example: ``'\\U0001f600e\\u0301'``."""
    pieces = st.sampled_from(_UNUSUAL) | texts(max_size=3)
    return st.lists(pieces, min_size=1, max_size=4).map("".join)


def extreme_numbers() -> SearchStrategy[int | float]:
    """Token counts and costs at the edges of what JSON and JS agree on: 0, ``-0.0``,
    ``2**53 - 1``, tiny and huge floats. Example: ``9007199254740991``."""
    return st.sampled_from([0, -0.0, 1, 2**31, 2**53 - 1, 5e-324, 1e-9, 0.1, 1e308])


def extreme_ms_timestamps() -> SearchStrategy[int | float]:
    """Message timestamps at the ends of ``Date``'s range (±8.64e15 ms), beyond it (the
    largest safe integer), 0, negative, and fractional. Example: ``8640000000000000``."""
    return st.sampled_from([0, -1, 1.5, 8_640_000_000_000_000, -8_640_000_000_000_000,
                            2**53 - 1])


def extreme_iso_timestamps() -> SearchStrategy[str]:
    """Entry timestamps Pi must cope with: the epoch, year 0, Date's last instant as an
    extended year, no milliseconds, an offset instead of ``Z``, and unparsable text.
    Example: ``'+275760-09-13T00:00:00.000Z'``."""
    return st.sampled_from([
        "1970-01-01T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "+275760-09-13T00:00:00.000Z",
        "-271821-04-20T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2024-12-03T14:00:01Z",
        "2024-12-03T15:00:01.000+01:00", "not a date", "",
    ])


def deep_json(depth: int = 40) -> SearchStrategy[Any]:
    """JSON nested ``depth`` levels deep (lists and objects alternating), for ``details``,
    ``data`` and tool arguments. Example (depth 2): ``{'k': [1]}``."""
    keys, leaves, depths = unusual_texts() | st.just("k"), st.integers(0, 9), st.integers(1, depth)

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        value: Any = draw(leaves)
        for level in range(draw(depths)):
            value = [value] if level % 2 else {draw(keys): value}
        return value

    return build()


def redacted_thinking_blocks() -> SearchStrategy[dict[str, Any]]:
    """A redacted thinking block: empty ``thinking`` text, the payload only in the opaque
    signature. Empty text does not mean nothing happened. Example: ``{"type": "thinking",
    "thinking": "", "thinkingSignature": "EqQBCkYI...", "redacted": True}``."""
    return thinking_blocks(redacted=True)


def edge_values() -> Values:
    """The :class:`~strategies.values.Values` pools with edge cases mixed in: pass it as
    ``values=`` to any strategy, e.g. ``sessions(edge_values())``."""
    return Values(
        text=empty_strings() | unusual_texts() | texts(),
        name=st.sampled_from(["", "__proto__", "constructor", "0", "10", "\U0001f600"])
        | st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10),
        tokens=st.sampled_from([0, 1, 2**31, 2**53 - 1]) | st.integers(0, 10**6),
        # 1e300, not 1e308: four category costs must still sum to a finite total.
        cost=st.sampled_from([0, -0.0, 5e-324, 1e-9, 0.1, 1e300])
        | st.integers(0, 10**6).map(lambda n: n / 10**6),
        ms_timestamp=extreme_ms_timestamps() | ms_timestamps(),
        iso_timestamp=extreme_iso_timestamps() | iso_timestamps(),
        json=deep_json() | st.sampled_from([{}, [], "", {"__proto__": {"x": 1}}]),
    )


def edge_sessions(**kwargs: Any) -> SearchStrategy[Session]:
    """:func:`~strategies.sessions.sessions` drawing from :func:`edge_values`."""
    return sessions(edge_values(), **kwargs)


def file_variants(session: Session) -> SearchStrategy[bytes]:
    """The bytes of ``session`` with file-level quirks Pi tolerates: CRLF line ends, blank
    and whitespace-only lines, unparsable garbage lines and JSON ``null`` lines between
    entries, and a missing final newline. Pi loads the same entries from every variant."""
    return _variants(session)


_ENDINGS = st.sampled_from(["\n", "\r\n"])
_ODD_LINES = st.sampled_from(["", "   ", "{not json", "null", "\t"])
_ODD_LINE_HERE = st.integers(0, 4)


@st.composite  # once, here: a composite defined per session costs a parse of its source
def _variants(draw: st.DrawFn, session: Session) -> bytes:
    ending = draw(_ENDINGS)
    out: list[str] = []
    for index, line in enumerate(session.lines()):
        if index and draw(_ODD_LINE_HERE) == 4:
            out.append(draw(_ODD_LINES))
        out.append(line)
    text = ending.join(out)
    if draw(BOOLEANS):
        text += ending
    return text.encode("utf-8")


def edge_session_files(**kwargs: Any) -> SearchStrategy[bytes]:
    """Edge sessions written with :func:`file_variants`: the whole edge surface as bytes.
    With ``seeded=True`` (see :func:`~strategies.sessions.sessions`) the file's quirks
    come from one seed too."""
    if kwargs.get("seeded"):
        return _seeded_files(edge_sessions(**kwargs))
    return edge_sessions(**kwargs).flatmap(file_variants)


@st.composite
def _seeded_files(draw: st.DrawFn, trees: SearchStrategy[Session]) -> bytes:
    session = draw(trees)
    return SeededDraw(draw(SEEDS))(file_variants(session))
