"""Cases where Pi misbehaves run in processes of their own, the next one started ahead."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conftest import FAKES

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
