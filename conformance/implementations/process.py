"""A persistent implementation process speaking protocol v1 over stdin and stdout.

The runner owns the process: it starts it, bounds every wait with a timeout, reads stdout
on a thread so a process that floods or never answers cannot block it, keeps the last part
of stderr for error messages, and kills the whole process group when it misbehaves.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from conformance import jsonio, protocol
from conformance.errors import ImplementationError

MAX_LINE = 64 * 1024 * 1024
STDERR_TAIL = 64 * 1024
HELLO_TIMEOUT = 60.0


class Timeout(ImplementationError):
    """The implementation did not answer in time."""


class Crashed(ImplementationError):
    """The implementation exited, or closed its stdout."""


class _Lines:
    """stdout as a queue of complete lines; an over-long line is reported, never buffered."""

    def __init__(self, stream: Any):
        self.queue: queue.Queue[tuple[str, bytes | int | None]] = queue.Queue()
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream: Any) -> None:
        try:
            while True:
                line = stream.readline(MAX_LINE)
                if not line:
                    break
                if line.endswith(b"\n"):
                    self.queue.put(("line", line))
                    continue
                if len(line) < MAX_LINE:  # the last line, without a newline, then EOF
                    self.queue.put(("line", line))
                    continue
                size = len(line)
                while line and not line.endswith(b"\n"):
                    line = stream.readline(MAX_LINE)
                    size += len(line)
                self.queue.put(("overlong", size))
        except (OSError, ValueError):
            pass
        self.queue.put(("eof", None))

    def get(self, timeout: float) -> tuple[str, bytes | int | None]:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            raise Timeout(f"no answer within {timeout:g}s") from None


class _StderrTail:
    def __init__(self, stream: Any):
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        try:
            for chunk in iter(lambda: stream.read1(65536), b""):
                with self.lock:
                    self.chunks.append(chunk)
                    self.size += len(chunk)
                    while self.size > STDERR_TAIL and len(self.chunks) > 1:
                        self.size -= len(self.chunks.popleft())
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        with self.lock:
            data = b"".join(self.chunks)[-STDERR_TAIL:]
        return data.decode("utf-8", errors="replace")


class ProcessConnection:
    """One running implementation process; ``ask`` sends a message and waits for one line."""

    def __init__(self, command: Sequence[str], *, cwd: Path | None = None,
                 env: dict[str, str] | None = None):
        try:
            self.process = subprocess.Popen(
                list(command), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            raise ImplementationError(
                f"cannot start {' '.join(command)}: {exc.strerror or exc}") from None
        self.lines = _Lines(self.process.stdout)
        self.stderr = _StderrTail(self.process.stderr)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(jsonio.dumps_line(message))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._crashed("it closed its stdin") from None

    def receive(self, timeout: float) -> Any:
        kind, value = self.lines.get(timeout)
        if kind == "eof":
            raise self._crashed("it closed its stdout")
        if kind == "overlong":
            raise ImplementationError(f"answer line longer than {MAX_LINE} bytes ({value} bytes)")
        assert isinstance(value, bytes)
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            shown = value[:200].decode("utf-8", errors="replace")
            raise ImplementationError(f"answer is not JSON ({exc.msg}): {shown!r}") from None

    def ask(self, message: dict[str, Any], timeout: float) -> Any:
        self.send(message)
        return self.receive(timeout)

    def _crashed(self, how: str) -> Crashed:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.stderr.text().strip()
        detail = f"{how}; exit code {code}" if code is not None else how
        return Crashed(f"the implementation stopped: {detail}" + (f"\n{tail}" if tail else ""))

    def close(self, grace: float = 2.0) -> None:
        """Say bye, then make sure the process and its children are gone."""
        if self.process.poll() is None:
            try:
                self.send(protocol.bye_request())
                self.process.stdin.close()  # type: ignore[union-attr]
            except (ImplementationError, OSError, ValueError):
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
