from conformance.corpus.normalization import input_strings, same_number


def test_input_strings_reads_parsed_lines_and_scans_broken_ones():
    session = b'{"id":"k1","message":{"text":"a\\"b"}}\n{"type":"message","id":"bro'
    found = input_strings(session)
    assert {"k1", 'a"b', "message", "type"} <= found
    assert "bro" not in found  # an unterminated literal is not a string of the input


def test_integral_floats_are_ints_but_integers_compare_exactly():
    assert same_number(1, 1.0) and same_number(0.1 + 0.2, 0.3)
    assert not same_number(1768039213000, 1768039212250)
    assert not same_number(15, 16) and not same_number(0.02, 0)


def test_a_large_integral_float_equals_the_integer_javascript_writes_for_it():
    # Python writes 6.26307708786294e16; JSON.stringify writes the same double as an integer.
    assert same_number(6.26307708786294e16, 62630770878629400)
    assert same_number(2**53, 2**53 + 1)  # one double
    assert not same_number(2**53 - 1, 2**53 - 2)
    assert same_number(2**53, 2**53 + 2)  # two doubles, but JS sums them with rounding
    assert same_number(10**400, 10**400 + 1)  # both beyond what a double holds
