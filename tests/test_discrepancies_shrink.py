"""Shrinking a failing session to a minimal reproducer."""

from __future__ import annotations

import json

import pytest

from conformance.execution.sessions import SessionJudge
from conformance.implementations.specs import resolve
from conformance.maintenance.discrepancies.shrink import Atom, Oracle, ddmin, shrink

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


TARGET = ("$.x", "changed")
BUG = frozenset({TARGET})


def test_shrink_keeps_the_header_and_drops_lines_and_fields_the_bug_does_not_need():
    # A pure predicate: "the bug" shows whenever some entry has "boom" in its text.
    session = jsonl(HEADER, *(message(f"m{i}", None, "ok") for i in range(6)),
                    message("m6", "m5", "boom"), message("m7", "m6", "ok"))
    result = shrink(session, lambda text: BUG if "boom" in text else frozenset(), TARGET)
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
    result = shrink(session, lambda text: BUG if '"b"' in text else other, TARGET)
    assert '"b"' in result.text


def test_shrink_keeps_the_exact_difference_it_was_made_for_whatever_else_shows():
    """A candidate that shows the target beside another difference is kept; one that shows
    only another, already known difference is not (the shrink never slides onto it)."""
    known = ("$.betas", "changed")
    session = jsonl(HEADER, message("a", None, "boom"), message("b", "a", "betas"),
                    message("c", "b", "x"))

    def shows(text: str):
        found = set()
        if "boom" in text:
            found.add(TARGET)
        if "betas" in text:
            found.add(known)
        return frozenset(found)

    result = shrink(session, shows, TARGET)
    assert "boom" in result.text and "betas" not in result.text
    assert result.signature == BUG
    only_known = shrink(session, shows, known)
    assert "betas" in only_known.text and "boom" not in only_known.text


def test_shrink_stops_at_its_budget_with_the_best_so_far():
    session = jsonl(HEADER, *(message(f"m{i}", None, "boom") for i in range(20)))
    result = shrink(session, lambda text: BUG if "boom" in text else frozenset(), TARGET,
                    max_tests=3)
    assert result.exhausted and result.tests == 3
    assert len(result.text) < len(session)


@pytest.mark.reference
def test_shrinks_a_planted_bug_against_the_real_reference(shared_reference):
    """The fake port takes the last *message* as the leaf; Pi takes the last entry."""
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
    buggy = resolve("python:tests.fake_branch_impl:buggy")
    with SessionJudge(buggy, shared_reference, stages=("branch",)) as judge:
        oracle = Oracle(judge)
        found = oracle.compare(session, ("branch",))["branch"]
        assert found, "the planted bug must show on the full session"
        path, kind = sorted(found)[0]
        result = shrink(session, lambda t: oracle.compare(t, ("branch",))["branch"],
                        (path, kind))
        assert oracle.shows(result.text, Atom("branch", path, kind))
    lines = result.text.splitlines()
    assert json.loads(lines[0]) == HEADER
    assert len(lines) <= 3, result.text  # header + at most two entries
    # The faithful port agrees with Pi on the reproducer: it shows the bug, nothing else.
    faithful = resolve("python:tests.fake_branch_impl:faithful")
    with SessionJudge(faithful, shared_reference, stages=("branch",)) as judge:
        assert Oracle(judge).compare(result.text, ("branch",))["branch"] == frozenset()


@pytest.mark.reference
def test_a_rejected_session_does_not_poison_later_sessions(shared_reference):
    """Pi rejecting one candidate must not make it reject the next candidate."""
    good = jsonl(HEADER, message("a", None, "x"))
    faithful = resolve("python:tests.fake_branch_impl:faithful")
    with SessionJudge(faithful, shared_reference, stages=("branch",)) as judge:
        for _ in range(2):
            judge.judge(b"not a session\n")
            assert "rejected" in judge.pi_answer("branch")
        [result] = judge.judge(good.encode())
        assert "output" in judge.pi_answer("branch") and result.status == "pass"
