"""Any published Pi release as an implementation (``--impl pi@1.3.0``), installed on demand.

The releases the suite wires by hand (``KNOWN``: the pinned reference, pi@1.0.3 with its npm
override, pi-mariozechner@0.73.1) keep their committed lockfiles. Any other release of a line
(``pi``: ``@earendil-works/pi-coding-agent``; ``pi-mariozechner``: the older
``@mariozechner/pi-coding-agent``) is installed into a prefix of its own,
``<cache>/releases/<line>-<version>``, with Node 22 from the registry: its ``package.json``
names the release exactly and pins the packages of its own line to the versions it was
published with (``siblings.py``: releases before 1.x ask for them by caret ranges, which
would float to the newest of the line), and the first install writes the
``package-lock.json`` that every later install (``--force``) reinstalls from with ``npm ci``.
Every release runs the same harness, which detects what the release exports: a stage it
cannot answer is "not available in this Pi release", never an error.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from conformance._paths import cache_root, writing_cache
from conformance.implementations.known.install import (
    AdapterInstallError,
    Installed,
    OnLine,
    find_npm,
    run_npm,
)
from conformance.implementations.known.siblings import RESOLUTION, npm_view, pinned_siblings

#: Each line of releases: its package scope. The harness is told the scope.
LINES = {"pi": "@earendil-works", "pi-mariozechner": "@mariozechner"}
#: The oldest release of each line that reads the corpus's sessions (version 3): the first
#: of ``@earendil-works``, and the first ``@mariozechner`` release whose
#: ``CURRENT_SESSION_VERSION`` is 3 (0.32.3, the one before, writes version 2).
OLDEST = {"pi": "0.74.0", "pi-mariozechner": "0.37.2"}
#: The Node 22 every release runs on (the reference's own: reference/package.json).
NODE_VERSION = "22.23.3"
_VERSION = re.compile(r"\d{1,4}\.\d{1,4}\.\d{1,4}")


def is_release_version(version: str) -> bool:
    return _VERSION.fullmatch(version) is not None


def too_old(line: str, version: str) -> str | None:
    """Why a release of ``line`` cannot be judged on the corpus, or None."""
    if _key(version) >= _key(OLDEST[line]):
        return None
    return (f"{line}@{version} writes version-2 sessions and predates the version-3 format "
            f"of the corpus: the oldest release that reads it is {line}@{OLDEST[line]}")


@dataclass(frozen=True)
class NpmRelease:
    """One release of a line, its lockfile made at first install and kept with it."""

    line: str
    version: str

    @property
    def scope(self) -> str:
        return LINES[self.line]

    @property
    def name(self) -> str:
        return f"{self.line}-{self.version}"

    @property
    def prefix(self) -> Path:
        return cache_root() / "releases" / self.name

    @property
    def node(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / "node"

    def package_json(self, siblings: dict[str, str] | None = None) -> dict[str, object]:
        """``siblings``: the versions its own line's packages are pinned to (siblings.py)."""
        manifest: dict[str, object] = {
            "name": f"pi-conformance-release-{self.name}",
            "private": True,
            "description": f"{self.scope}/pi-coding-agent {self.version} for pi-conformance",
            "dependencies": {f"{self.scope}/pi-coding-agent": self.version},
            "optionalDependencies": {f"node-{platform}": NODE_VERSION
                                     for platform in ("linux-x64", "linux-arm64", "darwin-x64")},
        }
        if siblings:
            manifest["overrides"] = dict(siblings)
        return manifest

    @property
    def marker(self) -> Path:
        return self.prefix / ".installed"

    def is_installed(self) -> bool:
        """Installed, and under the current resolution rule (an install whose siblings
        floated is made again)."""
        try:
            marker = self.marker.read_text().split()
        except OSError:
            return False
        return RESOLUTION in marker and self.node.exists()

    def install(self, *, force: bool = False, on_line: OnLine | None = None) -> Installed:
        """Install once, whoever asks first: a second process (a history run beside a test
        run) waits for the first and finds the release installed, instead of wiping the
        prefix under it."""
        if self.is_installed() and not force:
            return Installed(self.prefix, 0.0)
        with _exclusive(self.prefix.parent / f".{self.name}.lock"):
            if self.is_installed() and not force:  # installed while this one waited
                return Installed(self.prefix, 0.0)
            return self._install(on_line)

    def _install(self, on_line: OnLine | None) -> Installed:
        npm = find_npm(self.name)
        started = time.perf_counter()
        prefix = self.prefix
        lock = prefix / "package-lock.json"
        manifest_path = prefix / "package.json"
        with writing_cache():
            # A lock is reused only with the manifest it was resolved from, under the
            # current rule: one that let the siblings float is resolved again.
            kept = None
            if lock.is_file() and manifest_path.is_file() and self._current_rule():
                kept = (lock.read_bytes(), manifest_path.read_bytes())
        manifest = None if kept else json.dumps(
            self.package_json(pinned_siblings(npm, self.scope, self.version)), indent=2) + "\n"
        with writing_cache():
            if prefix.exists():
                shutil.rmtree(prefix)
            prefix.mkdir(parents=True)
            if kept is not None:
                lock.write_bytes(kept[0])
                manifest_path.write_bytes(kept[1])
            else:
                assert manifest is not None
                manifest_path.write_text(manifest)
        how = ["ci"] if kept is not None else ["install", "--save-exact"]
        run_npm(npm, prefix, how, f"npm {how[0]} for {self.scope}/pi-coding-agent@"
                f"{self.version}", on_line)
        if not self.node.exists():
            raise AdapterInstallError(
                f"{self.name}: npm installed no Node 22 binary for this platform "
                f"({os.uname().machine})")
        with writing_cache():
            self.marker.write_text(f"{self.version} {RESOLUTION}\n")
        return Installed(prefix, time.perf_counter() - started)

    def _current_rule(self) -> bool:
        try:
            return RESOLUTION in self.marker.read_text().split()
        except OSError:
            return False


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (made if missing), held for the block."""
    with writing_cache():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a")
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def registry_releases(line: str, oldest: str | None = None) -> list[str]:
    """``line@X.Y.Z`` for every release of ``line`` on the npm registry from ``oldest`` on
    (default: the oldest that reads version-3 sessions, ``OLDEST``), newest first."""
    versions = npm_view(find_npm(line), f"{LINES[line]}/pi-coding-agent", "versions") or []
    floor = _key(oldest or OLDEST[line])
    kept = [v for v in versions if is_release_version(v) and _key(v) >= floor]
    return [f"{line}@{v}" for v in sorted(kept, key=_key, reverse=True)]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


__all__ = ["LINES", "OLDEST", "NpmRelease", "is_release_version", "registry_releases",
           "too_old"]
