"""Shrinking a failing session to a minimal reproducer."""

from __future__ import annotations

import json

import pytest

from conformance.implementations.specs import resolve
from conformance.maintenance.discrepancies.shrink import Oracle, ddmin, shrink

HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2024-01-01T00:00:00.000Z",
          "cwd": "/p"}


def message(entry_id, parent, text):
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "2024-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1704067201000}}


def jsonl(*values) -> str:
    return "".join(json.dumps(v) + "\n" for v in values)


def test_ddmin_finds_the_two_items_that_matter():
    assert ddmin(list("abcdefgh"), lambda xs: "c" in xs and "f" in xs) == ["c", "f"]
    assert ddmin(list("abc"), lambda xs: True) == []


BUG = frozenset({("$.x", "changed")})


def test_shrink_keeps_the_header_and_drops_lines_and_fields_the_bug_does_not_need():
    # A pure predicate: "the bug" shows whenever some entry has "boom" in its text.
    session = jsonl(HEADER, *(message(f"m{i}", None, "ok") for i in range(6)),
                    message("m6", "m5", "boom"), message("m7", "m6", "ok"))
    result = shrink(session, lambda text: BUG if "boom" in text else frozenset(), BUG)
    lines = result.text.splitlines()
    assert json.loads(lines[0]) == HEADER
    assert len(lines) == 2
    kept = json.loads(lines[1])
    assert kept == {"type": "message", "message": {"content": "boom"}}
    assert result.signature == BUG and not result.exhausted


def test_shrink_never_accepts_a_different_failure():
    session = jsonl(HEADER, message("a", None, "boom"), message("b", "a", "x"))
    other = frozenset({("$.y", "missing key")})
    # Dropping "b" would show another bug: the shrinker must keep b.
    result = shrink(session, lambda text: BUG if '"b"' in text else other, BUG)
    assert '"b"' in result.text


def test_shrink_stops_at_its_budget_with_the_best_so_far():
    session = jsonl(HEADER, *(message(f"m{i}", None, "boom") for i in range(20)))
    result = shrink(session, lambda text: BUG if "boom" in text else frozenset(), BUG,
                    max_tests=3)
    assert result.exhausted and result.tests == 3
    assert len(result.text) < len(session)


@pytest.mark.reference
def test_shrinks_a_planted_bug_against_the_real_reference(shared_reference):
    """The fake port takes the last *message* as the leaf; Pi takes the last entry."""
    impl = resolve("python:tests.fake_branch_impl:buggy")
    reference = shared_reference  # the session's Pi; closing it leaves it running
    impl.start()
    try:
        oracle = Oracle(impl, reference, case_id="t", features=(),
                        options={"cwd": "/pi-conformance/cwd"})
        session = jsonl(
            HEADER, message("a", None, "x"), message("b", "a", "y"),
            {"type": "model_change", "id": "mc", "parentId": "b",
             "timestamp": "2024-01-01T00:00:02.000Z", "provider": "openai", "modelId": "gpt"},
            message("c", "mc", "z"), message("d", "c", "w"),
            {"type": "label", "id": "l", "parentId": "d", "timestamp": "2024-01-01T00:00:03.000Z",
             "targetId": "a", "label": "bm"},
            message("e", "b", "v"),
            {"type": "session_info", "id": "si", "parentId": "e",
             "timestamp": "2024-01-01T00:00:04.000Z", "name": "n"})
        target = oracle.compare(session, ("branch",))["branch"]
        assert target, "the planted bug must show on the full session"
        result = shrink(session, lambda t: oracle.compare(t, ("branch",))["branch"], target)
        lines = result.text.splitlines()
        assert json.loads(lines[0]) == HEADER
        assert len(lines) <= 3, result.text  # header + at most two entries
        assert oracle.compare(result.text, ("branch",))["branch"] <= target
        # The faithful port agrees with Pi on the reproducer: it shows the bug, nothing else.
        faithful = resolve("python:tests.fake_branch_impl:faithful")
        faithful.start()
        try:
            check = Oracle(faithful, reference, case_id="t", features=(),
                           options={"cwd": "/pi-conformance/cwd"})
            assert check.compare(result.text, ("branch",))["branch"] == frozenset()
            check.close()
        finally:
            faithful.close()
        oracle.close()
    finally:
        impl.close()
        reference.close()


@pytest.mark.reference
def test_a_rejected_session_does_not_poison_later_oracles(shared_reference):
    """Pi rejecting one candidate must not make the reference reject the next oracle's runs."""
    impl = resolve("python:tests.fake_branch_impl:buggy")
    reference = shared_reference  # the session's Pi; closing it leaves it running
    impl.start()
    try:
        good = jsonl(HEADER, message("a", None, "x"))
        for _ in range(2):
            oracle = Oracle(impl, reference, case_id="t", features=(),
                            options={"cwd": "/pi-conformance/cwd"})
            assert oracle.answers("reference", "not a session\n", ("branch",))["branch"].kind \
                == "rejected"
            oracle.close()
        oracle = Oracle(impl, reference, case_id="t", features=(),
                        options={"cwd": "/pi-conformance/cwd"})
        assert oracle.answers("reference", good, ("branch",))["branch"].kind == "output"
        oracle.close()
    finally:
        impl.close()
        reference.close()


def test_a_partial_claim_compares_only_the_claimed_fields():
    from conformance.maintenance.discrepancies.shrink import project_fields

    stats = {"tokens": {"input": 1, "output": 2, "total": 3}, "cost": 0.5, "userMessages": 4}
    assert project_fields(stats, ("tokens.input", "cost", "tokens.nope", "nope.deep")) == {
        "tokens": {"input": 1}, "cost": 0.5, "nope": {}}
