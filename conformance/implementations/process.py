"""An implementation process and one bounded exchange with it: a request out, an answer back.

The runner owns the process. Every exchange is a single ``select`` loop over the process's
stdin and stdout with one deadline, so nothing the implementation does can block the runner:
not a hang, not a flood of output, not refusing to read its stdin. Only one answer line
(at most ``max_line`` bytes) is ever held in memory; stderr is drained on a thread that keeps
just its tail for error messages. A misbehaving process is killed with every process it
started, even one that left its process group (reaping.py).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.errors import ImplementationError, ProtocolViolation
from conformance.implementations import protocol, reaping

#: The runner's own limits, the same whichever process answers (an implementation or Pi):
#: one answer line (the most the runner holds in memory), and one request line (a session is
#: sent whole in its request; Node, which runs Pi, cannot read a line past 512 MiB as one
#: string). Past them the error names the runner's limit, so that nobody blames the process.
MAX_LINE = 64 * 1024 * 1024
MAX_REQUEST = 256 * 1024 * 1024
STDERR_TAIL = 64 * 1024
HELLO_TIMEOUT = 60.0
_CHUNK = 1024 * 1024


class Timeout(ImplementationError):
    """The implementation did not answer in time."""


def size(count: int) -> str:
    """A byte count for people: ``64 MiB``, ``16 KiB``, ``1.5 GiB``, ``700 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


class OverLimit(ImplementationError):
    """A message past one of the runner's own size limits: the words name the runner's limit
    and give it, whichever process it was for (``of`` says which, where the caller knows)."""

    def __init__(self, what: str, count: int, limit: int, unit: str, constant: str,
                 note: str = ""):
        self.what, self.limit = what, limit
        self.rest = (f"exceeds the runner's limit of {size(limit)} a {unit} "
                     f"({size(count)}{note}; process.{constant})")
        super().__init__(f"the {what} {self.rest}")

    def of(self, side: str) -> str:
        """The message, saying whose answer it was (or to whom the request would have gone):
        "Pi's answer line exceeds the runner's limit of 64 MiB a line (...)"."""
        return f"{side}'s {self.what} {self.rest}"


class AnswerTooLarge(OverLimit, ProtocolViolation):
    """An answer line (or a one-shot's whole output) over ``MAX_LINE``: the process is out
    of step, as after any protocol violation, and is restarted."""


class RequestTooLarge(OverLimit):
    """A request over ``MAX_REQUEST``, refused before it is sent: the process never saw it,
    so it is blamed for nothing and keeps running."""

    def of(self, side: str) -> str:
        return f"the {self.what} to {side} {self.rest}"


class Unsolicited(ProtocolViolation):
    """Output after the last answer, found before the next request went out: it belongs to
    the exchange before, never to the request about to be sent. ``seq``: the request it
    names, when it is an answer (a second answer to one request)."""

    seq: int | None = None


class Crashed(ImplementationError):
    """The implementation exited, or closed its stdin or stdout."""

    #: its exit status, when it exited; and the tail of its stderr
    code: int | None = None
    stderr: str = ""


class _StderrTail:
    """Drains stderr so the process never blocks on it; keeps the last STDERR_TAIL bytes."""

    def __init__(self, stream: Any):
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream: Any) -> None:
        with contextlib.suppress(OSError, ValueError):
            for chunk in iter(lambda: stream.read(65536), b""):
                with self.lock:
                    self.chunks.append(chunk)
                    self.size += len(chunk)
                    while self.size > STDERR_TAIL and len(self.chunks) > 1:
                        self.size -= len(self.chunks.popleft())

    def text(self) -> str:
        self.thread.join(timeout=0.5)  # let it catch the last words of a dying process
        with self.lock:
            data = b"".join(self.chunks)[-STDERR_TAIL:]
        return data.decode("utf-8", errors="replace")


