"""The JSON path dialect: reports print it, discrepancy checks and goldens read it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.corpus import jsonpath
from conformance.corpus.jsonpath import json_path
from conformance.errors import ConformanceError

VALUE = {"messages": [{"role": "user", "content": [{"text": "a"}]}, {"odd key": 1}],
         "leafId": None}


def test_get_follows_keys_and_indices_negative_ones_from_the_end():
    assert jsonpath.get(VALUE, "$.messages[0].content[0].text") == "a"
    assert jsonpath.get(VALUE, "$.messages[-1]['odd key']") == 1
    assert jsonpath.get(VALUE, "$.leafId") is None
    assert jsonpath.get(VALUE, "$") is VALUE


def test_a_step_that_does_not_exist_is_missing_not_an_error():
    for path in ("$.nope", "$.messages[5]", "$.leafId.x", "$.messages.role"):
        assert jsonpath.get(VALUE, path) is jsonpath.MISSING


def test_paths_printed_by_compare_read_back():
    parts = ["messages", 1, "odd key"]
    assert jsonpath.parse(json_path(parts)) == parts


@pytest.mark.parametrize("key", ["\u00c0", "\x1f", "a-b", "$x", "'", '"', "\\", "", "\ud800"])
def test_keys_that_once_did_not_round_trip_do(key):
    assert jsonpath.parse(json_path([key, 0])) == [key, 0]


@given(st.lists(st.one_of(st.text(), st.integers(min_value=0, max_value=10**6))))
def test_every_path_printed_reads_back_as_the_same_steps(steps):
    assert jsonpath.parse(json_path(steps)) == steps


@pytest.mark.parametrize("bad", ["messages", "$.", "$[x]", "$.a[1"])
def test_a_malformed_path_is_a_clear_error(bad):
    with pytest.raises(ConformanceError, match="JSON path"):
        jsonpath.parse(bad)


def test_generalize_forgets_list_positions_only():
    assert jsonpath.generalize("$.messages[12].content[0].text") == "$.messages[*].content[*].text"
    assert jsonpath.generalize("$.leafId") == "$.leafId"
