"""Loading the corpus refuses what would make a run judge the wrong thing: a case id twice, a
case file that is a link or a FIFO, an id that only looks valid."""

from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.cases import Corpus
from conformance.errors import CorpusError


def run(corpus_dir, fake) -> str:
    result = CliRunner().invoke(main, ["run", "--impl", fake("correct"), "--corpus",
                                       str(corpus_dir), "-q"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    return result.output


def test_a_duplicate_case_id_is_refused_at_load_naming_both_directories(corpus_dir, fake):
    cases = corpus_dir / "cases" / "small"
    shutil.copytree(cases / "alpha", cases / "alpha-again")
    output = run(corpus_dir, fake)
    assert "duplicate case id 'small.alpha'" in output
    assert str(cases / "alpha") in output and str(cases / "alpha-again") in output
    with pytest.raises(CorpusError, match="duplicate case id"):
        _ = Corpus(corpus_dir).cases


@pytest.mark.parametrize("name", ["session.jsonl", "case.toml", "expected/context.json"])
def test_a_case_file_that_is_a_symlink_is_refused(corpus_dir, fake, name):
    path = corpus_dir / "cases" / "small" / "beta" / name
    target = corpus_dir / "cases" / "small" / "alpha" / name  # inside the corpus, even
    path.unlink()
    path.symlink_to(target)
    output = run(corpus_dir, fake)
    assert f"{path}: a symbolic link" in output
    problems = [p.describe() for p in Corpus(corpus_dir).lint()]
    assert any(f"{path}: a symbolic link" in p for p in problems), problems


def test_a_session_linked_outside_the_corpus_is_never_read(corpus_dir, fake):
    path = corpus_dir / "cases" / "small" / "beta" / "session.jsonl"
    path.unlink()
    path.symlink_to("/etc/passwd")
    assert f"{path}: a symbolic link" in run(corpus_dir, fake)


def test_a_case_file_that_is_a_fifo_is_refused_without_opening_it(corpus_dir, fake):
    path = corpus_dir / "cases" / "small" / "beta" / "session.jsonl"
    path.unlink()
    os.mkfifo(path)
    assert f"{path}: not a regular file (a FIFO)" in run(corpus_dir, fake)


def test_a_case_id_ending_in_a_newline_is_refused(corpus_dir, fake):
    meta = corpus_dir / "cases" / "small" / "beta" / "case.toml"
    meta.write_text(meta.read_text().replace('id = "small.beta"', 'id = "small.beta\\n"'))
    output = run(corpus_dir, fake)
    assert f"{meta}" in output and "invalid metadata at id" in output


def test_a_models_json_without_a_model_for_an_api_a_case_asks_is_a_corpus_error(tmp_path):
    """A corpus whose models.json predates an API (written before pi-ai knew it) names the
    file and the missing API, never a KeyError traceback."""
    from tests.corpus_builder import CLAUSES, write_corpus

    root = write_corpus(tmp_path / "corpus", CLAUSES, {
        "demo/one": 'features = ["basic"]\nclauses = ["demo/one"]\n'
                    'stages = ["request.mistral-conversations"]\nsource = "hand-written"\n'})
    (root / "models.json").write_text(
        '{"models": {"anthropic-messages": {"id": "m", "api": "anthropic-messages"}}}')
    corpus = Corpus(root)
    case = corpus.load_case(root / "cases" / "demo" / "one")
    with pytest.raises(CorpusError, match="no model for mistral-conversations") as raised:
        corpus.request_options(case)
    assert raised.value.path == root / "models.json"
