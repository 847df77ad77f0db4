"""The ways to reach an implementation, and ``resolve`` from an ``--impl`` spec to one of them.

``--impl`` accepts (docs/implementations.md):

* ``reference``: the pinned, real Pi (installed by ``pi-conformance reference install``);
* ``NAME@VERSION``: a known adapter (conformance/implementations/known), installed on first use;
* ``process:COMMAND``: a persistent process speaking protocol v1 (the fast way);
* ``oneshot:COMMAND``: one process per request: the request on stdin, the answer on stdout;
* ``python:MODULE:ATTR``: a Python callable, hosted in a child process so that its crash
  cannot take the runner down;
* a path to an ``.toml`` file describing one of the above, with ``cwd`` and ``env``.
"""

from __future__ import annotations

import os
import shlex
import sys
import tomllib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations import protocol
from conformance.implementations.process import (
    HELLO_TIMEOUT,
    Crashed,
    ProcessConnection,
    ProtocolViolation,
    Timeout,
)

__all__ = [
    "Crashed",
    "Implementation",
    "OneShotImplementation",
    "PersistentImplementation",
    "ProtocolViolation",
    "Timeout",
    "resolve",
]


class Implementation(ABC):
    """Something that answers protocol requests. ``run`` raises ImplementationError on failure."""

    spec: str
    hello: protocol.Hello
    #: True when the implementation keeps a process across requests, which a crash or hang
    #: leaves unusable until ``restart``.
    persistent = True

    @abstractmethod
    def start(self) -> protocol.Hello: ...

    @abstractmethod
    def run(self, request: dict[str, Any], timeout: float) -> Any: ...

    def restart(self) -> None:  # noqa: B027 (an optional hook: one-shot needs none)
        """Recover after a failed run; the next ``run`` must work as before."""

    def close(self) -> None:  # noqa: B027 (an optional hook)
        """Release whatever ``start`` acquired."""

    def __enter__(self) -> Implementation:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PersistentImplementation(Implementation):
    """A long-lived process; after a crash or a hang it is restarted and the hello replayed."""

    def __init__(self, spec: str, command: Sequence[str], *, cwd: Path | None = None,
                 env: dict[str, str] | None = None,
                 setup: Callable[[], dict[str, str]] | None = None,
                 teardown: Callable[[], None] | None = None):
        self.spec = spec
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.setup = setup
        self.teardown = teardown
        self.connection: ProcessConnection | None = None
        self.restarts = 0

    def _connect(self) -> protocol.Hello:
        env = self.env
        if self.setup is not None:
            env = {**(env or os.environ), **self.setup()}
        self.connection = ProcessConnection(self.command, cwd=self.cwd, env=env)
        try:
            answer = self.connection.ask(protocol.hello_request(), HELLO_TIMEOUT)
            return protocol.Hello.parse(answer)
        except ImplementationError as exc:
            self.connection.kill()
            self.connection = None
            raise ImplementationError(f"{self.spec}: handshake failed: {exc}") from None

    def start(self) -> protocol.Hello:
        self.hello = self._connect()
        return self.hello

    def restart(self) -> None:
        if self.connection is not None:
            self.connection.kill()
            self.connection = None
        self.restarts += 1
        hello = self._connect()
        if hello.stages != self.hello.stages or hello.implementation != self.hello.implementation:
            raise ImplementationError(f"{self.spec}: answered a different hello after a restart")

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        if self.connection is None:
            raise Crashed("the implementation is not running")
        try:
            return self.connection.ask(request, timeout)
        except ImplementationError:
            # Whatever it was (a hang, garbage, an answer out of order), this process can no
            # longer be trusted to pair answers with requests.
            self.connection.kill()
            self.connection = None
            raise

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.teardown is not None:
            self.teardown()


class OneShotImplementation(Implementation):
    """One process per request, for adapters too simple to keep state: toml-test's contract.

    The request is written to stdin, which is then closed; all of stdout is the answer, and
    the process must exit 0. Nothing survives a request, so there is never anything to restart.
    """

    persistent = False

    def __init__(self, spec: str, command: Sequence[str], *, cwd: Path | None = None,
                 env: dict[str, str] | None = None):
        self.spec = spec
        self.command = list(command)
        self.cwd = cwd
        self.env = env

    def _exchange(self, message: dict[str, Any], timeout: float) -> Any:
        connection = ProcessConnection(self.command, cwd=self.cwd, env=self.env)
        try:
            return connection.ask_once(message, timeout)
        finally:
            connection.kill()

    def start(self) -> protocol.Hello:
        try:
            self.hello = protocol.Hello.parse(
                self._exchange(protocol.hello_request(), HELLO_TIMEOUT))
        except ImplementationError as exc:
            raise ImplementationError(f"{self.spec}: handshake failed: {exc}") from None
        return self.hello

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        return self._exchange(request, timeout)


def reference() -> PersistentImplementation:
    """The real Pi, with a private HOME and agent directory for each process it starts."""
    from conformance.implementations import reference as ref

    installation = ref.require_installation()
    setup, teardown = ref.sandbox_homes()
    return PersistentImplementation(
        "reference", installation.harness_command(), env=dict(os.environ), setup=setup,
        teardown=teardown)


def python_callable(spec: str, target: str, *, cwd: Path | None = None) -> PersistentImplementation:
    command = [sys.executable, "-m", "conformance.implementations.python_host", target]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd or Path.cwd()), *sys.path])}
    return PersistentImplementation(spec, command, cwd=cwd, env=env)


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
        if isinstance(command, str):
            command = shlex.split(command)
        if not isinstance(command, list) or not command or \
                not all(isinstance(c, str) for c in command):
            raise ConformanceError("'command' must be a string or a list of strings", path=path)
        cls = PersistentImplementation if kind == "process" else OneShotImplementation
        return cls(str(path), command, cwd=cwd, env=env)
    if kind == "python":
        target = data.get("callable")
        if not isinstance(target, str):
            raise ConformanceError("'callable' must be 'module:attribute'", path=path)
        return python_callable(str(path), target, cwd=cwd)
    raise ConformanceError(
        f"'kind' must be process, oneshot or python, not {kind!r}", path=path)


def resolve(spec: str) -> Implementation:
    """The implementation an ``--impl`` value names; a bad spec is a ConformanceError."""
    if spec == "reference":
        return reference()
    kind, _, rest = spec.partition(":")
    if kind in ("process", "oneshot") and rest:
        command = shlex.split(rest)
        cls = PersistentImplementation if kind == "process" else OneShotImplementation
        return cls(spec, command)
    if kind == "python" and rest:
        return python_callable(spec, rest)
    from conformance.implementations.known import lookup

    known = lookup(spec)  # a registered adapter: pi@1.0.3, pi-ai-python, ccusage-pi, ...
    if known is not None:
        return known.implementation()  # type: ignore[no-any-return]
    path = Path(spec)
    if path.suffix == ".toml":
        if not path.is_file():
            raise ConformanceError("no such implementation file", path=path)
        return _from_file(path)
    raise ConformanceError(
        f"unknown implementation {spec!r}: use reference, a known NAME@VERSION (pi-conformance "
        "adapters list), process:COMMAND, oneshot:COMMAND, python:MODULE:ATTR or a .toml file")
