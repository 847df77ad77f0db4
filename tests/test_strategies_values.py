"""The leaf value pools: ids, both timestamp forms, opaque JSON."""

import json
import re
from datetime import datetime

from hypothesis import given

from strategies import entry_ids, iso_timestamps, json_values, ms_timestamps, texts
from strategies.values import ORDINARY, Values

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@given(entry_ids())
def test_entry_ids_are_eight_lowercase_hex_digits(value):
    assert re.fullmatch(r"[0-9a-f]{8}", value)


@given(iso_timestamps())
def test_entry_timestamps_are_iso_strings_with_milliseconds_in_utc(value):
    assert ISO.match(value)
    assert datetime.fromisoformat(value.replace("Z", "+00:00")).year >= 2000


@given(ms_timestamps())
def test_message_timestamps_are_integer_milliseconds_not_strings(value):
    assert isinstance(value, int)
    assert 946_684_800_000 <= value <= 4_102_444_800_000


@given(json_values())
def test_opaque_json_is_serialisable_and_its_integers_are_javascript_safe(value):
    text = json.dumps(value, allow_nan=False)
    for number in re.findall(r"(?<![\w.])-?\d+(?![\w.])", text):
        assert abs(int(number)) <= 2**53


@given(texts())
def test_texts_encode_as_utf8(value):
    value.encode("utf-8")


def test_values_compare_by_identity_so_strategies_can_be_cached():
    assert Values() is not ORDINARY
    assert Values() != ORDINARY
    assert hash(ORDINARY) == hash(ORDINARY)
