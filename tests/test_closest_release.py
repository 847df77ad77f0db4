"""closest_release: the Pi release a port answers like most often (the matrix's column)."""

from __future__ import annotations

from conformance.reporting.closest_release import closest_release


def out(value: object) -> dict[str, object]:
    return {"output": value}


RELEASES = {  # newest first
    "pi@1.6.0": {"a": {"llm": out([1]), "stats": out({"tokens": {"input": 5, "output": 1}})},
                 "b": {"llm": out([2])}},
    "pi@1.3.0": {"a": {"llm": out([0]), "stats": out({"tokens": {"input": 4, "output": 1}})},
                 "b": {"llm": out([2])}},
}
KNOWN = {"a": frozenset(), "b": frozenset()}


def test_the_release_whose_answers_the_port_gives_most_often():
    port = {"a": {"llm": out([0]), "stats": out({"tokens": {"input": 4, "output": 9}})},
            "b": {"llm": out([2])}}
    found = closest_release(port, {}, RELEASES, KNOWN)
    assert found == {"release": "pi@1.3.0", "equal": 2, "compared": 3,
                     "by_release": {"pi@1.6.0": [1, 3], "pi@1.3.0": [2, 3]}}


def test_a_partial_claim_is_compared_on_its_fields_and_skips_are_not_compared():
    port = {"a": {"llm": {"skipped": "not claimed"},
                  "stats": out({"tokens": {"input": 4}})},
            "b": {"llm": {"error": {"message": "boom"}}}}
    found = closest_release(port, {"stats": ("tokens.input",)}, RELEASES, KNOWN)
    assert found is not None and found["release"] == "pi@1.3.0"
    assert found["by_release"] == {"pi@1.6.0": [0, 1], "pi@1.3.0": [1, 1]}


def test_a_tie_goes_to_the_newest_and_nothing_compared_is_no_answer():
    port = {"b": {"llm": out([2])}}
    assert closest_release(port, {}, RELEASES, KNOWN)["release"] == "pi@1.6.0"  # type: ignore[index]
    assert closest_release({}, {}, RELEASES, KNOWN) is None
