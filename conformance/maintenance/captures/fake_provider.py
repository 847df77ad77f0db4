"""A scripted model provider on 127.0.0.1: answers each POST with the next scripted turn.

It speaks the streaming protocol of one API (``wire.ENCODERS``) and records every request
exactly as received (path, a few stable headers, the parsed JSON body). A ``stall`` turn sends
its first delta and then holds the connection until the client hangs up, so an abort lands
at a known point. A request beyond the script gets HTTP 500 with a message saying so.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from conformance.maintenance.captures.script import Turn
from conformance.maintenance.captures.wire import ENCODERS

# Request headers worth recording: stable, and part of what Pi sends on purpose.
RECORDED_HEADERS = ("content-type", "authorization", "x-api-key", "anthropic-version",
                    "anthropic-beta", "x-goog-api-key")


START_PAUSE = 0.03


class _Handler(BaseHTTPRequestHandler):
    server: FakeProvider
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._plain(404, {"error": {"message": "the fake provider only answers POST"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        headers = {h: self.headers[h] for h in RECORDED_HEADERS if self.headers.get(h)}
        turn, n = self.server.take({"method": "POST", "path": self.path, "headers": headers,
                                    "body": body})
        if turn is None:
            self._plain(500, {"error": {"message": f"fake provider: no scripted turn {n}"}})
        elif turn.is_error:
            self._raw(turn.error_status or 500, turn.error_body.encode(), "application/json")
        else:
            model = body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"
            model = self.server.model_id or model
            self._stream(turn, str(model), n)

    def _plain(self, status: int, payload: Any) -> None:
        self._raw(status, json.dumps(payload).encode(), "application/json")

    def _raw(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, turn: Turn, model: str, n: int) -> None:
        frames, first_delta = ENCODERS[self.server.api](turn, model, n)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.flush()
            # Give Pi time to write message_start before any content arrives (volatile.py 6).
            time.sleep(START_PAUSE)
            for frame in frames[:first_delta] if turn.stall else frames:
                self.wfile.write(frame)
                self.wfile.flush()
            if turn.stall:
                self._hold()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _hold(self) -> None:
        """Keep the stream open until the client hangs up or the server stops."""
        sock = self.connection
        while not self.server.stopping.is_set():
            readable, _, _ = select.select([sock], [], [], 0.05)
            if readable:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        return
                except OSError:
                    return


class FakeProvider(ThreadingHTTPServer):
    """Serve ``turns`` in order for ``api`` on 127.0.0.1 (port 0: the OS picks one)."""

    daemon_threads = True

    def __init__(self, api: str, turns: list[Turn], model_id: str | None = None, port: int = 0):
        if api not in ENCODERS:
            raise ValueError(f"no wire encoder for API {api!r}")
        super().__init__(("127.0.0.1", port), _Handler)
        self.api = api
        self.turns = list(turns)
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def take(self, request: dict[str, Any]) -> tuple[Turn | None, int]:
        with self._lock:
            n = len(self.requests)
            self.requests.append(request)
            return (self.turns[n] if n < len(self.turns) else None), n

    def __enter__(self) -> FakeProvider:
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
