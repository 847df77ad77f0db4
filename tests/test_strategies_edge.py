"""Edge-case strategies: still valid for Pi, unusual in their values."""

import json
import math

import pytest
from hypothesis import given
from reach import reach

from strategies import (
    deep_json,
    edge_session_files,
    edge_sessions,
    empty_strings,
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


@given(empty_strings())
def test_empty_strings_are_empty(value):
    assert value == ""


def test_unusual_texts_reach_astral_characters_and_pis_own_delimiters():
    reach(unusual_texts(), lambda s: any(ord(c) > 0xFFFF for c in s))
    reach(unusual_texts(), lambda s: "</summary>" in s)
    reach(unusual_texts(), lambda s: "\u2028" in s)


@given(extreme_numbers(), extreme_ms_timestamps())
def test_extreme_numbers_are_finite_and_javascript_safe(number, stamp):
    for value in (number, stamp):
        assert math.isfinite(value)
        assert abs(value) < 2**53 or isinstance(value, float)
    assert abs(stamp) <= 2**53 - 1


@given(extreme_iso_timestamps())
def test_extreme_iso_timestamps_are_strings(value):
    assert isinstance(value, str)


@given(deep_json(depth=30))
def test_deep_json_nests_and_serialises(value):
    json.dumps(value)


def test_deep_json_reaches_its_depth():
    def depth(value):
        if isinstance(value, list):
            return 1 + max(map(depth, value), default=0)
        if isinstance(value, dict):
            return 1 + max(map(depth, value.values()), default=0)
        return 0

    reach(deep_json(depth=30), lambda v: depth(v) >= 20)


@given(sessions().flatmap(lambda s: file_variants(s).map(lambda data: (s, data))))
def test_file_variants_hold_the_same_header_and_entries(pair):
    session, data = pair
    header, entries = parse_session(data.replace(b"\r\n", b"\n"))
    assert header == session.header and entries == session.entries


@given(edge_sessions())
def test_edge_sessions_serialise(session):
    session.to_jsonl()


@pytest.mark.reference
@given(edge_session_files())
def test_edge_sessions_load_in_pi_and_survive_the_entries_stage(pi, data):
    outputs = pi.outputs(data, ["entries", "branch", "context", "projection", "llm", "prompt",
                                "stats"])
    entries_survive_loading(data, outputs["entries"])
