from conformance.corpus.normalization import input_strings, normalize


def test_input_strings_reads_parsed_lines_and_scans_broken_ones():
    session = b'{"id":"k1","message":{"text":"a\\"b"}}\n{"type":"message","id":"bro'
    found = input_strings(session)
    assert {"k1", 'a"b', "message", "type"} <= found
    assert "bro" not in found  # an unterminated literal is not a string of the input


def test_generated_ids_become_placeholders_numbered_by_first_use():
    known = input_strings(b'{"id":"k1"}')
    value = {"entries": [{"id": "r9", "parentId": None}, {"id": "r3", "parentId": "r9"},
                         {"id": "k1", "parentId": "r3"}]}
    assert normalize(value, known) == {"entries": [
        {"id": "<generated-id-1>", "parentId": None},
        {"id": "<generated-id-2>", "parentId": "<generated-id-1>"},
        {"id": "k1", "parentId": "<generated-id-2>"},
    ]}


def test_ids_that_come_from_the_input_are_kept_and_other_keys_untouched():
    known = input_strings(b'{"id":"abc"}')
    assert normalize({"id": "abc", "text": "zzz", "leafId": "new"}, known) == {
        "id": "abc", "text": "zzz", "leafId": "<generated-id-1>"}


def test_generated_timestamp_is_replaced_but_input_timestamps_are_not():
    known = input_strings(b'{"timestamp":"2024-01-01T00:00:00.000Z"}')
    value = [{"timestamp": "2024-01-01T00:00:00.000Z"}, {"timestamp": "2026-12-02T11:00:00Z"},
             {"timestamp": 1733234401000}]
    assert normalize(value, known) == [{"timestamp": "2024-01-01T00:00:00.000Z"},
                                       {"timestamp": "<generated-timestamp>"},
                                       {"timestamp": 1733234401000}]


def test_integral_floats_are_ints_but_booleans_stay_booleans():
    assert normalize({"a": 1.0, "b": 1.5, "c": True}, frozenset()) == {"a": 1, "b": 1.5, "c": True}


def test_a_large_integral_float_equals_the_integer_javascript_writes_for_it():
    # Python writes 6.26307708786294e16; JSON.stringify writes the same double as an integer.
    assert normalize(6.26307708786294e16, frozenset()) == normalize(62630770878629400,
                                                                     frozenset())
    assert normalize(2**60, frozenset()) == 2.0**60
    assert normalize(2**53 - 1, frozenset()) == 2**53 - 1
