"""Generated values: only the paths a golden records are lenient, and structurally (one value
per group, reused where Pi reuses it); without a recording, the guess names what it stands
for and shows Pi's real value."""

from __future__ import annotations

import copy
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from conformance._paths import corpus_root
from conformance.corpus import jsonpath
from conformance.corpus.answers import Output, parse_answer
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.normalization import input_strings
from conformance.judging import comparison
from conformance.judging.comparison import differences, output_paths
from conformance.judging.judge import judge

ENTRIES = {"entries": [
    {"type": "session", "id": "0199aaaa", "timestamp": "2026-12-02T11:00:00.000Z"},
    {"type": "message", "id": "a1b2c3d4", "parentId": None},
    {"type": "message", "id": "e5f6a7b8", "parentId": "a1b2c3d4"},
]}
VOLATILE = {"$.output.entries[0].id": "id-1", "$.output.entries[0].timestamp": "timestamp-2",
            "$.output.entries[1].id": "id-3", "$.output.entries[2].parentId": "id-3",
            "$.output.entries[2].id": "id-4"}


def answer(ids: tuple[str, str, str], parent: str, stamp: str = "2027-01-01T00:00:00.000Z"):
    return {"entries": [
        {"type": "session", "id": ids[0], "timestamp": stamp},
        {"type": "message", "id": ids[1], "parentId": None},
        {"type": "message", "id": ids[2], "parentId": parent},
    ]}


def test_recorded_paths_accept_other_values_reused_the_same_way():
    assert differences(ENTRIES, answer(("s", "x", "y"), "x"),
                       volatile=output_paths(VOLATILE)) == []


def test_a_group_must_hold_one_value():
    found = differences(ENTRIES, answer(("s", "x", "y"), "z"), volatile=output_paths(VOLATILE))
    assert len(found) == 1
    assert found[0].expected in ("a1b2c3d4",)  # Pi's real value, not a placeholder
    assert "generated value" in found[0].note


def test_distinct_groups_need_distinct_values_but_clock_readings_may_coincide():
    found = differences(ENTRIES, answer(("s", "x", "x"), "x"), volatile=output_paths(VOLATILE))
    assert [d.path for d in found] == ["$.entries[2].id"]
    assert "reuses the value" in found[0].note
    same_clock = answer(("s", "x", "y"), "x", stamp="2027-01-01T00:00:00.000Z")
    same_clock["entries"][1]["timestamp"] = same_clock["entries"][0]["timestamp"]
    expected = {"entries": [dict(e) for e in ENTRIES["entries"]]}
    expected["entries"][1]["timestamp"] = "2026-12-02T11:00:00.001Z"
    volatile = {**VOLATILE, "$.output.entries[1].timestamp": "timestamp-5"}
    assert differences(expected, same_clock, volatile=output_paths(volatile)) == []


def test_paths_not_recorded_compare_exactly_ids_included():
    found = differences(ENTRIES, answer(("s", "x", "y"), "x"), volatile={})
    assert {d.path for d in found} == {"$.entries[0].id", "$.entries[0].timestamp",
                                       "$.entries[1].id", "$.entries[2].id",
                                       "$.entries[2].parentId"}


def test_without_a_recording_ids_not_in_the_input_are_guessed_as_before():
    known = input_strings(b'{"type":"session"}')
    assert differences(ENTRIES, answer(("s", "x", "y"), "x"), known) == []
    found = differences(ENTRIES, answer(("s", "x", "y"), "q"), known)
    assert [(d.path, d.expected, d.actual) for d in found] == [
        ("$.entries[2].parentId", "a1b2c3d4", "q")]
    assert "generated id a1b2c3d4" in found[0].note  # named for what it stands for


def test_one_inserted_item_is_one_difference_whatever_ids_follow():
    known = input_strings(b'{"type":"session"}')
    longer = answer(("s", "x", "y"), "x")
    longer["entries"].insert(1, {"type": "label", "id": "extra", "parentId": None})
    found = differences(ENTRIES, longer, known)
    assert [(d.kind, d.actual_path) for d in found] == [("unexpected item", "$.entries[1]")]


CORPUS = Corpus(corpus_root())


def case(case_id: str):
    return next(c for c in CORPUS.cases if c.id == case_id)


def test_a_golden_sees_changed_deterministic_request_ids():
    msg_pi = case("request.responses-msg-pi-ids")
    golden = read_golden(msg_pi, "request.openai-responses")
    assert not golden.volatile  # Pi derives these ids: nothing varied between runs
    output = golden.result["output"]
    spoiled = {**output, "input": [
        {**item, "id": f"other_{n}"} if isinstance(item.get("id"), str) else item
        for n, item in enumerate(output["input"])]}
    known = input_strings(msg_pi.session_bytes())
    verdict = judge(msg_pi, "request.openai-responses", Output(spoiled), golden)
    assert verdict.status == "fail"
    assert {d.path for d in verdict.differences} == {
        f"$.input[{n}].id" for n, item in enumerate(output["input"]) if "id" in item}
    assert {d.expected for d in verdict.differences} >= {"msg_pi_1", "msg_pi_1_1"}
    # The old guess (no golden: the fuzzer, the shrinker) cannot see them.
    assert differences(output, spoiled, known) == []


