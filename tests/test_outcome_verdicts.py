"""The verdict by outcome class: what an answer that differs from Pi's means."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.corpus.answers import parse_answer
from conformance.corpus.cases import Case
from conformance.corpus.goldens import Golden
from conformance.judging.judge import judge

OUTPUT = {"output": {"messages": [{"role": "user", "content": "hi"}]}}
OTHER = {"output": {"messages": [{"role": "branchSummary", "summary": ""},
                                 {"role": "user", "content": "hi"}]}}
REJECTED = {"rejected": {"message": "Unexpected token 'o', \"not-json\" is not valid JSON"}}


def case(outcome: str, **extra: Any) -> Case:
    return Case(id="x.y", title="t", directory=Path("/nowhere"), features=("f",),
                outcome=outcome, **extra)


def verdict(outcome: str, golden: dict, answer: dict, **extra: Any):
    return judge(case(outcome, **extra), "context", parse_answer(answer),
                 Golden("context", golden, {}))


CONTRADICTS = {"discrepancy": "branch-summary-empty-dropped", "reason": "r"}


def test_matching_pi_passes_in_every_class():
    for outcome, extra in [("required", {}), ("pi-contradicts-docs", CONTRADICTS),
                           ("pi-throws-on-valid-input", {"reason": "r"})]:
        assert verdict(outcome, OUTPUT, OUTPUT, **extra).status == "pass"
    assert verdict("pi-throws-on-valid-input", REJECTED, {"rejected": {"message": "no"}},
                   reason="r").status == "pass"


def test_where_pi_contradicts_its_docs_a_different_answer_is_as_documented_with_its_diff():
    result = verdict("pi-contradicts-docs", OUTPUT, OTHER, **CONTRADICTS)
    assert result.status == "as-documented"
    assert result.differences  # the differences are shown, not hidden
    assert "corpus/discrepancies/branch-summary-empty-dropped.toml" in result.message
    assert verdict("required", OUTPUT, OTHER).status == "fail"


def test_where_pi_throws_on_valid_input_answering_it_is_as_documented():
    result = verdict("pi-throws-on-valid-input", REJECTED, OUTPUT, reason="r")
    assert result.status == "as-documented"
    assert "Pi throws on input its docs call valid" in result.message
    assert verdict("required", REJECTED, OUTPUT).status == "fail"


def test_where_pi_throws_the_stages_pi_answers_stay_required():
    assert verdict("pi-throws-on-valid-input", OUTPUT, OTHER, reason="r").status == "fail"
    assert verdict("pi-throws-on-valid-input", OUTPUT, REJECTED, reason="r").status == "fail"


def test_errors_stay_errors_in_every_class():
    error = {"error": {"message": "boom"}}
    for outcome in ("pi-contradicts-docs", "pi-throws-on-valid-input"):
        assert verdict(outcome, OUTPUT, error, **CONTRADICTS).status == "error"


@pytest.mark.parametrize("golden", [
    REJECTED, {"misbehaved": {"kind": "timeout", "detail": "no answer within 1s"}}])
@pytest.mark.parametrize("answer", [OUTPUT, REJECTED, {"rejected": {"message": "other"}}])
def test_where_pi_misbehaves_the_verdict_never_depends_on_the_answer(golden, answer):
    result = verdict("reference-misbehaves", golden, answer)
    assert result.status == "info"
    assert "not judged" in result.message


def test_a_run_shows_as_documented_in_every_renderer_and_the_matrix(corpus_dir: Path, fake):
    from helpers import run_spec
    from report_fixtures import build

    from conformance.corpus.cases import Corpus
    from conformance.corpus.selection import Selection
    from conformance.reporting import matrix
    from conformance.reporting.renderers import RENDERERS

    meta = corpus_dir / "cases" / "small" / "alpha" / "case.toml"
    meta.write_text(meta.read_text() + 'outcome = "pi-contradicts-docs"\ndiscrepancy = "demo"\n'
                    'reason = "the docs say system, Pi says otherwise"\n')
    (corpus_dir / "discrepancies").mkdir()
    (corpus_dir / "discrepancies" / "demo.toml").write_text(
        'id = "demo"\ncases = ["small.alpha"]\n[check]\ncase = "small.alpha"\n')
    corpus = Corpus(corpus_dir)
    assert corpus.lint_outcome(corpus.select(["small.alpha"])[0]) == []
    outcome = run_spec(corpus, fake("wrong", "--stage", "context"),
                       selection=Selection(stages=("context",)))
    statuses = {r.case: r.status for r in outcome.results}
    assert statuses == {"small.alpha": "as-documented", "small.beta": "fail",
                        "small.delta": "fail", "small.gamma": "fail"}
    alpha = outcome.by_key[("small.alpha", "context")]
    assert alpha.differences and alpha.outcome == "pi-contradicts-docs"

    report, _ = build(outcome.results)  # written and read back, as every consumer gets it
    assert report.status_counts().as_documented == 1
    for name, render in RENDERERS.items():
        text = render(report)
        assert "as documented" in text or "as-documented" in text or \
            '"as_documented": 1' in text, name
    cell = matrix._cell(Counter(r.status for r in outcome.results))
    assert cell["as-documented"] == 1 and cell["fail"] == 3
