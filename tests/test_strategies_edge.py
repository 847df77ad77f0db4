"""Edge-case strategies: still valid for Pi, unusual in their values."""

import json
import math
import re

import pytest
from hypothesis import given
from reach import reach, reach_all

from strategies import (
    deep_json,
    edge_session_files,
    edge_sessions,
    edge_values,
    extreme_iso_timestamps,
    extreme_ms_timestamps,
    extreme_numbers,
    file_variants,
    redacted_thinking_blocks,
    sessions,
    unusual_texts,
)
from strategies.properties import entries_survive_loading, parse_session


@given(redacted_thinking_blocks())
def test_redacted_thinking_has_empty_text(block):
    assert block["thinking"] == "" and block["redacted"] is True and block["thinkingSignature"]


def test_edge_values_mix_the_edge_cases_into_every_pool():
    values = edge_values()
    reach_all(values.text, {"the empty string": lambda s: s == "",
                            "an astral character": lambda s: any(ord(c) > 0xFFFF for c in s),
                            "an ordinary text": lambda s: s.isascii() and s.strip()})
    reach_all(values.name, {"__proto__": lambda s: s == "__proto__",
                            "an integer-like name": lambda s: s.isdigit()})
    reach_all(values.tokens, {"the largest safe integer": lambda n: n == 2**53 - 1,
                              "zero": lambda n: n == 0})


def test_unusual_texts_reach_astral_characters_and_pis_own_delimiters():
    reach_all(unusual_texts(), {
        "an astral character": lambda s: any(ord(c) > 0xFFFF for c in s),
        "Pi's summary delimiter": lambda s: "</summary>" in s,
        "a line separator": lambda s: "\u2028" in s,
    })


@given(extreme_numbers(), extreme_ms_timestamps())
def test_extreme_numbers_are_finite_and_javascript_safe(number, stamp):
    for value in (number, stamp):
        assert math.isfinite(value)
        assert abs(value) < 2**53 or isinstance(value, float)
    assert abs(stamp) <= 2**53 - 1


def test_extreme_numbers_reach_each_edge_they_name():
    reach_all(extreme_numbers(), {
        "zero": lambda n: n == 0 and math.copysign(1, n) > 0,
        "negative zero": lambda n: n == 0 and math.copysign(1, n) < 0,
        "the largest safe integer": lambda n: n == 2**53 - 1 and isinstance(n, int),
        "the smallest subnormal": lambda n: n == 5e-324,
        "a huge float": lambda n: isinstance(n, float) and n >= 1e300,
    })
    date_limit = 8_640_000_000_000_000  # ms: the end of JavaScript Date's range
    reach_all(extreme_ms_timestamps(), {
        "Date's last instant": lambda t: t == date_limit,
        "Date's first instant": lambda t: t == -date_limit,
        "beyond Date's range": lambda t: abs(t) > date_limit,
        "the epoch": lambda t: t == 0,
        "before the epoch": lambda t: -date_limit < t < 0,
        "a fraction of a millisecond": lambda t: t != int(t),
    })


ISO_MS_Z = re.compile(r"^[+-]?\d{4,6}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def test_extreme_iso_timestamps_reach_each_edge_they_name():
    reach_all(extreme_iso_timestamps(), {
        "the epoch": lambda s: s == "1970-01-01T00:00:00.000Z",
        "year 0": lambda s: s.startswith("0000-") and ISO_MS_Z.match(s),
        "an extended year": lambda s: s[:1] in "+-" and s and ISO_MS_Z.match(s),
        "no milliseconds": lambda s: re.fullmatch(r".*T\d{2}:\d{2}:\d{2}Z", s),
        "an offset instead of Z": lambda s: re.fullmatch(r".*[+-]\d{2}:\d{2}", s),
        "unparsable text": lambda s: s and not s[:1].isdigit() and s[:1] not in "+-",
        "the empty string": lambda s: s == "",
    })


def _depth(value):
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@given(deep_json(depth=30))
def test_deep_json_round_trips_and_stays_within_its_depth(value):
    assert 1 <= _depth(value) <= 30
    assert json.loads(json.dumps(value)) == value


def test_deep_json_reaches_its_depth():
    reach(deep_json(depth=30), lambda v: _depth(v) >= 20)


@given(sessions().flatmap(lambda s: file_variants(s).map(lambda data: (s, data))))
def test_file_variants_hold_the_same_header_and_entries(pair):
    session, data = pair
    header, entries = parse_session(data.replace(b"\r\n", b"\n"))
    assert header == session.header and entries == session.entries


def _not_json(name: str) -> None:
    pytest.fail(f"{name} is not JSON")


@given(edge_sessions())
def test_edge_sessions_read_back_as_written_with_strict_json(session):
    data = session.to_jsonl()
    lines = data.split(b"\n")
    assert lines[-1] == b"" and all(lines[:-1])  # one value per line, newline-terminated
    for line in lines[:-1]:  # no NaN or Infinity: JSON.parse would reject the line
        json.loads(line, parse_constant=_not_json)
    header, entries = parse_session(data)
    assert header == session.header and entries == session.entries


@pytest.mark.reference
@given(edge_session_files())
def test_edge_sessions_load_in_pi_and_survive_the_entries_stage(pi, data):
    outputs = pi.outputs(data, ["entries", "branch", "context", "projection", "llm", "prompt",
                                "stats"])
    entries_survive_loading(data, outputs["entries"])


@pytest.mark.reference
@given(edge_session_files(seeded=True))
def test_seeded_edge_sessions_load_in_pi_and_survive_the_entries_stage(pi, data):
    outputs = pi.outputs(data, ["entries", "branch", "context", "projection", "llm", "prompt",
                                "stats"])
    entries_survive_loading(data, outputs["entries"])
