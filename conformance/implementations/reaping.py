"""Finding every process an implementation started, even one that left its process group.

Killing a process group misses a descendant that called ``setsid()`` (a daemonising helper, a
language server): it has its own session and group. What it cannot shed is the environment
it inherited, so each implementation process gets a unique marker variable, and on stop every
process whose ``/proc/PID/environ`` carries that marker is killed too (Linux; elsewhere only
the process group is killed).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid

MARKER_VARIABLE = "PI_CONFORMANCE_PROCESS"
_PROC = "/proc"
_ROUNDS = 50  # a process forking as fast as it can is outrun within a few rounds


def new_marker() -> str:
    """A value for MARKER_VARIABLE that no other implementation process carries."""
    return uuid.uuid4().hex


def marked_processes(marker: str) -> list[int]:
    """Live processes (zombies have no environment left) carrying ``marker``."""
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    found = []
    own = os.getpid()
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"{_PROC}/{entry}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        if needle in variables:
            found.append(int(entry))
    return found


def kill_all(pgid: int, marker: str) -> None:
    """SIGKILL the process group ``pgid`` and every process carrying ``marker``, until none
    is left that could still start another."""
    for _ in range(_ROUNDS):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        marked = marked_processes(marker)
        if not marked:
            return
        for pid in marked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)  # let the killed exit, so the next look finds only newcomers
