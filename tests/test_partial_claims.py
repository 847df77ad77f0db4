"""Partial stage claims (runner.project_fields): the golden is cut down to the claimed paths."""

from conformance.judging.judge import project_fields


def test_only_the_claimed_paths_are_kept():
    stats = {"userMessages": 1, "tokens": {"input": 10, "output": 5, "total": 15}, "cost": 0.3}
    assert project_fields(stats, ("tokens.input", "tokens.output", "cost")) == {
        "tokens": {"input": 10, "output": 5}, "cost": 0.3}


def test_a_claimed_path_the_golden_lacks_stays_absent():
    assert project_fields({"tokens": {"input": 1}}, ("tokens.cacheWrite", "cost")) == {
        "tokens": {}}


def test_a_non_object_output_is_left_whole():
    assert project_fields([1, 2], ("a",)) == [1, 2]
