"""Volatile paths: found by comparing runs, grouped by the value they shared in each run."""

from __future__ import annotations

from conformance.judging.volatility import (
    describe_change,
    partition,
    stable_differences,
    varying_paths,
    volatile_groups,
)


def run(session_id: str, first: str, second: str, scratch: str) -> dict:
    return {"output": {
        "header": {"id": session_id, "cwd": "/pi-conformance/cwd"},
        "entries": [{"id": first, "parentId": None, "n": 1},
                    {"id": second, "parentId": first, "n": 2}],
        "error": f"cannot open {scratch}/run/session.jsonl",
    }}


RUNS = [run("s-a", "a1", "a2", "/tmp/x1"), run("s-b", "b1", "b2", "/tmp/y2"),
        run("s-c", "c1", "c2", "/tmp/z3")]


def test_only_the_values_that_change_between_runs_are_volatile():
    assert varying_paths(RUNS) == [
        "$.output.header.id", "$.output.entries[0].id", "$.output.entries[1].id",
        "$.output.entries[1].parentId", "$.output.error"]


def test_a_reused_generated_value_puts_its_paths_in_one_group():
    groups = volatile_groups(RUNS)
    assert groups["$.output.entries[0].id"] == groups["$.output.entries[1].parentId"]
    assert len(set(groups.values())) == 4
    assert partition(groups) == {
        frozenset({"$.output.header.id"}), frozenset({"$.output.error"}),
        frozenset({"$.output.entries[0].id", "$.output.entries[1].parentId"}),
        frozenset({"$.output.entries[1].id"})}


def test_values_equal_in_one_run_only_are_not_grouped():
    # two ids that happen to coincide in one run but not in the others are separate values
    runs = [run("s", "x", "x", "/t"), run("s", "y1", "y2", "/t"), run("s", "z1", "z2", "/t")]
    groups = volatile_groups(runs)
    assert groups["$.output.entries[0].id"] != groups["$.output.entries[1].id"]


def test_a_string_that_differs_only_partly_is_volatile_as_a_whole():
    assert "$.output.error" in volatile_groups(RUNS)


def test_a_shape_that_differs_names_the_container_not_its_members():
    assert varying_paths([{"a": [1, 2]}, {"a": [1]}]) == ["$.a"]
    assert varying_paths([{"a": {"x": 1}}, {"a": {"y": 1}}]) == ["$.a"]
    assert varying_paths([{"a": 1}, {"a": "1"}]) == ["$.a"]
    assert varying_paths([{"a": True}, {"a": 1}]) == ["$.a"]  # JSON equality, not Python's


def test_nothing_varies_in_identical_runs_or_a_single_run():
    assert volatile_groups([RUNS[0], RUNS[0], RUNS[0]]) == {}
    assert volatile_groups([RUNS[0]]) == {}


def test_stable_differences_ignore_volatile_paths_and_what_lies_inside_them():
    golden, now = RUNS[0], run("s-b", "b1", "b2", "/tmp/x1")
    now["output"]["entries"][1]["n"] = 3
    volatile = ["$.output.header.id", "$.output.entries[0].id", "$.output.entries[1].id",
                "$.output.entries[1].parentId"]
    assert stable_differences(golden, now, volatile) == ["$.output.entries[1].n"]
    assert stable_differences(golden, now, ["$.output.entries", "$.output.header"]) == []


def test_a_regrouping_is_a_change_even_with_the_same_paths():
    recorded = {"$.a": "id-1", "$.b": "id-1"}
    found = {"$.a": "id-1", "$.b": "id-2"}
    assert describe_change(recorded, found) == [
        "the volatile paths are grouped differently: a generated value is reused in other "
        "places than recorded"]
    assert describe_change(recorded, {"$.b": "x", "$.a": "x"}) == []


def test_the_table_in_docs_normalization_is_the_shipped_corpus_s():
    from conformance._paths import corpus_root
    from conformance.corpus.cases import Corpus
    from conformance.judging.volatility import markdown_rows, paths_by_stage

    docs = (corpus_root().parent / "docs" / "normalization.md").read_text(encoding="utf-8")
    rows = markdown_rows(paths_by_stage(Corpus()))
    assert rows and rows in docs


def test_answers_holding_lone_surrogates_are_compared_not_refused():
    # Pi keeps lone surrogates in every stage before the request (content.surrogates);
    # regenerate crashed on them with "str is not valid UTF-8" before jsonio.canonical.
    runs = [{"output": {"text": "a\ud800", "id": name}} for name in ("x1", "y2", "z3")]
    assert volatile_groups(runs) == {"$.output.id": "id-1"}
    assert varying_paths([{"t": "\udfff"}, {"t": "\udffe"}]) == ["$.t"]
