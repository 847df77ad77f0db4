from conformance.judging.comparison import differences, json_path


def test_equal_values_have_no_differences_whatever_the_key_order():
    assert differences({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, frozenset()) == []


def test_list_order_matters():
    found = differences({"tools": ["read", "bash"]}, {"tools": ["bash", "read"]}, frozenset())
    assert sorted(d.kind for d in found) == ["missing item", "unexpected item"]
    assert {d.expected for d in found} | {d.actual for d in found} >= {"read"}


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


def test_integers_compare_exactly_however_large_the_value():
    found = differences({"timestamp": 1768039213000}, {"timestamp": 1768039212250}, frozenset())
    assert [(d.path, d.kind) for d in found] == [("$.timestamp", "changed")]
    assert differences({"totalTokens": 15}, {"totalTokens": 16}, frozenset()) != []
    assert differences({"t": 1768039213000}, {"t": 1768039213001}, frozenset()) != []


def test_integers_beyond_2_53_compare_as_a_javascript_double_holds_them():
    assert differences({"n": 2**53}, {"n": 2**53 + 1}, frozenset()) == []
    assert differences({"n": 62630770878629400}, {"n": 6.26307708786294e16}, frozenset()) == []
    # Beyond 2**53 JavaScript adds integers as doubles: Pi's sum of huge token counts is
    # rounded, so only a relative tolerance is fair there (found by the fuzzer).
    assert differences({"total": 2**53}, {"total": 2**53 + 2}, frozenset()) == []
    assert differences({"n": 2**60}, {"n": 2**60 + 2**40}, frozenset()) != []


def test_a_fraction_against_an_integer_is_a_changed_value_not_a_type_change():
    found = differences({"cost": 0.02}, {"cost": 0}, frozenset())
    assert [(d.kind, d.expected, d.actual) for d in found] == [("changed", 0.02, 0)]
    assert differences({"cost": 1}, {"cost": 0.9999999999999999}, frozenset()) == []
    assert differences({"n": 1}, {"n": 1.0}, frozenset()) == []


def test_a_comparison_is_bounded_and_says_what_it_left_out():
    from conformance.judging.comparison import MAX_DIFFERENCES

    found = differences({"a": [f"x{n}" for n in range(3000)]},
                        {"a": [f"y{n}" for n in range(3000)]})
    assert len(found) == MAX_DIFFERENCES + 1
    assert found[-1].kind == "not compared" and "stopped after" in found[-1].note


def test_values_nested_deeper_than_the_cap_are_compared_whole():
    deep_e, deep_a = 1, 2
    for _ in range(5000):
        deep_e, deep_a = [deep_e], [deep_a]
    (found,) = differences({"deep": deep_e}, {"deep": deep_a})
    assert found.kind == "changed" and "compared as a whole" in found.note
    assert differences({"deep": deep_e}, {"deep": deep_e}) == []


def test_judging_a_long_list_keeps_memory_near_the_answers_size():
    """Aligning items by their canonical bytes kept orjson's 4 KiB buffers alive, one per
    item: about 25 times the answer. Keys are digests now; a wide margin, counted by
    tracemalloc (allocations, not the machine's load), still fails the old way."""
    import copy
    import tracemalloc

    import orjson

    golden = [{"type": "message", "id": f"{n:08x}",
               "message": {"role": "user", "content": [{"type": "text", "text": f"item {n}"}]}}
              for n in range(3000)]
    answer = copy.deepcopy(golden)
    del answer[300]
    answer[-300] = {"changed": True}
    size = len(orjson.dumps(answer))
    tracemalloc.start()
    try:
        found = differences(golden, answer)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(d.path, d.kind) for d in found][:2] == [("$[300]", "missing item"),
                                                     ("$[2700].changed", "unexpected key")]
    assert peak < 4 * size, f"judging took {peak} bytes for a {size}-byte answer"


def _peak_per_item(golden: list, answer: list) -> float:
    import tracemalloc

    differences(golden[:8], answer[:8])  # imports and caches outside the measure
    tracemalloc.start()
    try:
        differences(golden, answer)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / len(golden)


def test_aligning_a_long_list_keeps_no_object_per_pair_or_per_scalar():
    """An alignment kept a tuple per pair, a tuple of three per pair, a dictionary entry per
    moved item and a key tuple per scalar: about 370 bytes an item for numbers, 390 to 880
    for small objects. Pairs are arrays of indices now and a scalar is its own key; counted
    by tracemalloc (allocations, not the machine's load), with a margin."""
    import copy

    count = 20_000
    shapes = {"repeated numbers": (lambda n: n % 7, 150),
              "distinct numbers": (lambda n: n, 150),
              "repeated objects": (lambda n: {"a": n % 7}, 300),
              "distinct objects": (lambda n: {"n": n}, 300)}
    for shape, (make, limit) in shapes.items():
        golden = [make(n) for n in range(count)]
        answer = copy.deepcopy(golden)
        del answer[count // 10]
        answer[-count // 10] = "changed"
        per_item = _peak_per_item(golden, answer)
        assert per_item < limit, f"{shape}: {per_item:.0f} bytes an item"
