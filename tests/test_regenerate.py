"""Regeneration: cases on which Pi misbehaves, freshness and the volatile paths found by
comparing runs (no reference needed: fakes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.cases import Corpus
from conformance.errors import ConformanceError
from conformance.implementations.transports import Timeout
from conformance.maintenance import regenerate


def make_corpus(root: Path, outcome: str) -> Corpus:
    case = root / "cases" / "branch" / "loop"
    case.mkdir(parents=True)
    (case / "session.jsonl").write_text('{"type":"session","version":3,"id":"s"}\n')
    (case / "case.toml").write_text(
        'id = "branch.loop"\ntitle = "t"\nfeatures = ["f"]\n'
        f'outcome = "{outcome}"\nstages = ["entries", "branch", "context"]\n'
        + ('[scope]\nbranch = ["$"]\ncontext = ["$"]\n' if outcome != "required" else ""))
    return Corpus(root)


class FakeReference:
    """Answers entries, rejects context, hangs on branch; records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], float, bool]] = []
        self.restarts = 0

    def run_isolated(self, request: dict[str, Any], timeout: float) -> Any:
        return self.run(request, timeout, isolated=True)

    def run(self, request: dict[str, Any], timeout: float, isolated: bool = False) -> Any:
        self.calls.append((request["stages"], timeout, isolated))
        if "branch" in request["stages"]:
            raise Timeout(f"no answer within {timeout:g}s")
        answers = {"entries": {"output": {"entries": []}},
                   "context": {"rejected": {"message": "Invalid array length"}}}
        return {"seq": request["seq"],
                "results": {stage: answers[stage] for stage in request["stages"]}}

    def restart(self) -> None:
        self.restarts += 1


def session_with(corpus: Corpus, fake: FakeReference) -> regenerate.ReferenceSession:
    session = regenerate.ReferenceSession.__new__(regenerate.ReferenceSession)
    session.corpus, session.impl, session.seq = corpus, fake, 0  # type: ignore[assignment]
    return session


def test_misbehaving_case_is_asked_stage_by_stage_isolated_under_a_one_second_cap(
        tmp_path: Path):
    corpus = make_corpus(tmp_path, "reference-misbehaves")
    fake = FakeReference()
    results = session_with(corpus, fake).answer(corpus.cases[0], ["entries", "branch", "context"])
    assert regenerate.MISBEHAVES_TIMEOUT <= 1.0
    assert fake.calls == [(["entries"], regenerate.MISBEHAVES_TIMEOUT, True),
                          (["branch"], regenerate.MISBEHAVES_TIMEOUT, True),
                          (["context"], regenerate.MISBEHAVES_TIMEOUT, True)]
    assert results["entries"] == {"output": {"entries": []}}
    assert results["branch"]["misbehaved"]["kind"] == "timeout"
    assert results["context"] == {"rejected": {"message": "Invalid array length"}}
    assert fake.restarts == 0  # the isolated process is gone; the reference was not touched


def test_a_hang_in_a_required_case_is_an_error(tmp_path: Path):
    corpus = make_corpus(tmp_path, "required")
    fake = FakeReference()
    with pytest.raises(ConformanceError, match=r"the reference failed on branch\.loop"):
        session_with(corpus, fake).answer(corpus.cases[0], ["entries", "branch"])
    assert fake.calls == [(["entries", "branch"], regenerate.REFERENCE_TIMEOUT, False)]


@pytest.mark.parametrize(("outcome", "golden", "answer", "same"), [
    ("reference-misbehaves", "rejected", "misbehaved", True),
    ("reference-misbehaves", "misbehaved", "rejected", True),
    ("reference-misbehaves", "output", "rejected", False),
    ("required", "rejected", "misbehaved", False),
    ("implementation-defined", "misbehaved", "rejected", False),
    ("required", "output", "output", True),
])
def test_same_verdict(tmp_path: Path, outcome: str, golden: str, answer: str, same: bool):
    case = make_corpus(tmp_path, outcome).cases[0]
    assert regenerate.same_verdict(case, golden, answer) is same


