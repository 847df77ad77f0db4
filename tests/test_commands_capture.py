"""``pi-conformance corpus capture``: record into a corpus, then --check finds nothing or the
change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance._paths import corpus_root
from conformance.cli.main import main

SCENARIO = "completions-text"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "cases").mkdir(parents=True)
    shutil.copytree(corpus_root() / "features", root / "features")
    shutil.copytree(corpus_root() / "clauses", root / "clauses")
    shutil.copy(corpus_root() / "models.json", root / "models.json")
    (root / "captures" / SCENARIO).mkdir(parents=True)
    shutil.copy(corpus_root() / "captures" / SCENARIO / "scenario.toml",
                root / "captures" / SCENARIO / "scenario.toml")
    return root


def test_an_unknown_scenario_is_a_clear_error(small_corpus: Path):
    result = invoke("corpus", "capture", "nope", "--corpus", str(small_corpus))
    assert result.exit_code == 2
    assert "no scenario 'nope' (have: completions-text)" in result.output


@pytest.mark.slow
@pytest.mark.reference
def test_record_then_check_then_a_changed_script_is_stale(small_corpus: Path):
    recorded = invoke("corpus", "capture", "--corpus", str(small_corpus))
    assert recorded.exit_code == 0, recorded.output
    capture_dir = small_corpus / "captures" / SCENARIO
    case_dir = small_corpus / "cases" / "captured" / SCENARIO
    assert (capture_dir / "requests.jsonl").is_file()
    assert (case_dir / "expected" / "context.json").is_file()  # written by the harness
    assert (case_dir / "expected" / "events.json").is_file()  # written from get_entries
    # byte for byte what the shipped corpus holds: the recording is reproducible
    for name in ("session.jsonl", "events.jsonl", "get_messages.json", "requests.jsonl"):
        assert (capture_dir / name).read_bytes() == \
            (corpus_root() / "captures" / SCENARIO / name).read_bytes()
    assert invoke("corpus", "capture", "--check", "--corpus", str(small_corpus)).exit_code == 0

    scenario = capture_dir / "scenario.toml"
    scenario.write_text(scenario.read_text().replace("How can I help?", "What now?"))
    stale = invoke("corpus", "capture", "--check", "--corpus", str(small_corpus))
    assert stale.exit_code == 1
    assert "session.jsonl: differs" in stale.output
    assert "What now?" in stale.output
    lint = invoke("corpus", "check", "--lint-only", "--corpus", str(small_corpus))
    assert lint.exit_code == 0, lint.output


@pytest.mark.reference
def test_a_script_with_a_turn_pi_never_asks_for_is_refused(small_corpus: Path):
    scenario = small_corpus / "captures" / SCENARIO / "scenario.toml"
    scenario.write_text(scenario.read_text() + '\n[[turns]]\nblocks = [{type = "text", '
                                               'text = "never asked"}]\n')
    result = invoke("corpus", "capture", "--corpus", str(small_corpus))
    assert result.exit_code == 2
    assert "scripts 2 turn(s) but Pi sent 1 request(s)" in result.output
    assert "scenario.toml" in result.output
