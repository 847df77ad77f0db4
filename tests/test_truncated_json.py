"""Closing a JSON text cut short: what it was the start of, or None for what is not JSON."""

from __future__ import annotations

import pytest

from conformance.maintenance.truncated_json import complete


@pytest.mark.parametrize(("text", "value"), [
    ('{"a":"xy', {"a": "xy"}),
    ('{"a": "x y ', {"a": "x y "}),
    ('{"a":', {"a": None}),
    ('{"a"', {"a": None}),
    ('{"a":1, ', {"a": 1}),
    ("[1,2", [1, 2]),
    ('{"a":tr', {"a": True}),
    ('{"a":12.', {"a": 12}),
    ('{"a":-', {"a": 0}),
    ('{"a":"x\\', {"a": "x"}),
    ('{"a":"x\\u00', {"a": "x"}),
    ('{"a":"x\\\\', {"a": "x\\"}),
    ('{"a":[{"b":"c"},{"d', {"a": [{"b": "c"}, {"d": None}]}),
    ('"abc', "abc"),
])
def test_a_cut_text_is_closed_where_it_stops(text, value):
    assert complete(text) == value


@pytest.mark.parametrize("text", ["garbage", '{"a":1}x', '{"a" 1', "{]", '{"a":1}}', "",
                                  "[" * 100000], ids=repr)
def test_what_is_not_the_start_of_json_is_none(text):
    assert complete(text) is None
