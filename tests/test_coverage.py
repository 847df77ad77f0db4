"""Coverage computed from case metadata: clauses, stages, features, APIs, outcomes."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus.cases import Corpus
from conformance.corpus.stages import ALL_STAGES
from conformance.maintenance.coverage import compute
from tests.corpus_builder import CLAUSES, write_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return Corpus(write_corpus(tmp_path, CLAUSES, {
        "area/a": 'features = ["basic"]\nclauses = ["demo/one", "demo/two"]\n',
        "area/b": 'features = ["basic"]\nclauses = ["demo/one"]\n'
                  'outcome = "implementation-defined"\nstages = ["entries", "branch"]\n'
                  '[scope]\nbranch = ["$.path"]\n',
        "area/c": 'features = ["basic"]\nclauses = ["demo/ghost"]\n'
                  'outcome = "reference-misbehaves"\n'
                  'stages = ["context", "request.openai-responses"]\n[scope]\ncontext = ["$"]\n',
    }))


def test_clauses_by_cases_and_the_uncovered_ones(corpus: Corpus):
    coverage = compute(corpus)
    assert coverage.clauses == {"demo/one": ["area.a", "area.b"], "demo/three": [],
                                "demo/two": ["area.a"]}
    assert coverage.uncovered == ["demo/three"]
    assert coverage.clauses_covered == 2
    assert coverage.unknown_clauses == {"demo/ghost": ["area.c"]}
    assert coverage.excluded == {"demo/where": "no stage sees it"}


def test_stages_apis_features_and_outcomes(corpus: Corpus):
    coverage = compute(corpus)
    assert list(coverage.stages) == list(ALL_STAGES)
    assert coverage.stages["entries"] == ["area.a", "area.b"]
    assert coverage.stages["context"] == ["area.a", "area.c"]
    assert coverage.stages["request.anthropic-messages"] == ["area.a"]
    assert coverage.apis["openai-responses"] == ["area.a", "area.c"]
    assert coverage.features == {"basic": ["area.a", "area.b", "area.c"], "extra": []}
    assert coverage.unused_features == ["extra"]
    assert coverage.outcomes == {"required": 1, "implementation-defined": 1,
                                 "reference-misbehaves": 1, "pi-throws-on-valid-input": 0,
                                 "pi-contradicts-docs": 0}


def test_json_follows_its_schema_and_carries_the_required_numbers(corpus: Corpus):
    data = compute(corpus).to_json()
    schema = jsonio.read_json(SCHEMA_DIR / "coverage.schema.json")
    jsonschema.Draft202012Validator(schema).validate(data)
    assert (data["cases"], data["clauses_total"], data["clauses_covered"]) == (3, 3, 2)
    assert data["clauses_uncovered"] == ["demo/three"]
    assert data["clauses_excluded"] == 1
    assert data["clause_files"] == {"demo.toml": {"total": 3, "covered": 2, "excluded": 1}}
    assert data["stages"]["branch"] == 2
    assert data["stages"]["request.google-generative-ai"] == 1


def test_schema_rejects_a_report_without_stage_counts(corpus: Corpus):
    data = compute(corpus).to_json()
    del data["stages"]
    schema = jsonio.read_json(SCHEMA_DIR / "coverage.schema.json")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(data)


def test_shipped_corpus_cites_every_clause():
    """The done-criterion of the clause catalogue: no rule without a case."""
    coverage = compute(Corpus())
    assert coverage.uncovered == []
    assert coverage.unknown_clauses == {}
