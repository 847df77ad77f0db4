"""Stopping an implementation leaves no process behind, even one that left its group."""

from __future__ import annotations

import time
from pathlib import Path

from helpers import settled

from conformance.implementations import reaping
from conformance.implementations.specs import resolve


def alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it is dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_lines(path: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pids = [int(p) for p in path.read_text().split()] if path.exists() else []
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(f"{count} grandchildren never started")


def test_a_grandchild_that_calls_setsid_is_killed_at_restart_and_stop(fake, tmp_path,
                                                                      monkeypatch):
    pids = tmp_path / "grandchildren"
    monkeypatch.setenv("FAKE_GRANDCHILDREN", str(pids))
    impl = resolve(fake("escaping_child"))
    try:
        impl.start()
        (first,) = wait_for_lines(pids, 1)
        impl.restart()
        second = wait_for_lines(pids, 2)[1]
        assert not settled(lambda: alive(first))  # the restart took the old one's grandchild
        assert alive(second)
    finally:
        impl.close()
    assert not settled(lambda: alive(second))
    assert len(wait_for_lines(pids, 2)) == 2


def test_a_one_shot_grandchild_that_calls_setsid_is_killed_after_each_request(fake, tmp_path,
                                                                             monkeypatch):
    pids = tmp_path / "grandchildren"
    monkeypatch.setenv("FAKE_GRANDCHILDREN", str(pids))
    impl = resolve(fake("escaping_child", kind="oneshot"))
    impl.start()
    impl.close()
    (grandchild,) = wait_for_lines(pids, 1)
    # it may still be writing its pid when the hello is read; killed, it is gone a moment later
    assert not settled(lambda: alive(grandchild))


def test_only_processes_carrying_the_marker_are_found():
    assert reaping.marked_processes(reaping.new_marker()) == []
