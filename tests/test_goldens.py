"""The goldens a run needs (corpus/goldens.py): every one checked before the run, parsed only
when its exact bytes were not checked before, and the same Golden either way."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from conformance.corpus import goldens as goldens_module
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import Goldens, read_golden
from conformance.errors import CorpusError


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))


def spy(monkeypatch, function: str, describe: Callable[..., Any]) -> list:
    """``describe(*arguments)`` of every call of goldens.``function`` from now on."""
    seen: list = []
    original = getattr(goldens_module, function)

    def recording(*arguments):
        seen.append(describe(*arguments))
        return original(*arguments)

    monkeypatch.setattr(goldens_module, function, recording)
    return seen


@pytest.fixture
def parsed(monkeypatch) -> list[tuple[str, str]]:
    """The golden files parsed from now on, as (case directory, stage)."""
    return spy(monkeypatch, "parse_golden", lambda raw, path, stage: (path.parent.parent.name,
                                                                     stage))


def wanted(corpus: Corpus) -> list:
    return [(case, stage) for case in corpus.cases for stage in case.stages]


def checked(corpus: Corpus, pairs=None) -> Goldens:
    goldens = Goldens()
    goldens.check(wanted(corpus) if pairs is None else pairs, corpus.root)
    return goldens


def test_goldens_checked_before_are_neither_read_nor_parsed_until_judged_and_judge_the_same(
        corpus, parsed, reads):
    cold = checked(corpus)
    assert len(parsed) == len(reads) == len(wanted(corpus))
    parsed.clear()
    reads.clear()
    warm = checked(corpus)
    assert parsed == [] and reads == []
    for case, stage in wanted(corpus):
        assert warm[(case.id, stage)] == cold[(case.id, stage)]
    assert len(reads) == len(wanted(corpus))  # each read once, when judged
    for case, stage in wanted(corpus):
        assert warm[(case.id, stage)] == read_golden(case, stage)


def test_a_golden_changed_after_its_check_is_checked_again(corpus, parsed):
    checked(corpus)
    case = corpus.cases[0]
    path = case.expected_path("context")
    path.write_text(path.read_text().replace('"stage"', '"stage" ', 1))  # same JSON
    parsed.clear()
    checked(corpus)
    assert parsed == [(case.directory.name, "context")]


def test_a_golden_broken_after_its_check_is_a_corpus_error_naming_it(corpus):
    checked(corpus)
    path = corpus.cases[1].expected_path("branch")
    path.write_text(path.read_text()[:40])
    with pytest.raises(CorpusError) as caught:
        checked(corpus)
    assert caught.value.path == path
    assert "not valid JSON" in caught.value.describe()


def test_a_missing_golden_says_what_to_run(corpus):
    case = corpus.cases[2]
    case.expected_path("stats").unlink()
    with pytest.raises(CorpusError, match="missing golden for stage stats; run: "
                                          f"pi-conformance corpus regenerate {case.id}"):
        checked(corpus)


def test_a_run_of_one_case_keeps_what_the_others_checked(corpus, parsed):
    checked(corpus)
    one = corpus.cases[0]
    checked(corpus, [(one, stage) for stage in one.stages])
    parsed.clear()
    checked(corpus)
    assert parsed == []


def test_changed_checks_or_runner_version_check_everything_again(corpus, parsed,
                                                                 monkeypatch):
    checked(corpus)
    parsed.clear()
    monkeypatch.setattr(goldens_module.GoldenChecks, "_stamp_digest",
                        staticmethod(lambda: "other checks"))
    checked(corpus)
    assert len(parsed) == len(wanted(corpus))


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The golden files read from now on, by name."""
    return spy(monkeypatch, "_golden_bytes", lambda case_id, stage, path: path.name)


def test_a_golden_rewritten_with_the_same_bytes_is_read_not_parsed(corpus, reads, parsed):
    checked(corpus)
    path = corpus.cases[0].expected_path("context")
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)  # another inode, another modification time
    reads.clear()
    parsed.clear()
    checked(corpus)
    assert reads == ["context.json"] and parsed == []


def test_a_golden_changed_behind_its_signature_is_still_checked_when_judged(corpus):
    """Same size, modification time put back: the preflight cannot tell, the judge can."""
    checked(corpus)
    path = corpus.cases[1].expected_path("branch")
    status = path.stat()
    path.write_bytes(b"{" + b" " * (status.st_size - 1))
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    goldens = checked(corpus)  # vouched for by its signature
    with pytest.raises(CorpusError) as caught:
        goldens[(corpus.cases[1].id, "branch")]
    assert caught.value.path == path and "not valid JSON" in caught.value.describe()


def test_a_golden_removed_after_the_check_is_a_corpus_error_when_judged(corpus):
    goldens = checked(corpus, [(corpus.cases[2], "stats")])
    goldens = checked(corpus, [(corpus.cases[2], "stats")])  # vouched for, not read
    corpus.cases[2].expected_path("stats").unlink()
    with pytest.raises(CorpusError, match="missing golden for stage stats"):
        goldens[(corpus.cases[2].id, "stats")]


def test_a_directory_where_a_golden_belongs_is_a_corpus_error_naming_it(corpus):
    path = corpus.cases[0].expected_path("llm")
    path.unlink()
    path.mkdir()
    with pytest.raises(CorpusError, match="not a file") as caught:
        checked(corpus)
    assert caught.value.path == path
