"""On-demand, pinned, isolated installs for adapters: an npm prefix or a virtualenv each.

Every adapter directory commits what pins it (``package.json`` + ``package-lock.json``, or a
``requirements.txt`` with exact versions). The first use installs it into
``<cache>/adapters/<name>/<hash of the pin files>``, so a changed pin gets a fresh copy and
two adapters never share a ``node_modules`` or a ``site-packages``. Progress goes to a
callback line by line; a failure raises an AdapterInstallError carrying the tool's last
output, never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance._paths import cache_root, writing_cache
from conformance.errors import ConformanceError

OnLine = Callable[[str], None]


class AdapterInstallError(ConformanceError):
    """An adapter's implementation could not be installed."""


#: npm output nobody reading an install log needs: a line per file fetched, and warnings that
#: the Node running npm (the system's) is older than packages it only downloads want; they
#: run on the Node 22 the install brings. (``--loglevel http`` stays: the spinner counts the
#: fetches, and a failure's tail shows the last requests.)
_NPM_NOISE = re.compile(r"^npm (http (fetch|cache)|warn EBADENGINE)", re.IGNORECASE)


def worth_showing(line: str) -> bool:
    """Whether an installer's output line is shown when stderr is not a terminal."""
    return not _NPM_NOISE.match(line)


def npm_command(npm: str, node: Path) -> list[str]:
    """How to run ``npm``: with ``node`` (the reference's Node 22) when it is installed and
    npm is a script it can run, so no package warns about the system's older Node."""
    script = Path(npm).resolve()
    if node.exists() and script.suffix in (".js", ".cjs"):
        return [str(node), str(script)]
    return [npm]


def pins_sha256(files: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stream(command: list[str], *, cwd: Path, env: dict[str, str], what: str,
            on_line: OnLine | None) -> None:
    """Run ``command``, passing each output line on; raise with the tail if it fails."""
    from conformance.implementations.reference import stream_lines

    try:
        code, tail = stream_lines(command, cwd=cwd, env=env, on_line=on_line)
    except OSError as exc:
        raise AdapterInstallError(f"{what}: cannot run {command[0]}: {exc.strerror}") from None
    if code != 0:
        raise AdapterInstallError(f"{what} failed (exit code {code}):\n" + "\n".join(tail))


def find_npm(name: str) -> str:
    """The system's npm, needed once per install to fetch packages and Node 22."""
    npm = shutil.which("npm")
    if npm is None:
        raise AdapterInstallError(
            f"{name}: npm was not found on PATH; it is needed once to fetch the pinned "
            "packages and Node 22 from the npm registry (e.g. apt-get install npm)")
    return npm


def run_npm(npm: str, prefix: Path, args: list[str], what: str, on_line: OnLine | None) -> None:
    """``npm ARGS`` in ``prefix``, on the reference's Node 22 when it is there, with a
    throw-away npm cache, no scripts, audit or funding noise; output line by line."""
    from conformance.implementations.reference import default_installation

    with tempfile.TemporaryDirectory(prefix="pi-conformance-npm-") as home:
        env = {**os.environ, "npm_config_cache": str(Path(home) / "npm-cache"),
               "npm_config_update_notifier": "false"}
        env.pop("NODE_OPTIONS", None)
        _stream([*npm_command(npm, default_installation().node), *args, "--no-audit",
                 "--no-fund", "--loglevel", "http", "--ignore-scripts"], cwd=prefix, env=env,
                what=what, on_line=on_line)


@dataclass(frozen=True)
class Installed:
    """Where an install landed and how long it took (0 when it was already there)."""

    prefix: Path
    seconds: float


@dataclass(frozen=True)
class NpmPrefix:
    """``npm ci`` of a committed lockfile into a private prefix (Node 22 comes with it)."""

    name: str
    source: Path  # the adapter directory holding package.json and package-lock.json

    @property
    def pins(self) -> list[Path]:
        return [self.source / "package.json", self.source / "package-lock.json"]

    @property
    def prefix(self) -> Path:
        return cache_root() / "adapters" / self.name / pins_sha256(self.pins)[:16]

    @property
    def node(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / "node"

    def is_installed(self) -> bool:
        return (self.prefix / ".installed").is_file() and self.node.exists()

    def install(self, *, force: bool = False, on_line: OnLine | None = None) -> Installed:
        if self.is_installed() and not force:
            return Installed(self.prefix, 0.0)
        npm = find_npm(self.name)
        started = time.perf_counter()
        prefix = self.prefix
        with writing_cache():
            if prefix.exists():
                shutil.rmtree(prefix)
            prefix.mkdir(parents=True)
            for pin in self.pins:
                shutil.copy2(pin, prefix / pin.name)
        run_npm(npm, prefix, ["ci"], f"npm ci for {self.name}", on_line)
        if not self.node.exists():
            raise AdapterInstallError(
                f"{self.name}: npm installed no Node 22 binary for this platform "
                f"({os.uname().machine}); the lockfile pins linux-x64, linux-arm64, darwin-x64")
        with writing_cache():
            (prefix / ".installed").write_text(pins_sha256(self.pins) + "\n")
        return Installed(prefix, time.perf_counter() - started)


@dataclass(frozen=True)
class Virtualenv:
    """A private virtualenv with exactly the versions a ``requirements.txt`` pins."""

    name: str
    source: Path  # the adapter directory holding requirements.txt

    @property
    def pins(self) -> list[Path]:
        return [self.source / "requirements.txt"]

    @property
    def prefix(self) -> Path:
        return cache_root() / "adapters" / self.name / pins_sha256(self.pins)[:16]

    @property
    def python(self) -> Path:
        return self.prefix / "bin" / "python"

    def is_installed(self) -> bool:
        return (self.prefix / ".installed").is_file() and self.python.exists()

    def install(self, *, force: bool = False, on_line: OnLine | None = None) -> Installed:
        if self.is_installed() and not force:
            return Installed(self.prefix, 0.0)
        started = time.perf_counter()
        prefix = self.prefix
        with writing_cache():
            if prefix.exists():
                shutil.rmtree(prefix)
            prefix.parent.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        _stream([sys.executable, "-m", "venv", str(prefix)], cwd=prefix.parent, env=env,
                what=f"creating the virtualenv for {self.name}", on_line=on_line)
        # --no-deps: the requirements file pins the whole closure, so nothing floats.
        _stream([str(self.python), "-m", "pip", "install", "--disable-pip-version-check",
                 "--no-deps", "--progress-bar", "off", "-r", str(self.pins[0])],
                cwd=prefix, env=env, what=f"pip install for {self.name}", on_line=on_line)
        with writing_cache():
            (prefix / ".installed").write_text(pins_sha256(self.pins) + "\n")
        return Installed(prefix, time.perf_counter() - started)
