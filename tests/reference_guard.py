"""Keeps the ``reference`` marker true: a test without it cannot start Pi or Node unnoticed.

For every test not marked ``reference``, ``PI_CONFORMANCE_CACHE`` points at a cache where the
pinned reference (and every known implementation) looks installed but its ``node`` only
records that it was started and exits, and ``PATH`` starts with a directory whose ``node``,
``npm`` and ``npx`` do the same. The environment is set before the test's fixtures, so it
reaches the test, its module fixtures, the CLI in process and every child process. A test
that started one of them fails, naming what it ran; a test that asks for a fixture in
``REFERENCE_FIXTURES`` fails before it starts anything. ``-m "not reference"`` therefore
runs without Pi, Node or the cache, which is what it promises.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.implementations.reference import lock_sha256

REFERENCE_FIXTURES = frozenset({"pi", "shared_reference", "_reference_goldens"})
TRIPPED = 97  # the exit status of a tripwire, so a harness error names it
_GUARDED = ("PI_CONFORMANCE_CACHE", "PATH")
_SAVED = pytest.StashKey[dict[str, str | None]]()


class Tripwire:
    """A fake cache and bin directory whose executables log their command line and fail."""

    def __init__(self, root: Path):
        self.root = root
        self.cache = root / "cache"
        self.bin = root / "bin"
        self.log = root / "started.log"
        self.bin.mkdir(parents=True)
        for name in ("node", "npm", "npx"):
            self._plant(self.bin / name)
        reference = self.cache / "reference" / lock_sha256()[:16]
        self._plant(reference / "node_modules" / ".bin" / "node")
        (reference / ".installed").write_text("")
        self.clear()

    def _plant(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'#!/bin/sh\necho "$0 $*" >> "{self.log}"\n'
                        f'echo "tripwire: $0 started in a test not marked reference" >&2\n'
                        f"exit {TRIPPED}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    def plant_known(self, executables: list[Path]) -> None:
        """Makes each known implementation look installed, its interpreter a tripwire too."""
        for executable in executables:
            self._plant(executable)
            prefix = executable.parent.parent
            if prefix.name == "node_modules":
                prefix = prefix.parent
            (prefix / ".installed").write_text("")

    def started(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def clear(self) -> None:
        self.log.write_text("")


_tripwire: Tripwire | None = None


def tripwire() -> Tripwire:
    assert _tripwire is not None, "the reference guard is not configured"
    return _tripwire


def _known_executables(cache: Path) -> list[Path]:
    """Where each installed known implementation's node or python would be, in ``cache``."""
    from conformance.implementations.known import KNOWN
    from conformance.implementations.known.install import NpmPrefix, Virtualenv

    previous = os.environ.get("PI_CONFORMANCE_CACHE")
    os.environ["PI_CONFORMANCE_CACHE"] = str(cache)
    try:
        return [entry.installer.node if isinstance(entry.installer, NpmPrefix)
                else entry.installer.python
                for entry in KNOWN if isinstance(entry.installer, NpmPrefix | Virtualenv)]
    finally:
        if previous is None:
            del os.environ["PI_CONFORMANCE_CACHE"]
        else:
            os.environ["PI_CONFORMANCE_CACHE"] = previous


def pytest_configure(config: pytest.Config) -> None:
    global _tripwire
    _tripwire = Tripwire(Path(tempfile.mkdtemp(prefix="pi-conformance-tripwire-")))
    _tripwire.plant_known(_known_executables(_tripwire.cache))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _tripwire is not None:
        shutil.rmtree(_tripwire.root, ignore_errors=True)


def _is_reference(item: pytest.Item) -> bool:
    return item.get_closest_marker("reference") is not None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    wire = tripwire()
    wire.clear()
    if _is_reference(item):
        return
    asked = REFERENCE_FIXTURES & set(getattr(item, "fixturenames", ()))
    if asked:
        pytest.fail(f"{item.nodeid} uses {', '.join(sorted(asked))}, which starts Pi: "
                    f"mark it @pytest.mark.reference", pytrace=False)
    item.stash[_SAVED] = {name: os.environ.get(name) for name in _GUARDED}
    os.environ["PI_CONFORMANCE_CACHE"] = str(wire.cache)
    os.environ["PATH"] = os.pathsep.join([str(wire.bin), os.environ.get("PATH", "")])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        for name, value in item.stash.get(_SAVED, {}).items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(autouse=True)
def _reference_only_when_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    started = tripwire().started()
    if started and not _is_reference(request.node):
        pytest.fail(f"started {'; '.join(started)} but is not marked reference: mark it "
                    f"@pytest.mark.reference, or keep it off Pi and Node", pytrace=False)
