"""Secrets of every common shape, planted in every position of a session, are gone after
``corpus promote --anonymize``: from the anonymized text, and from every file the promoted
case is made of."""

from __future__ import annotations

import json

import pytest
from conftest import FAKES, make_corpus

from conformance.corpus.cases import Corpus
from conformance.maintenance.anonymize import anonymize
from conformance.maintenance.anonymized_promotion import promote_anonymized
from conformance.maintenance.fuzz import Finding, write_candidate
from hostile.planted_secrets import SECRETS, planted_session, survivors


def test_no_planted_secret_survives_anonymizing():
    written = anonymize(planted_session())
    left = survivors(written)
    assert left == [], f"{len(left)} of {len(SECRETS)} planted secrets survived: {left}"


def test_the_anonymized_session_keeps_its_shape():
    """Every whole line still parses, and the cut last line is still cut."""
    lines = anonymize(planted_session()).split("\n")
    for line in lines[:-1]:
        json.loads(line)
    with pytest.raises(ValueError):
        json.loads(lines[-1])
    assert lines[-1]


@pytest.mark.reference
@pytest.mark.slow
def test_no_planted_secret_is_in_any_file_of_the_promoted_case(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(FAKES))
    monkeypatch.chdir(FAKES)  # python:stats_impl:buggy is found from here
    session = planted_session().encode()
    candidate = write_candidate(Finding(session, "stats", {"stats": "differs"}),
                                tmp_path / "found", "stats-double-buggy", "compare", ["stats"])
    corpus = Corpus(make_corpus(tmp_path / "corpus"))
    done = promote_anonymized(candidate, corpus, impl_spec="python:stats_impl:buggy")
    files = sorted(p for p in done.case.directory.rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"case.toml", "session.jsonl", "stats.json"}
    written = "\n".join(p.read_text(encoding="utf-8") for p in files)
    left = survivors(written)
    assert left == [], f"{len(left)} of {len(SECRETS)} planted secrets survived: {left}"
    # The candidate's name is a hash of the private session: a guess at it could be
    # confirmed against that hash, so it names nothing promoted.
    assert candidate.name not in written + str(done.case.directory) + done.case.id
