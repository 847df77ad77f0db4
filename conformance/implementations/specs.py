"""From an ``--impl`` value to an Implementation: the one place that knows every kind of spec,
so the registry of known implementations and the transports need not know each other.

``--impl`` accepts (docs/adapters.md):

* ``reference``: the pinned, real Pi (installed by ``pi-conformance reference install``);
* ``NAME@VERSION``: a known implementation (``implementations/known``), installed on first use;
* ``process:COMMAND``: a persistent process speaking protocol v1 (the fast way);
* ``oneshot:COMMAND``: one process per request: the request on stdin, the answer on stdout;
* ``python:MODULE:ATTR``: a Python callable, hosted in a child process so that its crash
  cannot take the runner down;
* a path to an ``.toml`` file describing one of the above, with ``cwd`` and ``env``.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path

from conformance.errors import ConformanceError
from conformance.implementations import known
from conformance.implementations import reference as ref
from conformance.implementations.transports import (
    Implementation,
    OneShotImplementation,
    PersistentImplementation,
    python_callable,
    reference,
)

__all__ = ["known_implementation", "resolve", "split_command"]


def known_implementation(entry: known.Entry, variation: Mapping[str, str] | None = None
                         ) -> PersistentImplementation:
    """A known implementation, ready to start; installed first if need be. ``variation``:
    the harness's randomness, clock and scratch settings, for a Pi release asked as a golden
    source (``run --against``) the way ``corpus regenerate`` asks the reference."""
    if entry.installer is None:
        impl = reference(variation)
        impl.spec = entry.spec
        return impl
    installed = entry.install()
    setup, teardown = ref.sandbox_homes(variation)
    # Every known implementation runs on Node (pi-ai-python's front end too): cases where Pi
    # misbehaves get a process of their own with a capped heap, as for the reference.
    return PersistentImplementation(entry.spec, entry.command(installed.prefix),
                                    env=ref.capped_env(os.environ), setup=setup, teardown=teardown,
                                    isolated_env=ref.MISBEHAVING_ENV)


def resolve(spec: str) -> Implementation:
    """The implementation an ``--impl`` value names; a bad spec is a ConformanceError."""
    if spec == "reference":
        return reference()
    kind, _, rest = spec.partition(":")
    if kind in ("process", "oneshot") and rest:
        command = split_command(rest)
        cls = PersistentImplementation if kind == "process" else OneShotImplementation
        return cls(spec, command)
    if kind == "python" and rest:
        return python_callable(spec, rest)
    entry = known.lookup(spec)  # a registered adapter: pi@1.0.3, pi-ai-python, ccusage-pi, ...
    if entry is not None:
        return known_implementation(entry)
    path = Path(spec)
    if path.suffix == ".toml":
        if not path.is_file():
            raise ConformanceError("no such implementation file", path=path)
        return _from_file(path)
    raise ConformanceError(
        f"unknown implementation {spec!r}: use reference, a known NAME@VERSION (pi-conformance "
        "adapters list), process:COMMAND, oneshot:COMMAND, python:MODULE:ATTR or a .toml file")


def split_command(text: str) -> list[str]:
    """A command line split as a POSIX shell would (quotes group words); one that cannot be
    split (an unbalanced quote, a trailing backslash) or names no program is refused."""
    try:
        command = shlex.split(text)
    except ValueError as exc:  # shlex says only "No closing quotation" / "No escaped character"
        raise ConformanceError(f"cannot split the command {text!r} into words: "
                               f"{str(exc).lower()}") from None
    if not command or not command[0].strip():
        raise ConformanceError(f"no command to run in {text!r}: give the program and its "
                               "arguments, e.g. process:./my-adapter") from None
    return command


def _from_file(path: Path) -> Implementation:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConformanceError(f"cannot read implementation file: {exc}", path=path) from None
    kind = data.get("kind")
    if not isinstance(data.get("cwd", "."), str):
        raise ConformanceError("'cwd' must be a string (a directory)", path=path)
    if not isinstance(data.get("env", {}), dict):
        raise ConformanceError("'env' must be a table of strings", path=path)
    cwd = (path.parent / data.get("cwd", ".")).resolve()
    env = {**os.environ, **{k: str(v) for k, v in data.get("env", {}).items()}}
    command = data.get("command")
    if kind in ("process", "oneshot"):
        try:
            if isinstance(command, str):
                command = split_command(command)
        except ConformanceError as exc:
            raise ConformanceError(f"'command': {exc.problem}", path=path) from None
        if not isinstance(command, list) or not command or \
                not all(isinstance(c, str) for c in command) or not command[0].strip():
            raise ConformanceError("'command' must be a string or a list of strings, the "
                                   "first naming the program", path=path)
        cls = PersistentImplementation if kind == "process" else OneShotImplementation
        return cls(str(path), command, cwd=cwd, env=env)
    if kind == "python":
        target = data.get("callable")
        if not isinstance(target, str):
            raise ConformanceError("'callable' must be 'module:attribute'", path=path)
        return python_callable(str(path), target, cwd=cwd)
    raise ConformanceError(
        f"'kind' must be process, oneshot or python, not {kind!r}", path=path)
