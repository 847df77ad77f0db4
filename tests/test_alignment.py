"""Lists are lined up before they are diffed: one missing or extra item is one difference."""

from __future__ import annotations

from conformance.judging.alignment import align
from conformance.judging.comparison import differences


def test_a_missing_first_item_leaves_the_rest_lined_up():
    assert align("abcd", "bcd") == [(0, None), (1, 0), (2, 1), (3, 2)]


def test_an_extra_item_in_the_middle():
    assert align("abcd", "abxcd") == [(0, 0), (1, 1), (None, 2), (2, 3), (3, 4)]


def test_equal_lengths_without_anchors_pair_by_position():
    assert align("abc", "xyz") == [(0, 0), (1, 1), (2, 2)]


def test_repeated_items_are_matched_inside_gaps():
    pairs = align(["u", "a", "u", "a"], ["u", "a", "a"])
    assert [p for p in pairs if None in p] == [(2, None)]


def test_unequal_items_pair_by_kind_first():
    kinds_e, kinds_a = ["user", "assistant", "user"], ["assistant", "user"]
    pairs = align(["u1", "a1", "u2"], ["a1'", "u2'"], kinds_e.__getitem__, kinds_a.__getitem__)
    assert pairs == [(0, None), (1, 0), (2, 1)]


def messages(*texts):
    return {"messages": [{"role": "user", "content": [{"type": "text", "text": t}],
                          "timestamp": 1000 + n} for n, t in enumerate(texts)]}


def test_a_dropped_message_is_one_difference_not_one_per_later_message():
    expected = messages("a", "b", "c", "d", "e")
    actual = {"messages": expected["messages"][1:]}
    found = differences(expected, actual)
    assert [(d.path, d.kind, d.note) for d in found] == [
        ("$.messages[0]", "missing item", "missing item: user message")]


def test_a_change_after_a_shift_names_both_paths():
    expected = messages("a", "b", "c")
    actual = {"messages": [dict(m) for m in expected["messages"][1:]]}
    actual["messages"][1] = {**actual["messages"][1], "timestamp": 1}
    found = differences(expected, actual)
    assert [(d.path, d.actual_path, d.kind) for d in found] == [
        ("$.messages[0]", None, "missing item"),
        ("$.messages[2].timestamp", "$.messages[1].timestamp", "changed")]


def test_an_inserted_block_is_one_difference():
    blocks = [{"type": "text", "text": str(n)} for n in range(50)]
    found = differences({"content": blocks},
                        {"content": [*blocks[:10], {"type": "thinking", "thinking": "?"},
                                     *blocks[10:]]})
    assert [(d.kind, d.path, d.actual_path, d.note) for d in found] == [
        ("unexpected item", "$.content[10]", "$.content[10]", "extra item: thinking block")]


def test_two_swapped_blocks_are_reported():
    blocks = [{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "b"}]
    found = differences({"content": blocks}, {"content": blocks[::-1]})
    assert len(found) == 2 and {d.kind for d in found} == {"missing item", "unexpected item"}


def test_a_port_writing_floats_for_integers_still_lines_up():
    expected = {"items": [{"n": 1, "k": i} for i in range(6)]}
    actual = {"items": [{"n": 1.0, "k": float(i)} for i in range(1, 6)]}
    found = differences(expected, actual)
    assert [(d.path, d.kind) for d in found] == [("$.items[0]", "missing item")]


def test_renderings_and_the_report_show_the_alignment(tmp_path):
    from conformance.judging.results import StageResult, difference_from_json
    from conformance.reporting.text import failure_lines

    expected = messages("a", "b", "c")
    actual = {"messages": [dict(m) for m in expected["messages"][1:]]}
    actual["messages"][1]["timestamp"] = 1
    found = differences(expected, actual)
    assert [difference_from_json(d.to_json()) for d in found] == found  # round trip
    lines = failure_lines(StageResult("a.b", "context", "fail", "", found))
    assert "    $.messages[0] (missing item: user message)" in lines
    assert "    $.messages[2].timestamp -> answer $.messages[1].timestamp (changed)" in lines
