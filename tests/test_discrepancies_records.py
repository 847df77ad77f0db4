"""Discrepancy records: loading, linting, and deciding open or resolved against the real Pi."""

from __future__ import annotations

import dataclasses

import pytest

from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.errors import CorpusError
from conformance.maintenance.discrepancies import records
from conformance.maintenance.discrepancies.shipped_docs import ShippedDocs


@pytest.fixture(scope="module")
def corpus():
    return Corpus()


@pytest.fixture(scope="module")
def all_records(corpus):
    return records.load_records(corpus)


def test_every_record_is_valid_and_cites_cases_the_corpus_has(corpus, all_records):
    assert len(all_records) >= 9
    assert records.lint(corpus, all_records) == []
    kinds = {r.kind for r in all_records}
    assert kinds == {"contradiction", "undocumented-rule", "doc-type-mismatch"}


def test_a_malformed_record_names_its_file(tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text('id = "broken"\ntitle = "t"\nkind = "opinion"\n')
    with pytest.raises(CorpusError, match=r"broken\.toml.*invalid discrepancy record"):
        records.load_record(bad)


def test_the_id_must_be_the_file_name(tmp_path, all_records):
    text = all_records[0].path.read_text()
    moved = tmp_path / "elsewhere.toml"
    moved.write_text(text)
    with pytest.raises(CorpusError, match="must equal the file name"):
        records.load_record(moved)


def test_lint_reports_an_unknown_case(corpus, all_records):
    doctored = dataclasses.replace(all_records[0], cases=("no.such-case",),
                                   check={**all_records[0].check, "case": "no.such-case"})
    problems = records.lint(corpus, [doctored])
    assert any("unknown case 'no.such-case'" in str(p) for p in problems)


class FakeDocs(ShippedDocs):
    """Docs with the given files' text, for the logic without an installation."""

    def __init__(self, files: dict[str, str]):
        object.__setattr__(self, "root", None)
        object.__setattr__(self, "version", "9.9.9")
        object.__setattr__(self, "files", files)

    def text(self, file):
        return self.files.get(file)

    def contains(self, file, quote):
        return quote in self.files.get(file, "")

    def section_mentions(self, file, section, phrase):
        return phrase.lower() in self.files.get(file, "").lower()


def _record(all_records, record_id):
    return next(r for r in all_records if r.id == record_id)


def test_status_from_behaviour_and_docs(all_records):
    record = _record(all_records, "compaction-without-checkpoint")
    output = {"messages": [{"role": "compactionSummary"}]}
    claims = FakeDocs({record.doc["file"]: record.doc["quote"]})
    verdict = records.evaluate(record, output, claims, "golden")
    assert (verdict.status, verdict.behaviour, verdict.docs) == ("open", "as-recorded", "claims")
    fixed = records.evaluate(record, {"messages": [{"role": "system"}]}, claims, "golden")
    assert (fixed.status, fixed.how, fixed.version) == ("resolved", "behaviour", "9.9.9")
    withdrawn = records.evaluate(record, output, FakeDocs({}), "golden")
    assert (withdrawn.status, withdrawn.how) == ("resolved", "docs")
    odd = records.evaluate(record, {"messages": [{"role": "custom"}]}, claims, "golden")
    assert odd.stale and odd.status == "open"
    assert "review the record" in records.expectation_problem(record, odd)


def test_an_undocumented_rule_is_resolved_once_the_docs_mention_it(all_records):
    record = _record(all_records, "leaf-is-last-line")
    output = {"leafId": "l1"}
    silent = records.evaluate(record, output, FakeDocs({record.doc["file"]: "nothing"}), "golden")
    assert (silent.status, silent.docs) == ("open", "silent")
    told = FakeDocs({record.doc["file"]: "On load the leaf is the LAST ENTRY of the file."})
    documented = records.evaluate(record, output, told, "golden")
    assert (documented.status, documented.how) == ("resolved", "docs")
    assert "no longer reproduces" in records.expectation_problem(record, documented)


@pytest.mark.reference
def test_records_hold_against_the_real_pi_and_its_shipped_docs(corpus, all_records):
    """Every record's check, on a fresh run of the real Pi: open, or resolved as recorded."""
    from conformance.maintenance.regenerate import ReferenceSession

    docs = ShippedDocs.of_reference()
    cases = {c.id: c for c in corpus.cases}
    with ReferenceSession(corpus) as reference:
        for record in all_records:
            stage = record.check["stage"]
            answer = reference.answer(cases[record.check["case"]], [stage])[stage]
            verdict = records.evaluate(record, answer["output"], docs, "reference")
            assert records.expectation_problem(record, verdict) is None, record.id
            assert verdict.status == ("resolved" if record.resolved else "open"), record.id
            # A doctored record whose doc value is what Pi does is reported resolved.
            doctored = dataclasses.replace(
                record, check={k: v for k, v in record.check.items()
                               if not k.startswith("doc_")} | {"doc_json": _json(
                                   verdict.observed)})
            again = records.evaluate(doctored, answer["output"], docs, "reference")
            assert (again.status, again.how) == ("resolved", "behaviour"), record.id
            if record.resolved is None:
                assert "no longer reproduces" in records.expectation_problem(doctored, again)


def _json(value):
    import json

    return json.dumps(value)


@pytest.mark.reference
def test_quotes_of_open_records_are_in_the_docs_pi_ships(all_records):
    docs = ShippedDocs.of_reference()
    for record in all_records:
        if record.resolved is None:
            assert docs.contains(record.doc["file"], record.doc["quote"]), record.id
        goldens_case = record.check["case"]
        assert goldens_case in record.cases


def test_goldens_agree_with_every_record(corpus, all_records):
    """Evaluated from the goldens (no Pi run), every record is as its data says."""
    cases = {c.id: c for c in corpus.cases}
    for record in all_records:
        output = read_golden(cases[record.check["case"]], record.check["stage"]).result["output"]
        docs = FakeDocs({} if record.resolved else {
            record.doc["file"]: record.doc["quote"]})
        verdict = records.evaluate(record, output, docs, "golden")
        assert verdict.behaviour == "as-recorded", record.id
