"""Regeneration's handling of cases on which Pi misbehaves (no reference needed: a fake)."""

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
        f'outcome = "{outcome}"\nstages = ["entries", "branch", "context"]\n')
    return Corpus(root)


class FakeReference:
    """Answers entries, rejects context, hangs on branch; records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], float]] = []
        self.restarts = 0

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        self.calls.append((request["stages"], timeout))
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


def test_misbehaving_case_is_asked_stage_by_stage_under_the_short_timeout(tmp_path: Path):
    corpus = make_corpus(tmp_path, "reference-misbehaves")
    fake = FakeReference()
    results = session_with(corpus, fake).answer(corpus.cases[0], ["entries", "branch", "context"])
    assert fake.calls == [(["entries"], regenerate.MISBEHAVES_TIMEOUT),
                          (["branch"], regenerate.MISBEHAVES_TIMEOUT),
                          (["context"], regenerate.MISBEHAVES_TIMEOUT)]
    assert results["entries"] == {"output": {"entries": []}}
    assert results["branch"]["misbehaved"]["kind"] == "timeout"
    assert results["context"] == {"rejected": {"message": "Invalid array length"}}
    assert fake.restarts == 1


def test_a_hang_in_a_required_case_is_an_error(tmp_path: Path):
    corpus = make_corpus(tmp_path, "required")
    fake = FakeReference()
    with pytest.raises(ConformanceError, match=r"the reference failed on branch\.loop"):
        session_with(corpus, fake).answer(corpus.cases[0], ["entries", "branch"])
    assert fake.calls == [(["entries", "branch"], regenerate.REFERENCE_TIMEOUT)]


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
    from conformance.corpus.normalization import input_strings

    corpus = make_corpus(tmp_path, "required")
    case = corpus.cases[0]
    fresh = {"generator": "g", "command": "c", "reference": {"pi": "1.6.0"},
             "lock_sha256": "l", "harness_sha256": "h", "input_sha256": case.input_sha256()}
    # A migration's random ids differ from one regeneration to the next: still fresh.
    stored = {"output": {"entries": [{"id": "1a2b3c4d", "parentId": None}]}}
    write_golden(case, Golden("entries", stored, fresh))
    known = input_strings(case.session_bytes())
    again = {"output": {"entries": [{"id": "9f8e7d6c", "parentId": None}]}}
    assert regenerate.staleness(case, "entries", again, known, fresh) == []

    changed = {"output": {"entries": [{"id": "9f8e7d6c", "parentId": "x"}]}}
    (problem,) = regenerate.staleness(case, "entries", changed, known, fresh)
    assert problem.reason == "the reference's output changed"
    assert problem.differences[0].path == "$.entries[0].parentId"

    newer = {**fresh, "harness_sha256": "h2"}
    (problem,) = regenerate.staleness(case, "entries", again, known, newer)
    assert problem.reason == "provenance harness_sha256 is out of date"
    assert "missing golden for stage branch" in \
        regenerate.staleness(case, "branch", again, known, fresh)[0].reason
