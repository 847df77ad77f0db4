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


def record(root: Path, name: str, cases: list[str], checked: str) -> None:
    (root / "discrepancies").mkdir(exist_ok=True)
    (root / "discrepancies" / f"{name}.toml").write_text(
        f'id = "{name}"\ncases = {cases!r}\n[check]\ncase = "{checked}"\n'.replace("'", '"'))


CONTRADICTS = ('features = ["basic"]\nstages = ["entries"]\noutcome = "pi-contradicts-docs"\n'
               'discrepancy = "leaf"\nreason = "the docs say k3, Pi says l1"\n'
               '[scope]\nentries = ["$.entries"]\n')


def lint_case(tmp_path: Path, body: str, records: dict[str, list[str]] | None = None) -> str:
    root = write_corpus(tmp_path, CLAUSES, {"area/a": body})
    for name, cited in (records or {}).items():
        record(root, name, cited, "area.a")
    return messages([p.describe() for p in Corpus(root).lint()])


def test_a_case_that_says_pi_contradicts_its_docs_is_clean_with_its_record(tmp_path: Path):
    found = lint_case(tmp_path, CONTRADICTS, {"leaf": ["area.a"]})
    assert "discrepanc" not in found and "invalid metadata" not in found, found


def test_pi_contradicts_docs_needs_a_reason_and_a_record_id(tmp_path: Path):
    found = lint_case(tmp_path, 'features = ["basic"]\nstages = ["entries"]\n'
                                'outcome = "pi-contradicts-docs"\n')
    assert "invalid metadata at (top level): 'reason' is a required property" in found
    found = lint_case(tmp_path / "2", 'features = ["basic"]\nstages = ["entries"]\n'
                                      'outcome = "pi-contradicts-docs"\nreason = "r"\n')
    assert "'discrepancy' is a required property" in found


def test_pi_throws_on_valid_input_needs_a_reason(tmp_path: Path):
    found = lint_case(tmp_path, 'features = ["basic"]\nstages = ["entries"]\n'
                                'outcome = "pi-throws-on-valid-input"\n')
    assert "'reason' is a required property" in found


def test_the_named_record_must_exist_and_cite_the_case(tmp_path: Path):
    assert "discrepancy 'leaf' is not a record under corpus/discrepancies/" in \
        lint_case(tmp_path, CONTRADICTS)
    assert "discrepancy record 'leaf' does not list this case in its cases" in \
        lint_case(tmp_path / "2", CONTRADICTS, {"leaf": ["area.other"]})


def test_the_case_a_record_checks_must_say_pi_contradicts_its_docs(tmp_path: Path):
    found = lint_case(tmp_path, 'features = ["basic"]\nstages = ["entries"]\n',
                      {"leaf": ["area.a"]})
    assert ('case area.a is where this record shows Pi contradicting its docs; give it '
            'outcome = "pi-contradicts-docs", discrepancy = "leaf" and a reason') in found


def test_shipped_discrepancy_records_and_their_cases_agree():
    corpus = Corpus()
    assert corpus.lint_records(corpus.cases) == []
    assert [corpus.lint_outcome(case) for case in corpus.cases
            if case.outcome == "pi-contradicts-docs"] == \
        [[] for case in corpus.cases if case.outcome == "pi-contradicts-docs"]


def test_a_stage_whose_input_the_case_lacks_is_reported_unless_withheld(tmp_path: Path):
    """An implementation given its input could never be judged on such a stage."""
    found = problems(tmp_path, CLAUSES, 'features = ["basic"]\nstages = ["llm", "prompt"]\n')
    assert ("the case has no golden for context, which its stages (llm) are given as input: "
            "add the stage(s), or declare them in withheld_inputs") in messages(found)
    assert any(":4: the case has no golden" in p for p in found), found  # the stages line
    withheld = problems(tmp_path / "2", CLAUSES, 'features = ["basic"]\nstages = ["llm"]\n'
                        'withheld_inputs = ["context", "entries"]\n')
    assert "has no golden for" not in messages(withheld)
    assert "withheld_inputs names entries, which no stage of the case is given" \
        in messages(withheld)


def test_every_shipped_case_has_its_stages_inputs_or_withholds_them():
    corpus = Corpus()
    assert [p.describe() for case in corpus.cases for p in corpus.lint_inputs(case)] == []


def test_an_outcome_class_without_a_scope_is_refused(tmp_path: Path):
    """A class covers what its record concerns, never a whole case by default."""
    found = lint_case(tmp_path, 'features = ["basic"]\nstages = ["entries"]\n'
                                'outcome = "implementation-defined"\n')
    assert "'scope' is a required property" in found
    required = lint_case(tmp_path / "2", 'features = ["basic"]\nstages = ["entries"]\n'
                                         '[scope]\nentries = ["$"]\n')
    assert "should not be valid" in required  # a scope without a class means nothing


def test_a_scope_names_stages_of_the_case_and_json_paths(tmp_path: Path):
    found = lint_case(tmp_path, 'features = ["basic"]\nstages = ["entries"]\n'
                                'outcome = "implementation-defined"\n[scope]\nstats = ["$"]\n')
    assert "scope names stats, which the case does not have (its stages: entries)" in found
    bad_path = lint_case(tmp_path / "2", 'features = ["basic"]\nstages = ["entries"]\n'
                                         'outcome = "implementation-defined"\n'
                                         '[scope]\nentries = ["entries"]\n')
    assert "invalid metadata at scope.entries.0" in bad_path
