"""jsonio: every value it reads, it writes back, whatever orjson refuses."""

from __future__ import annotations

import json

import pytest

from conformance import jsonio


def nested(depth: int) -> str:
    return '{"a":' * depth + "[1, 2.5, \"\\ud800\", \"é\"]" + "}" * depth


@pytest.mark.parametrize("depth", [1, 254, 255, 600, jsonio.MAX_NESTING - 1])
def test_whatever_is_read_is_written_back_at_any_depth_it_reads(depth: int):
    """orjson writes 254 levels: a session nested deeper crashed writing its goldens."""
    value = jsonio.loads(nested(depth))
    same = jsonio.canonical(value)  # Python's == recurses: compared by bytes
    assert same.startswith(b'{"a":' * depth + b'[1,2.5,"\\ud800","\xc3\xa9"]')
    for written in (jsonio.dumps(value), jsonio.dumps_line(value),
                    jsonio.dumps_pretty(value), same):
        assert jsonio.canonical(jsonio.loads(written)) == same


def test_deep_values_are_written_as_orjson_writes_shallow_ones():
    """The fallback writes the same bytes orjson would: compact, sorted for canonical, the
    same indentation, lone surrogates escaped."""
    value = {"b": [1, {"z": None, "a": True}], "a": "\ud800x", "c": 1.5, "d": -0.0}
    deep = value
    for _ in range(300):
        deep = {"k": deep}
    shallow_writes = (jsonio.dumps(value), jsonio.dumps_line(value),
                      jsonio.dumps_pretty(value), jsonio.canonical(value))
    prefix_open = '{"k":' * 300
    assert jsonio.dumps(deep) == (prefix_open.encode() + shallow_writes[0] + b"}" * 300)
    assert jsonio.canonical(deep) == (prefix_open.encode() + shallow_writes[3] + b"}" * 300)
    assert json.loads(jsonio.dumps_pretty(deep)) == json.loads(
        prefix_open + shallow_writes[2] + "}" * 300)
    assert jsonio.dumps_pretty(deep).splitlines()[1] == '  "k": {'


def test_nesting_beyond_what_is_read_is_a_value_error_not_a_recursion_error():
    deep: object = 1
    for _ in range(jsonio.MAX_NESTING + 10):
        deep = [deep]
    with pytest.raises(ValueError, match="nested deeper than"):
        jsonio.dumps(deep)
