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
    scope = extra.pop("scope", {"context": ("$",)} if outcome != "required" else {})
    return Case(id="x.y", title="t", directory=Path("/nowhere"), features=("f",),
                outcome=outcome, scope=scope, **extra)


def verdict(outcome: str, golden: dict, answer: dict, stage: str = "context", **extra: Any):
    return judge(case(outcome, **extra), stage, parse_answer(answer),
                 Golden(stage, golden, {}))


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


CLASSES = [("pi-contradicts-docs", CONTRADICTS, "as-documented"),
           ("implementation-defined", {}, "info"),
           ("pi-throws-on-valid-input", {"reason": "r"}, "as-documented"),
           ("reference-misbehaves", {}, "info")]
# What each class forgives inside its scope: a different output, or for Pi throwing on
# valid input, an answer where Pi rejects; where Pi misbehaves, anything.
FORGIVEN = {"pi-contradicts-docs": (OUTPUT, OTHER), "implementation-defined": (OUTPUT, OTHER),
            "pi-throws-on-valid-input": (REJECTED, OUTPUT),
            "reference-misbehaves": ({"misbehaved": {"kind": "timeout", "detail": "d"}}, OTHER)}


@pytest.mark.parametrize(("outcome", "extra", "status"), CLASSES)
def test_a_class_applies_inside_its_scope(outcome, extra, status):
    golden, answer = FORGIVEN[outcome]
    assert verdict(outcome, golden, answer, **extra).status == status


@pytest.mark.parametrize(("outcome", "extra", "status"), CLASSES)
def test_a_planted_difference_on_a_stage_outside_the_scope_fails(outcome, extra, status):
    """A wrong max_tokens on a request stage of a case whose class concerns the context."""
    golden = {"output": {"max_tokens": 4096, "messages": []}}
    wrong = {"output": {"max_tokens": 1024, "messages": []}}
    result = verdict(outcome, golden, wrong, stage="request.anthropic-messages", **extra)
    assert result.status == "fail", result
    assert "does not cover this (request.anthropic-messages is outside it" in result.message
    assert [d.path for d in result.differences] == ["$.max_tokens"]
    assert verdict(outcome, golden, golden, stage="request.anthropic-messages",
                   **extra).status == "pass"


@pytest.mark.parametrize(("outcome", "extra", "status"),
                         [c for c in CLASSES if c[0] in ("pi-contradicts-docs",
                                                        "implementation-defined")])
def test_a_difference_on_a_path_outside_a_scoped_stage_fails(outcome, extra, status):
    """The class concerns $.totalMessages of stats: a wrong token count there still fails,
    and so does a rejection (the whole stage is not in scope)."""
    scope = {"stats": ("$.totalMessages",)}
    golden = {"output": {"totalMessages": 4, "tokens": {"input": 10}}}
    docs = {"output": {"totalMessages": 2, "tokens": {"input": 10}}}
    wrong = {"output": {"totalMessages": 2, "tokens": {"input": 11}}}
    assert verdict(outcome, golden, docs, stage="stats", scope=scope, **extra).status == status
    result = verdict(outcome, golden, wrong, stage="stats", scope=scope, **extra)
    assert result.status == "fail" and "1 of them outside it, first at $.tokens.input" \
        in result.message
    rejected = verdict(outcome, golden, REJECTED, stage="stats", scope=scope, **extra)
    assert rejected.status == "fail" and "the whole stage is not" in rejected.message


def test_list_indices_in_a_scope_match_any_index_and_cover_what_is_under_them():
    from conformance.judging.scope import covers

    assert covers(["$.entries[*].firstKeptEntryId"], "$.entries[3].firstKeptEntryId")
    assert not covers(["$.entries[*].firstKeptEntryId"], "$.entries[3].id")
    assert covers(["$.messages"], "$.messages[1].content[0].text")
    assert not covers(["$.messages"], "$.messagesCount")
    assert covers(["$"], "$.anything[2]")


def test_where_pi_misbehaves_on_one_stage_the_others_it_answers_are_required():
    """branch.parent-cycle: Pi loops on the branch, but loads the entries."""
    entries = {"output": {"entries": [{"id": "p1"}, {"id": "p2"}]}}
    dropped = {"output": {"entries": [{"id": "p1"}]}}
    result = verdict("reference-misbehaves", entries, dropped, stage="entries",
                     scope={"branch": ("$",)})
    assert result.status == "fail"


def test_every_shipped_case_with_a_class_scopes_it_to_stages_it_has():
    from conformance.corpus.cases import Corpus

    corpus = Corpus()
    classed = [c for c in corpus.cases if c.outcome != "required"]
    assert len(classed) >= 26 and all(c.scope for c in classed)
    assert [p.describe() for c in classed for p in corpus.lint_scope(c)] == []
    # No class covers a whole case any more where Pi's answers show otherwise.
    assert sum(set(c.scope) == set(c.stages) and all(v == ("$",) for v in c.scope.values())
               for c in classed) <= 2  # parse.utf8-bom: Pi rejects the whole file


def test_a_run_shows_as_documented_in_every_renderer_and_the_matrix(corpus_dir: Path, fake):
    from helpers import run_spec
    from report_fixtures import build

    from conformance.corpus.cases import Corpus
    from conformance.corpus.selection import Selection
    from conformance.reporting import matrix
    from conformance.reporting.renderers import RENDERERS

    meta = corpus_dir / "cases" / "small" / "alpha" / "case.toml"
    meta.write_text(meta.read_text() + 'outcome = "pi-contradicts-docs"\ndiscrepancy = "demo"\n'
                    'reason = "the docs say system, Pi says otherwise"\n'
                    '[scope]\ncontext = ["$.messages"]\n')
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
