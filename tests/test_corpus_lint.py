"""``Corpus.lint``: what ``pi-conformance corpus check`` reports before asking the reference."""

from __future__ import annotations

from pathlib import Path

from conformance.corpus.cases import Corpus
from tests.corpus_builder import CLAUSES, write_corpus


def problems(tmp_path: Path, clauses: str, case_body: str) -> list[str]:
    root = write_corpus(tmp_path, clauses, {"area/a": case_body})
    return [p.describe() for p in Corpus(root).lint()]


def messages(found: list[str]) -> str:
    return "\n".join(found)


def test_unknown_clause_is_reported_with_the_case_file(tmp_path: Path):
    found = problems(tmp_path, CLAUSES,
                     'features = ["basic"]\nclauses = ["demo/nope"]\nstages = ["entries"]\n')
    assert any("unknown clause 'demo/nope'" in p and p.endswith(
        "case.toml: unknown clause 'demo/nope' (not in clauses/*.toml)") for p in found), found


def test_citing_an_excluded_rule_is_reported(tmp_path: Path):
    found = problems(tmp_path, CLAUSES,
                     'features = ["basic"]\nclauses = ["demo/where"]\nstages = ["entries"]\n')
    assert "clause 'demo/where' is excluded from the catalogue (no stage sees it)" \
        in messages(found)


def test_clause_ids_must_carry_their_file_stem(tmp_path: Path):
    clauses = '[clauses."other/rule"]\ndoc = "code"\nsection = "S"\ntext = "t"\n'
    found = problems(tmp_path, clauses, 'features = ["basic"]\nstages = ["entries"]\n')
    assert "clause id 'other/rule' must be demo/<slug> in this file" in messages(found)
    assert any("demo.toml" in p for p in found)


def test_clause_fields_are_required(tmp_path: Path):
    clauses = '[clauses."demo/bare"]\ndoc = "code"\nsection = ""\n'
    found = messages(problems(tmp_path, clauses, 'features = ["basic"]\nstages = ["entries"]\n'))
    assert "clause 'demo/bare' needs a non-empty section" in found
    assert "clause 'demo/bare' needs a non-empty text" in found


def test_a_rule_cannot_be_both_clause_and_excluded(tmp_path: Path):
    clauses = CLAUSES + '\n[excluded."demo/one"]\ndoc = "d"\nsection = "s"\nreason = "r"\n'
    found = problems(tmp_path, clauses, 'features = ["basic"]\nstages = ["entries"]\n')
    assert "'demo/one' is both a clause and excluded" in messages(found)


def test_a_clean_case_only_misses_its_golden(tmp_path: Path):
    found = problems(tmp_path, CLAUSES,
                     'features = ["basic"]\nclauses = ["demo/one"]\nstages = ["entries"]\n')
    assert len(found) == 1 and "missing golden for stage entries" in found[0]


def test_shipped_catalogue_is_clean():
    assert Corpus().lint_catalogue() == []
