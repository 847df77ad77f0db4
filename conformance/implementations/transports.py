"""The ways to reach an implementation: a persistent process, one process per request, the
reference. ``specs.resolve`` turns an ``--impl`` value into one of them.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.errors import ImplementationError, ProtocolViolation
from conformance.implementations import protocol, python_host
from conformance.implementations import reference as ref
from conformance.implementations.process import (
    HELLO_TIMEOUT,
    Crashed,
    ProcessConnection,
    RequestTooLarge,
    Timeout,
    Unsolicited,
)

#: Where a narrowed run's stages are given to an implementation (``stages_hint``).
STAGES_VARIABLE = "PI_CONFORMANCE_STAGES"

__all__ = [
    "STAGES_VARIABLE",
    "Crashed",
    "Implementation",
    "OneShotImplementation",
    "PersistentImplementation",
    "ProtocolViolation",
    "RequestTooLarge",
    "Timeout",
    "Unsolicited",
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

    #: True when ``run_isolated`` uses a process of its own, so a failure there leaves this
    #: implementation running (nothing to restart).
    isolates_misbehaving = False

    #: The stages a narrowed run (``--stage``, ``--api``) may ask, set before ``start``:
    #: every process started from then on gets them in ``PI_CONFORMANCE_STAGES``
    #: (comma-separated), a hint for an implementation that loads what a stage needs lazily.
    #: None (the variable unset) when the run may ask any stage.
    stages_hint: tuple[str, ...] | None = None

    def hinted_env(self, env: Mapping[str, str] | None) -> dict[str, str] | None:
        """``env`` (None: the runner's own) with the stages hint, if there is one."""
        if self.stages_hint is None:
            return dict(env) if env is not None else None
        return {**(env if env is not None else os.environ),
                STAGES_VARIABLE: ",".join(self.stages_hint)}

    def run_isolated(self, request: dict[str, Any], timeout: float, *,
                     another_follows: bool = True) -> Any:
        """Run a case on which Pi itself misbehaves; by default like any other.
        ``another_follows`` is False for the last such case: nothing need be readied."""
        return self.run(request, timeout)

    def close(self) -> None:  # noqa: B027 (an optional hook)
        """Release whatever ``start`` acquired."""

    def check_quiet(self) -> None:  # noqa: B027 (an optional hook: one-shot keeps nothing)
        """Raise ``Unsolicited`` if the process wrote anything since its last answer (asked
        after the last case, which no next request will check)."""

    def abort(self) -> None:  # noqa: B027 (an optional hook)
        """Called from another thread (Ctrl-C, SIGTERM): kill whatever process a ``start``,
        ``restart`` or ``run`` is waiting on, so that call fails at once instead of waiting
        its timeout, and start none from now on. ``close`` still follows."""

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
                 teardown: Callable[[], None] | None = None,
                 isolated_env: Mapping[str, str] | None = None):
        self.spec = spec
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.setup = setup
        self.teardown = teardown
        self.isolated_env = dict(isolated_env) if isolated_env is not None else None
        self.connection: ProcessConnection | None = None
        self._spare: _Spare | None = None
        self._isolated: ProcessConnection | None = None  # answering in run_isolated
        self.restarts = 0
        self.aborted = False

    @property
    def isolates_misbehaving(self) -> bool:  # type: ignore[override]
        return self.isolated_env is not None

    def _open(self, extra_env: Mapping[str, str] | None = None, *, main: bool = False
              ) -> tuple[ProcessConnection, protocol.Hello]:
        """Start a process and take its hello; the ``main`` one is ``self.connection`` from
        the start, so that :meth:`abort` can reach it while it starts."""
        if self.aborted:
            raise ImplementationError(f"{self.spec}: stopped")
        env = self.env
        if self.setup is not None:
            env = {**(env or os.environ), **self.setup()}
        if extra_env:
            env = {**(env or os.environ), **extra_env}
        connection = ProcessConnection(self.command, cwd=self.cwd, env=self.hinted_env(env))
        if main:
            self.connection = connection
        if self.aborted:  # aborted while it started: abort() may not have seen it
            connection.abort()
        try:
            answer = connection.ask(protocol.hello_request(), HELLO_TIMEOUT)
            try:
                return connection, protocol.Hello.parse(answer)
            except ImplementationError as exc:
                shown = jsonio.dumps(answer)[:200].decode("utf-8", errors="replace")
                raise ImplementationError(f"{exc}; it answered {shown!r}") from None
        except ImplementationError as exc:
            connection.kill()
            if self.connection is connection:
                self.connection = None
            raise ImplementationError(self.handshake_failure(exc)) from None

    def handshake_failure(self, exc: ImplementationError) -> str:
        """What to say when the hello failed. A line that is not a hello answer is usually a
        log line written first (whether before or after the hello request went out)."""
        if isinstance(exc, (Timeout, Crashed)):
            return f"{self.spec}: handshake failed: {exc}"
        return (f"{self.spec}: handshake failed: {exc}; the first line it writes to stdout "
                "must be its hello answer (logs belong on stderr)")

    def _connect(self) -> protocol.Hello:
        self.connection, hello = self._open(main=True)
        return hello

    def run_isolated(self, request: dict[str, Any], timeout: float, *,
                     another_follows: bool = True) -> Any:
        """With ``isolated_env``: a process of its own for this one request (its heap capped,
        say), killed afterwards whatever happened; the main process is never disturbed.

        Starting one costs as much as the request: when ``another_follows``, the next is
        started in the background as soon as this one is done, while the main process
        answers other cases; after the last, none is.
        """
        if self.isolated_env is None:
            return self.run(request, timeout)
        spare, self._spare = self._spare, None
        connection = spare.take() if spare is not None else None
        if connection is None:
            connection = self._open(self.isolated_env)[0]
        self._isolated = connection
        if self.aborted:  # aborted while it was taken: abort() may not have seen it
            connection.abort()
        try:
            return connection.ask(request, timeout)
        finally:
            self._isolated = None
            connection.kill()
            if another_follows and not self.aborted:
                self._spare = _Spare(lambda: self._open(self.isolated_env)[0])

    def start(self) -> protocol.Hello:
        self.hello = self._connect()
        return self.hello

    def restart(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.kill()
        self.restarts += 1
        hello = self._connect()
        changed = self.hello.differences(hello)
        if changed:  # refused: the run was planned from the first hello
            connection, self.connection = self.connection, None
            if connection is not None:
                connection.kill()
            raise ImplementationError(f"{self.spec}: answered a different hello after a "
                                      f"restart ({'; '.join(changed)})")

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        connection = self.connection  # close() may take it away from another thread
        if connection is None:
            raise Crashed("the implementation is not running")
        try:
            return connection.ask(request, timeout)
        except RequestTooLarge:
            raise  # refused before it was sent: the process is as it was
        except ImplementationError:
            # Whatever it was (a hang, garbage, an answer out of order), this process can no
            # longer be trusted to pair answers with requests.
            connection.kill()
            if self.connection is connection:
                self.connection = None
            raise

    def check_quiet(self) -> None:
        connection = self.connection
        if connection is None:
            return
        try:
            connection.check_quiet()
        except ImplementationError:
            connection.kill()
            if self.connection is connection:
                self.connection = None
            raise

    def abort(self) -> None:
        self.aborted = True
        for connection in (self.connection, self._isolated):
            if connection is not None:
                connection.abort()

    def close(self) -> None:
        if self._spare is not None:
            self._spare.discard()
            self._spare = None
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()
        if self.teardown is not None:
            self.teardown()


class _Spare:
    """A process being started on a thread, for the next isolated request."""

    def __init__(self, open_connection: Callable[[], ProcessConnection]):
        self.connection: ProcessConnection | None = None
        self.thread = threading.Thread(target=self._start, args=(open_connection,), daemon=True)
        self.thread.start()

    def _start(self, open_connection: Callable[[], ProcessConnection]) -> None:
        with contextlib.suppress(ImplementationError):  # then the next request starts its own
            self.connection = open_connection()

    def take(self) -> ProcessConnection | None:
        self.thread.join()
        return self.connection

    def discard(self) -> None:
        connection = self.take()
        if connection is not None:
            connection.kill()


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
        self.connection: ProcessConnection | None = None
        self.aborted = False

    def _exchange(self, message: dict[str, Any], timeout: float) -> Any:
        if self.aborted:
            raise ImplementationError(f"{self.spec}: stopped")
        connection = self.connection = ProcessConnection(self.command, cwd=self.cwd,
                                                         env=self.hinted_env(self.env))
        try:
            if self.aborted:
                connection.abort()
            return connection.ask_once(message, timeout)
        finally:
            self.connection = None
            connection.kill()

    def abort(self) -> None:
        self.aborted = True
        connection = self.connection
        if connection is not None:
            connection.abort()

    def start(self) -> protocol.Hello:
        try:
            self.hello = protocol.Hello.parse(
                self._exchange(protocol.hello_request(), HELLO_TIMEOUT))
        except ImplementationError as exc:
            raise ImplementationError(f"{self.spec}: handshake failed: {exc}") from None
        return self.hello

    def run(self, request: dict[str, Any], timeout: float) -> Any:
        return self._exchange(request, timeout)


def reference(variation: Mapping[str, str] | None = None) -> PersistentImplementation:
    """The real Pi, with a private HOME and agent directory for each process it starts.

    ``variation``: the harness's ``PI_CONFORMANCE_*`` variables (seed, clock offset, scratch
    tag) with which ``corpus regenerate`` finds the values Pi invents; none by default.
    """
    installation = ref.require_installation()
    setup, teardown = ref.sandbox_homes(variation)
    return PersistentImplementation(
        "reference", installation.harness_command(), env=ref.capped_env(os.environ),
        setup=setup,
        teardown=teardown, isolated_env=ref.MISBEHAVING_ENV)


class PythonHostedImplementation(PersistentImplementation):
    """A Python callable in a ``python_host`` child process."""

    def handshake_failure(self, exc: ImplementationError) -> str:
        if isinstance(exc, Crashed) and exc.code == python_host.LOAD_FAILED and exc.stderr:
            # the host said in one line why it could not load the target: that line alone
            return f"{self.spec}: {exc.stderr.splitlines()[-1]}"
        return super().handshake_failure(exc)


def python_callable(spec: str, target: str, *, cwd: Path | None = None) -> PersistentImplementation:
    if python_host.split_target(target) is None:
        raise ImplementationError(f"{spec}: expected python:MODULE:ATTRIBUTE, got {target!r}")
    command = [sys.executable, "-m", "conformance.implementations.python_host", target]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd or Path.cwd()), *sys.path])}
    return PythonHostedImplementation(spec, command, cwd=cwd, env=env)
