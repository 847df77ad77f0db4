"""Cases where Pi misbehaves run in processes of their own, the next one started ahead."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conftest import FAKES
from helpers import EVERY_STAGE, drive, runner_for

from conformance.implementations import protocol
from conformance.implementations.transports import PersistentImplementation


def request(corpus_dir: Path, seq: int) -> dict:
    session = corpus_dir / "cases" / "small" / "alpha" / "session.jsonl"
    return protocol.run_request(seq, "small.alpha", (), str(session), session.read_text(),
                                ["entries"], {"cwd": "/pi-conformance/cwd"})


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"


def test_isolated_requests_never_touch_the_main_process_and_leave_nothing_behind(
        corpus_dir: Path):
    impl = PersistentImplementation(
        "fake", [sys.executable, str(FAKES / "correct.py"), str(corpus_dir)],
        isolated_env={"PI_CONFORMANCE_TEST_ISOLATED": "1"})
    assert impl.isolates_misbehaving
    impl.start()
    try:
        main = impl.connection.pid
        assert "results" in impl.run_isolated(request(corpus_dir, 1), 10)
        spare = impl._spare
        assert spare is not None  # the next isolated process is being started already
        first_spare = spare.take()
        assert first_spare is not None and first_spare.pid != main
        assert "results" in impl.run_isolated(request(corpus_dir, 2), 10)
        assert not alive(first_spare.pid)  # used once, then killed
        assert impl.connection.pid == main and impl.restarts == 0
        assert "results" in impl.run(request(corpus_dir, 3), 10)
        last = impl._spare.take()
    finally:
        impl.close()
    assert last is not None and not alive(last.pid)  # close kills the unused spare


def test_without_an_isolated_env_isolated_requests_run_as_any_other(corpus_dir: Path):
    impl = PersistentImplementation(
        "fake", [sys.executable, str(FAKES / "correct.py"), str(corpus_dir)])
    assert not impl.isolates_misbehaving
    with impl:
        main = impl.connection.pid
        assert "results" in impl.run_isolated(request(corpus_dir, 1), 10)
        assert impl.connection.pid == main and impl._spare is None


def test_after_the_last_isolated_request_no_process_is_readied(corpus_dir: Path):
    impl = PersistentImplementation(
        "fake", [sys.executable, str(FAKES / "correct.py"), str(corpus_dir)],
        isolated_env={"PI_CONFORMANCE_TEST_ISOLATED": "1"})
    with impl:
        assert "results" in impl.run_isolated(request(corpus_dir, 1), 10, another_follows=False)
        assert impl._spare is None


def test_cases_where_pi_misbehaves_run_beside_the_others_never_holding_a_worker_up(
        corpus_dir: Path):
    """Two hanging misbehaving cases cost two caps, but in a lane of their own: the single
    worker answers every other case first, and nothing is restarted."""
    from conformance.corpus.cases import Corpus
    from conformance.execution.runner import MISBEHAVING_TIMEOUT

    for name in ("alpha", "beta"):
        meta = corpus_dir / "cases" / "small" / name / "case.toml"
        meta.write_text(meta.read_text() + 'outcome = "reference-misbehaves"\n' + EVERY_STAGE)
    corpus = Corpus(corpus_dir)
    impl = PersistentImplementation(
        "fake", [sys.executable, str(FAKES / "hanging.py"), str(corpus_dir),
                 "--on", "small.alpha", "--on", "small.beta"],
        isolated_env={"PI_CONFORMANCE_TEST_ISOLATED": "1"})
    results = []
    runner = runner_for(corpus, timeout=10, max_restarts=0)
    with impl:
        main = impl.connection.pid
        drive(runner, [impl], corpus.cases, results.append)
        assert impl.connection.pid == main and impl._spare is None
    misbehaving = [i for i, r in enumerate(results) if r.case in ("small.alpha", "small.beta")]
    others = [i for i, r in enumerate(results) if i not in misbehaving]
    assert others and max(others) < min(misbehaving)  # alpha comes first by id
    assert {(r.status, r.error_kind) for r in results if r.case == "small.alpha"} == {
        ("info", "timeout")}
    assert {r.status for i, r in enumerate(results) if i in others} == {"pass"}
    assert f"no answer within {MISBEHAVING_TIMEOUT:g}s" in results[misbehaving[0]].message
    assert runner.restarts == 0