def _seq_of(line: bytes) -> int | None:
    """The ``seq`` a line names, if it is a JSON object with an integer one."""
    try:
        value = jsonio.loads(line)
    except (jsonio.JSONDecodeError, ValueError):
        return None
    seq = value.get("seq") if isinstance(value, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


class ProcessConnection:
    """One running implementation process.

    ``ask`` sends a message and returns the next line it answers, parsed; ``ask_once`` sends a
    message, closes stdin and returns all of stdout, parsed (the one-shot contract).
    """

    def __init__(self, command: Sequence[str], *, cwd: Path | None = None,
                 env: dict[str, str] | None = None, max_line: int | None = None):
        self.marker = reaping.new_marker()
        env = {**(os.environ if env is None else env), reaping.MARKER_VARIABLE: self.marker}
        try:
            self.process = subprocess.Popen(
                list(command), cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, bufsize=0,
            )
        except OSError as exc:
            raise ImplementationError(
                f"cannot start {' '.join(command)}: {exc.strerror or exc}") from None
        assert self.process.stdin and self.process.stdout
        self.max_line = MAX_LINE if max_line is None else max_line
        self.stdin_fd = self.process.stdin.fileno()
        self.stdout_fd = self.process.stdout.fileno()
        os.set_blocking(self.stdin_fd, False)
        os.set_blocking(self.stdout_fd, False)
        self.buffer = bytearray()
        self.scanned = 0  # bytes of ``buffer`` known to hold no newline
        self.eof = False
        self.stdin_open = True
        self.answered = False  # until its first answer, whatever it writes is that answer
        self.stderr = _StderrTail(self.process.stderr)

    @property
    def pid(self) -> int:
        return self.process.pid

    def ask(self, message: dict[str, Any], timeout: float) -> Any:
        """Send ``message``; its answer is the next line written. The first line a process
        writes is the answer to its first request, written before the request or after: only
        once it has answered is a line nobody asked for told apart (``_refuse_unsolicited``)."""
        request = self._request(message)
        if self.answered:
            self._refuse_unsolicited()
        line = self._exchange(request, timeout, to_eof=False)
        try:
            answer = self._parse(line)
        except ProtocolViolation:
            if self.eof:  # it died half way through its answer
                raise self._crashed("it exited in the middle of an answer") from None
            raise
        self.answered = True
        return answer

    def ask_once(self, message: dict[str, Any], timeout: float) -> Any:
        """The one-shot exchange: whole stdout is the answer; the process must exit 0."""
        deadline = time.monotonic() + timeout
        out = self._exchange(self._request(message), timeout, to_eof=True)
        try:
            code = self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise Timeout(f"answered but did not exit within {timeout:g}s") from None
        if code != 0:
            raise self._crashed(f"exit code {code}")
        return self._parse(out)

    @staticmethod
    def _request(message: dict[str, Any]) -> bytes:
        """``message`` as its line, refused (RequestTooLarge) past ``MAX_REQUEST``."""
        line = jsonio.dumps_line(message)
        if len(line) > MAX_REQUEST:
            raise RequestTooLarge("request line", len(line), MAX_REQUEST, "request",
                                  "MAX_REQUEST", "; not sent: a session goes whole in its request")
        return line

    def _exchange(self, request: bytes, timeout: float, *, to_eof: bool) -> bytes:
        deadline = time.monotonic() + timeout
        pending = memoryview(request)
        selector = selectors.DefaultSelector()
        try:
            if self.stdin_open:
                selector.register(self.stdin_fd, selectors.EVENT_WRITE)
            else:
                raise self._crashed("it closed its stdin")
            if not self.eof:
                selector.register(self.stdout_fd, selectors.EVENT_READ)
            while True:
                if not pending and not to_eof:
                    line = self._take_line()
                    if line is not None:
                        return line
                if self.eof and not pending:
                    if to_eof:
                        return bytes(self.buffer)
                    if self.buffer.strip():  # a last line without its newline
                        line = bytes(self.buffer)
                        self.buffer.clear()
                        return line
                    raise self._crashed("it closed its stdout")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise Timeout(f"no answer within {timeout:g}s")
                for key, _ in selector.select(remaining):
                    if key.fd == self.stdin_fd:
                        pending = self._write(pending, selector, close_after=to_eof)
                    else:
                        self._read(selector, to_eof)
        finally:
            selector.close()

    def _write(self, pending: memoryview, selector: selectors.BaseSelector, *,
               close_after: bool) -> memoryview:
        try:
            written = os.write(self.stdin_fd, pending[:_CHUNK])
        except BlockingIOError:
            return pending
        except (BrokenPipeError, ConnectionResetError):
            self.stdin_open = False
            selector.unregister(self.stdin_fd)
            if self.eof or not close_after:
                raise self._crashed("it closed its stdin") from None
            return pending[:0]
        pending = pending[written:]
        if not pending:
            selector.unregister(self.stdin_fd)
            if close_after:
                self.stdin_open = False
                with contextlib.suppress(OSError):
                    self.process.stdin.close()  # type: ignore[union-attr]
        return pending

    def _read(self, selector: selectors.BaseSelector, to_eof: bool) -> None:
        try:
            chunk = os.read(self.stdout_fd, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            self.eof = True
            selector.unregister(self.stdout_fd)
            return
        self.buffer += chunk
        if len(self.buffer) > self.max_line and (to_eof or b"\n" not in chunk):
            read = len(self.buffer)
            self.buffer.clear()
            raise AnswerTooLarge("output" if to_eof else "answer line", read, self.max_line,
                                 "one-shot answer" if to_eof else "line", "MAX_LINE",
                                 " read so far")

    def _refuse_unsolicited(self) -> None:
        """Output nobody asked for (a log line after the last answer) would be taken for the
        next answer; say what it is instead of blaming an innocent case for bad JSON. Only
        after an answer: before its first, a line is that answer whenever it was written (the
        request may or may not have gone out yet: a race the error must not depend on)."""
        if not self.eof:
            with contextlib.suppress(BlockingIOError, OSError):
                while len(self.buffer) <= self.max_line:
                    chunk = os.read(self.stdout_fd, _CHUNK)
                    if not chunk:
                        self.eof = True
                        break
                    self.buffer += chunk
        if self.buffer.strip():
            shown = bytes(self.buffer[:200]).decode("utf-8", errors="replace")
            named = _seq_of(bytes(self.buffer).split(b"\n", 1)[0])
            self.buffer.clear()
            exc = Unsolicited(f"it wrote to stdout after its last answer, unasked: {shown!r}")
            exc.seq = named
            raise exc

    def check_quiet(self) -> None:
        """Raise Unsolicited if it has written anything since its last answer (a second
        answer to it, a log line): asked when no further request will show it."""
        if self.answered and self.stdin_open:
            self._refuse_unsolicited()

    def _take_line(self) -> bytes | None:
        index = self.buffer.find(b"\n", self.scanned)
        if index < 0:
            self.scanned = len(self.buffer)
            return None
        line = bytes(self.buffer[:index])
        del self.buffer[: index + 1]
        self.scanned = 0
        if not line.strip():
            return self._take_line()  # blank lines between messages are allowed
        if len(line) > self.max_line:
            raise AnswerTooLarge("answer line", len(line), self.max_line, "line", "MAX_LINE")
        return line

    def _parse(self, data: bytes) -> Any:
        try:
            return jsonio.loads(data)
        except jsonio.JSONDecodeError as exc:
            shown = data[:200].decode("utf-8", errors="replace")
            raise ProtocolViolation(f"answer is not JSON ({exc.msg}): {shown!r}") from None

    def _crashed(self, how: str) -> Crashed:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.stderr.text().strip()
        if code is not None and "exit code" not in how:
            how = f"{how}; exit code {code}"
        crashed = Crashed(f"the implementation stopped: {how}"
                          + (f"\n{tail[-2000:]}" if tail else ""))
        crashed.code, crashed.stderr = code, tail
        return crashed

    def close(self, grace: float = 2.0) -> bool:
        """Say bye, then make sure the process and its children are gone.

        True when the process exited on its own within ``grace`` seconds of the bye.
        """
        exited = False
        if self.process.poll() is None and self.stdin_open:
            with contextlib.suppress(OSError, ValueError):
                os.write(self.stdin_fd, jsonio.dumps_line(protocol.bye_request()))
                self.process.stdin.close()  # type: ignore[union-attr]
                self.stdin_open = False
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=grace)
                exited = True
        self.kill()
        return exited

    def abort(self) -> None:
        """Kill the process and its descendants, from any thread: an exchange waiting on it
        in another thread ends at once (it sees the process stop) and cleans up."""
        reaping.kill_all(self.process.pid, self.marker)

    def kill(self) -> None:
        """Kill the process, its group and every descendant (even one that left the group:
        see reaping.py), and reap it."""
        self.abort()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()
        self.stdin_open = False
