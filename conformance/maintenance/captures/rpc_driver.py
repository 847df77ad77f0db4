"""Drive ``pi --mode rpc``: send commands, collect every stdout record, wait with deadlines.

Records are split on LF only (docs/rpc.md: never on U+2028). Every wait is bounded; a Pi that
stops answering becomes a CaptureError that quotes the tail of its stderr, never a hang.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from conformance.errors import ConformanceError


class CaptureError(ConformanceError):
    """Pi did not behave as the scenario needs (exit, hang, refused command)."""


Record = dict[str, Any]


class RpcDriver:
    """One running ``pi --mode rpc`` process and everything it wrote on stdout."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str], timeout: float = 60.0):
        self.timeout = timeout
        self.records: list[Record] = []
        self._queue: queue.Queue[Record | None] = queue.Queue()
        self._seen = 0
        self._ids = 0
        self.process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self._stderr: list[bytes] = []
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,),
                                        daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._drain, args=(self.process.stderr,),
                                               daemon=True)
        self._stderr_reader.start()

    def _read(self, stream: IO[bytes]) -> None:
        buffer = b""
        while chunk := os.read(stream.fileno(), 65536):
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                line = line.rstrip(b"\r")
                if line.strip():
                    try:
                        self._queue.put(json.loads(line))
                    except ValueError:
                        self._queue.put({"type": "__unparsable__",
                                         "line": line.decode("utf-8", "replace")})
        self._queue.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        while chunk := os.read(stream.fileno(), 65536):
            self._stderr.append(chunk)

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")[-3000:]

    def send(self, command: Record) -> str:
        """Write one command (an id is added when it has none); returns its id."""
        if "id" not in command:
            self._ids += 1
            command = {"id": f"cmd-{self._ids}", **command}
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command).encode() + b"\n")
        self.process.stdin.flush()
        return str(command["id"])

    def wait_for(self, predicate: Callable[[Record], bool], what: str,
                 timeout: float | None = None) -> Record:
        """The first record not yet waited past that satisfies ``predicate``."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            while self._seen < len(self.records):
                record = self.records[self._seen]
                self._seen += 1
                if predicate(record):
                    return record
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CaptureError(f"pi gave no {what} within {timeout or self.timeout}s; "
                                   f"stderr: {self.stderr_tail()}")
            try:
                received = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if received is None:
                # stdout closed: let it finish exiting and writing stderr
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
                self._stderr_reader.join(timeout=5)
                raise CaptureError(f"pi exited (code {self.process.poll()}) while waiting for "
                                   f"{what}; stderr: {self.stderr_tail()}")
            self.records.append(received)

    def response(self, command_id: str, timeout: float | None = None) -> Record:
        """Wait for the answer to a command; a refused command is a CaptureError."""
        start = self._seen
        answer = self.wait_for(
            lambda r: r.get("type") == "response" and r.get("id") == command_id,
            f"response to {command_id}", timeout)
        self._seen = start  # events before the answer are still to be waited on
        return answer

    def request(self, command: Record) -> Record:
        answer = self.response(self.send(command))
        if not answer.get("success"):
            raise CaptureError(f"pi refused {command.get('type')}: {answer.get('error')}")
        return answer

    def close(self, grace: float = 15.0) -> int:
        """Close stdin (orderly shutdown), then wait; kill only if Pi does not exit."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            code = self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._reader.join(timeout=5)  # stdout is closed: the reader ends
        while True:  # collect anything written before exit
            try:
                record = self._queue.get_nowait()
            except queue.Empty:
                break
            if record is not None:
                self.records.append(record)
        return code
