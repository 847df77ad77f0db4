"""Sessions built from a seed ([generate] cases): deterministic, cached, verified, recorded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conformance.corpus.cases import Corpus
from conformance.corpus.generated import GeneratedSession
from conformance.corpus.session_generators import GENERATORS, coding_session, messy_session
from conformance.errors import CorpusError
from tests.corpus_builder import CLAUSES, write_corpus

GENERATE = '\n[generate]\ngenerator = "coding-session"\nseed = 7\nentries = 300\n'


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(cache))
    return cache


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_generator_is_a_function_of_its_seed(name: str):
    build = GENERATORS[name].build
    assert build(3, 200) == build(3, 200)
    assert build(3, 200) != build(4, 200)


@pytest.mark.parametrize("branchy", [False, True])
def test_generated_sessions_are_whole_trees_of_the_size_asked(branchy: bool):
    lines = coding_session(11, 500, branchy=branchy).decode().splitlines()
    header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    assert header["type"] == "session" and header["version"] == 3
    assert len(entries) >= 500
    ids = {entry["id"] for entry in entries}
    assert len(ids) == len(entries)
    assert all(entry["parentId"] in ids for entry in entries[1:])
    times = [entry["timestamp"] for entry in entries]
    assert times == sorted(times)
    kinds = {entry["type"] for entry in entries}
    assert {"message", "compaction", "model_change"} <= kinds
    assert ("branch_summary" in kinds) == branchy


def test_the_messy_session_holds_every_shape_it_promises():
    """Orphan results and calls, re-appended messages, models of every API and an unknown
    one, ids of every form and duplicated within a turn: each present in one build."""
    lines = messy_session(5, 2000).decode().splitlines()
    entries = [json.loads(line) for line in lines[1:]]
    ids = [entry["id"] for entry in entries]
    assert len(set(ids)) == len(ids)  # copies are new entries, under new ids
    messages = [entry["message"] for entry in entries if entry["type"] == "message"]
    calls = [block for message in messages if message["role"] == "assistant"
             for block in message["content"] if block["type"] == "toolCall"]
    results = [message["toolCallId"] for message in messages if message["role"] == "toolResult"]
    call_ids = {call["id"] for call in calls}
    assert any(result not in call_ids for result in results)  # orphan results
    assert any(call_id not in results for call_id in call_ids)  # calls without a result
    texts = [json.dumps(message, sort_keys=True) for message in messages]
    assert len(set(texts)) < len(texts)  # the same message twice
    apis = {message["api"] for message in messages if message["role"] == "assistant"}
    assert "ollama" in apis and len(apis) >= 8
    assert any(call_id.startswith("functions.") for call_id in call_ids)
    assert any("|" in call_id for call_id in call_ids)
    turns = [[block["id"] for block in message["content"] if block["type"] == "toolCall"]
             for message in messages if message["role"] == "assistant"]
    assert any(len(set(turn)) < len(turn) for turn in turns)  # one id, two calls


def _corpus(tmp_path: Path, body: str = GENERATE) -> Corpus:
    root = write_corpus(tmp_path / "corpus", CLAUSES, {"large/one": 'features = ["basic"]\n'
                                                                     'stages = ["stats"]\n'
                                                                     'withheld_inputs = '
                                                                     '["entries"]\n' + body})
    (root / "cases" / "large" / "one" / "session.jsonl").unlink()
    return Corpus(root)


def test_the_case_session_is_built_into_the_cache_on_first_use(tmp_path: Path,
                                                                 private_cache: Path):
    case = _corpus(tmp_path).cases[0]
    assert case.generated == GeneratedSession("coding-session", 7, 300)
    expected = private_cache / "generated" / "coding-session-v1-seed7-300.jsonl"
    assert not expected.exists()
    assert case.session_path == expected
    assert expected.read_bytes() == coding_session(7, 300)
    assert case.session_bytes() == coding_session(7, 300)


def test_provenance_names_the_seed_and_the_sessions_digest(tmp_path: Path):
    generated = _corpus(tmp_path).cases[0].generated
    assert generated is not None
    assert generated.verify() is None
    assert generated.provenance()["seed"] == 7
    assert generated.provenance()["generator"] == "coding-session"
    assert generated.provenance()["sha256"] == generated.sha256()


@pytest.mark.parametrize("damage", ["truncated", "edited", "digest lost"])
def test_a_damaged_cached_session_is_built_again_before_any_use(tmp_path: Path, damage: str):
    """Never judged, nor regenerated from: the digest written beside it at build time no
    longer matches (or is gone), so the next use builds it again."""
    case = _corpus(tmp_path).cases[0]
    path = case.session_path
    good = path.read_bytes()
    digest = path.with_name(path.name + ".sha256")
    assert digest.read_text().strip() == hashlib.sha256(good).hexdigest()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "edited":
        path.write_bytes(good.replace(b'"user"', b'"USER"', 1))
    else:
        digest.unlink()
    reloaded = Corpus(case.directory.parent.parent.parent).cases[0]
    assert reloaded.session_bytes() == good == coding_session(7, 300)


def test_check_lint_only_refuses_a_golden_written_from_another_session(tmp_path: Path):
    """The goldens record the sha256 of the session they were written from; --lint-only
    compares it with a fresh build, without the reference."""
    from click.testing import CliRunner

    from conformance.cli.main import main
    from conformance.corpus.goldens import Golden, write_golden

    corpus = _corpus(tmp_path)
    case = corpus.cases[0]
    generated = case.generated
    assert generated is not None
    session = {**generated.provenance(), "sha256": "0" * 64}
    write_golden(case, Golden("stats", {"output": {}}, {"session": session}))
    done = CliRunner().invoke(main, ["corpus", "check", "--lint-only", "--corpus",
                                     str(corpus.root)])
    assert done.exit_code == 1, done.output
    assert f"the stats golden was written from a session with sha256 {'0' * 64}" in done.stderr
    write_golden(case, Golden("stats", {"output": {}}, {"session": generated.provenance()}))
    again = CliRunner().invoke(main, ["corpus", "check", "--lint-only", "--corpus",
                                      str(corpus.root)])
    assert "written from a session" not in again.stderr


def test_a_generate_case_must_not_also_commit_a_session(tmp_path: Path):
    corpus = _corpus(tmp_path)
    (corpus.root / "cases" / "large" / "one" / "session.jsonl").write_text("{}\n")
    with pytest.raises(CorpusError, match=r"no session\.jsonl"):
        corpus.load_case(corpus.root / "cases" / "large" / "one")


def test_an_unknown_generator_is_named(tmp_path: Path):
    corpus = _corpus(tmp_path, GENERATE.replace("coding-session", "nope"))
    with pytest.raises(CorpusError, match="unknown session generator 'nope'"):
        corpus.cases  # noqa: B018


def test_golden_provenance_records_the_generator_and_seed(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    from conformance.implementations import protocol
    from conformance.maintenance import regenerate

    monkeypatch.setattr(regenerate, "lock_sha256", lambda: "lock")
    case = _corpus(tmp_path).cases[0]
    hello = protocol.Hello(implementation={"dependencies": {}}, stages=frozenset({"stats"}))
    found = regenerate.provenance(hello, case)
    assert found["session"]["generator"] == "coding-session"
    assert (found["session"]["seed"], found["session"]["entries"]) == (7, 300)
    assert found["input_sha256"] == case.input_sha256()
