"""Promoting a fuzzer candidate: a corpus case whose goldens come from the reference."""

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_corpus

from conformance.cli.main import main
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.errors import ConformanceError
from conformance.maintenance.fuzz import Finding, write_candidate
from conformance.maintenance.promote import case_id_for, promote
from conformance.maintenance.regenerate import freshness

SESSION = (b'{"type":"session","version":3,"id":"s","timestamp":"2024-01-01T00:00:00.000Z",'
           b'"cwd":"/p"}\n{"type":"message","id":"00000001","parentId":null,"timestamp":'
           b'"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hi",'
           b'"timestamp":1704067201000}}\n')


@pytest.fixture
def candidate(tmp_path: Path) -> Path:
    finding = Finding(SESSION, "stats changed $.n", {"stats": "1 difference"})
    return write_candidate(finding, tmp_path / "out", "port", "pi-conformance fuzz",
                           ["entries", "stats"])


def test_ids_default_to_the_candidates_slug_in_the_area():
    assert case_id_for(None, "fuzz.fuzz-abc", "fuzz") == "fuzz.fuzz-abc"
    assert case_id_for("stats-reasoning", "fuzz.x", "usage") == "usage.stats-reasoning"
    assert case_id_for("usage.twice", "fuzz.x", "fuzz") == "usage.twice"
    with pytest.raises(ConformanceError, match=r"area\.slug"):
        case_id_for("Bad Id", "fuzz.x", "fuzz")
    with pytest.raises(ConformanceError, match="--area"):
        case_id_for("slug", "fuzz.x", "Not An Area")


@pytest.mark.reference
def test_promote_copies_the_input_and_writes_goldens_from_pi(tmp_path: Path, candidate: Path):
    corpus = Corpus(make_corpus(tmp_path / "corpus"))
    case = promote(candidate, corpus, "usage.found-by-fuzzing")
    assert case.directory == corpus.root / "cases" / "usage" / "found-by-fuzzing"
    assert case.session_path.read_bytes() == SESSION
    assert case.stages == ("entries", "stats")
    golden = read_golden(case, "stats")
    assert golden.result["output"]["userMessages"] == 1
    assert golden.provenance["input_sha256"] == case.input_sha256()
    fresh = Corpus(corpus.root)
    assert [p for p in fresh.lint() if p.path and "usage" in p.path.parts] == []
    assert list(freshness(fresh, fresh.select(["usage.*"]))) == []


@pytest.mark.reference
def test_promote_refuses_an_id_already_taken(tmp_path: Path, candidate: Path):
    corpus = Corpus(make_corpus(tmp_path / "corpus"))
    with pytest.raises(ConformanceError, match=r"already has a case small\.alpha"):
        promote(candidate, corpus, "small.alpha")


def test_promote_refuses_a_directory_that_is_not_a_candidate(tmp_path: Path):
    corpus = Corpus(make_corpus(tmp_path / "corpus"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConformanceError, match=r"missing case\.toml"):
        promote(tmp_path / "empty", corpus)


@pytest.mark.reference
def test_the_promote_command(tmp_path: Path, candidate: Path):
    root = make_corpus(tmp_path / "corpus")
    result = CliRunner().invoke(main, ["corpus", "promote", str(candidate), "--id",
                                       "reasoning-once", "--area", "usage", "--corpus", str(root)])
    assert result.exit_code == 0, result.output
    assert (root / "cases" / "usage" / "reasoning-once" / "expected" / "stats.json").is_file()
    again = CliRunner().invoke(main, ["corpus", "promote", str(candidate), "--id",
                                      "usage.reasoning-once", "--corpus", str(root)])
    assert again.exit_code == 2 and "already has a case" in again.output
