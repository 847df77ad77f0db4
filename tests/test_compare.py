from conformance.judging.comparison import differences, json_path


def test_equal_values_have_no_differences_whatever_the_key_order():
    assert differences({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, frozenset()) == []


def test_list_order_matters():
    found = differences({"tools": ["read", "bash"]}, {"tools": ["bash", "read"]}, frozenset())
    assert [d.path for d in found] == ["$.tools[0]", "$.tools[1]"]


def test_every_difference_names_its_json_path_and_both_values():
    found = differences({"messages": [{"role": "user", "content": "x"}]},
                        {"messages": [{"role": "user", "content": "y", "extra": 1}]}, frozenset())
    assert [(d.path, d.kind, d.expected, d.actual) for d in found] == [
        ("$.messages[0].content", "changed", "x", "y"),
        ("$.messages[0].extra", "unexpected key", "<missing>", 1),
    ]


def test_costs_compare_with_a_tiny_relative_tolerance_only():
    assert differences({"cost": 0.1 + 0.2}, {"cost": 0.3}, frozenset()) == []
    assert differences({"cost": 0.3}, {"cost": 0.3001}, frozenset()) != []


def test_a_boolean_is_not_a_number_and_null_is_not_zero():
    assert differences({"a": True}, {"a": 1}, frozenset()) != []
    assert differences({"a": None}, {"a": 0}, frozenset()) != []


def test_opaque_signatures_compare_exactly():
    found = differences({"thinkingSignature": "abc="}, {"thinkingSignature": "abc"}, frozenset())
    assert found and found[0].path == "$.thinkingSignature"


def test_json_path_quotes_keys_that_are_not_identifiers():
    assert json_path(["sections", "2", 0, "a b"]) == '$.sections["2"][0]["a b"]'
