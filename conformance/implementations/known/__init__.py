"""The registry of known implementations: name@version -> how to install it and start it.

Each adapter lives in its own directory beside this file, with what pins it (an npm lockfile
or a requirements file) and the code that wires the implementation to protocol v1. It is
installed on first use into its own prefix under the cache (install.py), never shared.
``--impl NAME@VERSION`` (or just ``NAME`` when one version is known) resolves here; the
matrix runs every entry of ``KNOWN``. docs/adapters.md explains how to add one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from conformance._paths import writable
from conformance.controls import printable
from conformance.errors import ConformanceError
from conformance.implementations import reference as ref
from conformance.implementations.known.install import (
    AdapterInstallError,
    Installed,
    NpmPrefix,
    Virtualenv,
    worth_showing,
)
from conformance.implementations.known.releases import (
    LINES,
    NpmRelease,
    is_release_version,
    too_old,
)

ADAPTERS_DIR = Path(__file__).resolve().parent

__all__ = ["KNOWN", "AdapterInstallError", "Entry", "lookup", "release", "release_spec"]


def _print_progress(name: str) -> Callable[[str], None]:
    """Install progress on stderr: a line per 20 fetches, every line worth showing when not a
    terminal."""
    count = 0

    def on_line(line: str) -> None:
        nonlocal count
        count += 1
        terminal = sys.stderr.isatty()
        if (terminal and count % 20 == 0) or (not terminal and worth_showing(line)):
            print(printable(f"  [{name} install] {line[-110:]}"), file=sys.stderr, flush=True)

    return on_line


@dataclass(frozen=True)
class Entry:
    """One implementation the suite knows how to install and run."""

    name: str
    version: str
    summary: str
    language: str
    claims: str  # which stages, in words (the hello answer is the authority)
    installer: NpmPrefix | NpmRelease | Virtualenv | None = None  # None: the reference
    command: Callable[[Path], list[str]] = field(default=lambda prefix: [], repr=False)
    needs_reference: bool = False

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"

    def is_installed(self) -> bool:
        if self.installer is None:
            return ref.default_installation().is_complete()
        return self.installer.is_installed()

    def install(self, *, force: bool = False,
                on_line: Callable[[str], None] | None = None) -> Installed:
        """Install on demand (idempotent): the reference too when this adapter needs it."""
        if self.installer is None or self.needs_reference:
            installation = ref.default_installation()
            if not installation.is_complete():
                writable(installation.prefix.parent)
                print(f"{self.spec} needs the reference Pi: installing it into "
                      f"{installation.prefix}", file=sys.stderr, flush=True)
                ref.install(on_line=on_line or _print_progress("reference"))
            if self.installer is None:
                return Installed(installation.prefix, 0.0)
        assert self.installer is not None
        if not self.installer.is_installed() or force:
            writable(self.installer.prefix.parent)
            print(f"installing {self.spec} into {self.installer.prefix} (first use)",
                  file=sys.stderr, flush=True)
        done = self.installer.install(force=force, on_line=on_line or _print_progress(self.spec))
        if done.seconds:
            print(f"installed {self.spec} in {done.seconds:.1f}s", file=sys.stderr, flush=True)
        return done


def _node(prefix: Path) -> str:
    return str(prefix / "node_modules" / ".bin" / "node")


def _pi_command(scope: str) -> Callable[[Path], list[str]]:
    return lambda prefix: [_node(prefix), str(ref.HARNESS), str(prefix), scope]


def _pi_ai_python_command(prefix: Path) -> list[str]:
    return [str(prefix / "bin" / "python"), str(ADAPTERS_DIR / "pi-ai-python" / "adapter.py")]


def _ccusage_command(prefix: Path) -> list[str]:
    return [_node(prefix), str(ADAPTERS_DIR / "ccusage-pi" / "adapter.mjs"), str(prefix)]


KNOWN: tuple[Entry, ...] = (
    Entry("pi", "1.6.0", "the reference: @earendil-works/pi-coding-agent 1.6.0", "javascript",
          "every session stage, request.<api> and wire.<api> (it writes the goldens)"),
    Entry("pi", "1.0.3", "@earendil-works/pi-coding-agent 1.0.3 (npm override: "
          "@earendil-works/chord ^1.0.3 was never published, pinned to 0.87.1)", "javascript",
          "every session stage, request.<api> and wire.<api>, as its exports allow",
          NpmPrefix("pi-1.0.3", ADAPTERS_DIR / "pi-1.0.3"), _pi_command("@earendil-works")),
    Entry("pi-mariozechner", "0.73.1", "the older upstream @mariozechner/pi-coding-agent 0.73.1",
          "javascript", "entries, branch, context, llm, stats, request.<api>, wire.<api> (no "
          "projection, no system messages so no prompt)",
          NpmPrefix("pi-mariozechner-0.73.1", ADAPTERS_DIR / "pi-mariozechner-0.73.1"),
          _pi_command("@mariozechner")),
    Entry("pi-ai-python", "1.6.0", "pi-ai-python from PyPI, a Python port of pi-ai", "python",
          "prompt, request.<api> and wire.<api>, given their input (the golden llm "
          "messages): it ports pi-ai only, no session layer",
          Virtualenv("pi-ai-python", ADAPTERS_DIR / "pi-ai-python"), _pi_ai_python_command),
    Entry("ccusage-pi", "18.0.11", "@ccusage/pi, a usage tracker, through its own CLI",
          "javascript", "stats, partially: token totals and cost (no message counts)",
          NpmPrefix("ccusage-pi", ADAPTERS_DIR / "ccusage-pi"), _ccusage_command),
)


def release(line: str, version: str) -> Entry:
    """Any published release of a line of Pi (releases.py), installed on first use."""
    scope = LINES[line]
    return Entry(line, version, f"{scope}/pi-coding-agent {version} (installed on first use)",
                 "javascript", "every stage this release's exports answer (the harness says "
                 "which are not available)", NpmRelease(line, version), _pi_command(scope))


def release_spec(release: str) -> str:
    """``--version`` of ``reference install`` as an ``--impl`` spec: ``1.3.0`` is
    ``pi@1.3.0``, ``mariozechner@0.73.0`` is ``pi-mariozechner@0.73.0``."""
    line, _, version = release.rpartition("@")
    name = {"": "pi", "pi": "pi", "earendil-works": "pi", "mariozechner": "pi-mariozechner",
            "pi-mariozechner": "pi-mariozechner"}.get(line)
    if name is None or not is_release_version(version):
        raise ConformanceError(f"--version {release!r}: expected X.Y.Z (a release of "
                               "@earendil-works/pi-coding-agent) or mariozechner@X.Y.Z")
    return f"{name}@{version}"


def lookup(spec: str) -> Entry | None:
    """The entry ``NAME@VERSION`` or ``NAME`` names; None if the name is unknown. A line of
    Pi (``pi``, ``pi-mariozechner``) at a version not wired by hand is any release of it."""
    name, _, version = spec.partition("@")
    matches = [e for e in KNOWN if e.name == name]
    if not matches:
        return None
    if version:
        for entry in matches:
            if entry.version == version:
                return entry
        if name in LINES and is_release_version(version):
            problem = too_old(name, version)
            if problem:
                raise ConformanceError(problem)
            return release(name, version)
        raise ConformanceError(f"{name} {version} is not a known version; known: "
                               + ", ".join(e.spec for e in matches)
                               + (", or any release X.Y.Z of the line" if name in LINES
                                  else ""))
    if len(matches) > 1:
        raise ConformanceError(f"{name} has several versions, say which: "
                               + ", ".join(e.spec for e in matches))
    return matches[0]