def test_an_unchanged_answer_passes():
    msg_pi = case("request.responses-msg-pi-ids")
    golden = read_golden(msg_pi, "request.openai-responses")
    answer = parse_answer(golden.result)
    assert judge(msg_pi, "request.openai-responses", answer, golden).status == "pass"


def test_a_recorded_golden_accepts_the_references_own_variation():
    entries = next(c for c in CORPUS.cases
                   if "entries" in c.stages and read_golden(c, "entries").volatile)
    golden = read_golden(entries, "entries")
    assert golden.volatile
    answer = copy.deepcopy(golden.result)
    renamed = {}
    for path, group in golden.volatile.items():
        value = jsonpath.get(answer, path)
        if isinstance(value, str):
            renamed.setdefault(group, f"{group}-other")
    for path, group in golden.volatile.items():
        if group in renamed:
            *parents, last = jsonpath.parse(path)
            holder = answer
            for step in parents:
                holder = holder[step]
            holder[last] = renamed[group]
    assert judge(entries, "entries", parse_answer(answer), golden).status == "pass"


SMALL = {"type": "message", "id": "a1b2c3d4", "parentId": None,
         "message": {"role": "user", "timestamp": 1733234401000, "content": "hi"}}
SMALL_VOLATILE = {"$.output.id": "id-1", "$.output.message.timestamp": "clock-1"}


def test_a_small_object_differing_only_in_generated_values_needs_no_deepdiff(monkeypatch):
    def no_deepdiff():
        raise AssertionError("DeepDiff imported for generated values only")

    monkeypatch.setattr(comparison, "_deepdiff", no_deepdiff)
    answer = {**SMALL, "id": "ffff0000", "message": {**SMALL["message"], "timestamp": 1}}
    assert differences(SMALL, answer, volatile=output_paths(SMALL_VOLATILE)) == []


leaves = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, 1.0]),
                   st.sampled_from(["a", "b", "a1b2c3d4", "2026-12-02T11:00:00.000Z"]))
small_objects = st.recursive(leaves, lambda inner: st.dictionaries(
    st.sampled_from(["id", "parentId", "timestamp", "role"]), inner, max_size=3),
    max_leaves=12).filter(lambda value: isinstance(value, dict))


def _leaf_paths(value, steps=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaf_paths(item, (*steps, key))
    else:
        yield steps


@given(expected=small_objects, answer_leaves=st.lists(leaves, min_size=12, max_size=12),
       changed=st.lists(st.booleans(), min_size=12, max_size=12),
       recorded=st.lists(st.booleans(), min_size=12, max_size=12), guessed=st.booleans())
def test_the_generated_only_shortcut_finds_what_deepdiff_finds(expected, answer_leaves, changed,
                                                               recorded, guessed):
    """Whatever the leaves, recorded or guessed: the same differences with and without it."""
    answer = copy.deepcopy(expected)
    paths = list(_leaf_paths(expected))
    for i, steps in enumerate(paths):
        if changed[i] and steps:
            parent = answer
            for key in steps[:-1]:
                parent = parent[key]
            parent[steps[-1]] = answer_leaves[i]
    volatile = None if guessed else output_paths({
        jsonpath.json_path(["output", *steps]): f"g{i % 3}"
        for i, steps in enumerate(paths) if recorded[i] and steps})
    known = frozenset({"a"})
    found = differences(expected, answer, known, volatile=volatile)
    with mock.patch.object(comparison._Walk, "generated_only", lambda *args: None):
        assert found == differences(expected, answer, known, volatile=volatile)


def test_a_long_answer_with_its_own_generated_ids_is_judged_near_its_size():
    """Every generated value's canonical bytes were kept per group (the value held, Pi's,
    the owner of each value), and ``orjson`` hands back a buffer of 4 KiB or more for even
    a short id: a conforming answer with its own ids for 5,000 entries took 27 times its own
    size (9.4 KB an entry). Counted by tracemalloc (allocations, not the machine's load),
    with a wide margin."""
    import tracemalloc

    import orjson

    count = 5_000
    golden = {"entries": [{"type": "message", "id": f"pi{n:06x}",
                           "parentId": f"pi{n - 1:06x}" if n else None,
                           "message": {"role": "user", "content": [{"type": "text",
                                                                    "text": f"item {n}"}]}}
                          for n in range(count)]}
    answer = copy.deepcopy(golden)
    volatile = {}
    for n, entry in enumerate(answer["entries"]):
        entry["id"] = f"own{n:06x}"
        volatile[f"$.entries[{n}].id"] = f"id-{n}"
        if n:
            entry["parentId"] = f"own{n - 1:06x}"
            volatile[f"$.entries[{n}].parentId"] = f"id-{n - 1}"
    size = len(orjson.dumps(answer))
    differences({"x": [1]}, {"x": [2]})  # imports outside the measure
    tracemalloc.start()
    try:
        found = differences(golden, answer, volatile=volatile)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == []
    assert peak < 20 * size, f"judging took {peak} bytes for a {size}-byte answer"