def test_staleness_keeps_fresh_goldens_and_names_what_changed(tmp_path: Path):
    from conformance.corpus.goldens import Golden, write_golden

    corpus = make_corpus(tmp_path, "required")
    case = corpus.cases[0]
    fresh = {"generator": "g", "command": "c", "reference": {"pi": "1.6.0"},
             "lock_sha256": "l", "harness_sha256": "h", "input_sha256": case.input_sha256()}
    # A migration's random ids differ from one run to the next: recorded volatile, still fresh.
    volatile = {"$.output.entries[0].id": "id-1"}
    stored = {"output": {"entries": [{"id": "1a2b3c4d", "parentId": None}]}}
    write_golden(case, Golden("entries", stored, fresh, volatile))
    again = {"output": {"entries": [{"id": "9f8e7d6c", "parentId": None}]}}
    assert regenerate.staleness(case, "entries", again, volatile, fresh) == []

    changed = {"output": {"entries": [{"id": "9f8e7d6c", "parentId": "x"}]}}
    (problem,) = regenerate.staleness(case, "entries", changed, volatile, fresh)
    assert problem.reason == "the reference's output changed"
    assert [(d.path, d.expected, d.actual) for d in problem.differences] == [
        ("$.output.entries[0].parentId", None, "x")]

    newer = {**fresh, "harness_sha256": "h2"}
    (problem,) = regenerate.staleness(case, "entries", again, volatile, newer)
    assert problem.reason == "provenance harness_sha256 is out of date"
    assert "missing golden for stage branch" in \
        regenerate.staleness(case, "branch", again, volatile, fresh)[0].reason


def test_check_fails_on_a_volatile_path_not_recorded_or_no_longer_varying(tmp_path: Path):
    from conformance.corpus.goldens import Golden, write_golden

    corpus = make_corpus(tmp_path, "required")
    case = corpus.cases[0]
    fresh = {"generator": "g", "command": "c", "reference": {"pi": "1.6.0"},
             "lock_sha256": "l", "harness_sha256": "h", "input_sha256": case.input_sha256()}
    stored = {"output": {"header": {"id": "0199aa", "timestamp": "2026-01-01T00:00:00.000Z"}}}
    write_golden(case, Golden("entries", stored, fresh, {"$.output.header.id": "id-1"}))
    both = {"$.output.header.id": "id-1", "$.output.header.timestamp": "timestamp-2"}
    (problem,) = regenerate.staleness(case, "entries", stored, both, fresh)
    assert problem.reason == ("varies between runs but is not recorded as volatile: "
                              "$.output.header.timestamp")
    (problem,) = regenerate.staleness(case, "entries", stored, {}, fresh)
    assert problem.reason == "recorded as volatile but no longer varies: $.output.header.id"


class VaryingReference:
    """Answers like Pi on a migration: fresh ids per run, one reused as the next parentId."""

    def __init__(self, run: int) -> None:
        self.run_number = run

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        first, second = f"{self.run_number:08x}", f"{self.run_number + 100:08x}"
        entries = [{"id": first, "parentId": None, "text": "same"},
                   {"id": second, "parentId": first, "text": "same"}]
        return {"seq": request["seq"],
                "results": {stage: {"output": {"entries": entries}}
                            for stage in request["stages"]}}


def test_runs_give_the_first_answer_and_the_paths_that_varied_grouped(tmp_path: Path):
    corpus = make_corpus(tmp_path, "required")
    runs = regenerate.ReferenceRuns.__new__(regenerate.ReferenceRuns)
    runs.sessions = [session_with(corpus, VaryingReference(n)) for n in (1, 2, 3)]  # type: ignore[arg-type]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(3) as runs.pool:
        results, volatile = runs.answer(corpus.cases[0])
    assert results["entries"]["output"]["entries"][0]["id"] == "00000001"
    assert volatile["entries"] == {
        "$.output.entries[0].id": "id-1", "$.output.entries[1].parentId": "id-1",
        "$.output.entries[1].id": "id-2"}
    assert set(volatile) == {"entries", "branch", "context"}
