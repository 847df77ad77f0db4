"""The RPC driver against a stand-in process: records, waits, deadlines, exits (no Pi)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.maintenance.captures.rpc_driver import CaptureError, RpcDriver

STANDIN = textwrap.dedent('''
    import json, sys, time
    for line in sys.stdin:
        command = json.loads(line)
        kind = command["type"]
        if kind == "exit":
            sys.stderr.write("stand-in: exiting on request\\n")
            sys.exit(4)
        if kind == "hang":
            time.sleep(30)
        out = [{"type": "agent_start"}, {"type": "message_update", "text": "a\\u2028b"},
               {"type": "agent_settled", "aborted": False}] if kind == "prompt" else []
        out.insert(0, {"id": command["id"], "type": "response", "command": kind,
                       "success": kind != "refuse", "error": "no"})
        sys.stdout.write("".join(json.dumps(r, ensure_ascii=False) + "\\n" for r in out))
        sys.stdout.flush()
''')


@pytest.fixture
def driver(tmp_path: Path):
    script = tmp_path / "standin.py"
    script.write_text(STANDIN)
    started = RpcDriver([sys.executable, str(script)], tmp_path, dict(os.environ), timeout=3)
    yield started
    started.close(grace=0.5)


def test_records_every_line_in_order_and_splits_only_on_lf(driver: RpcDriver):
    answer = driver.response(driver.send({"type": "prompt", "message": "hi"}))
    assert answer["success"] is True and answer["id"] == "cmd-1"
    settled = driver.wait_for(lambda r: r.get("type") == "agent_settled", "agent_settled")
    assert settled == {"type": "agent_settled", "aborted": False}
    assert [r["type"] for r in driver.records] == [
        "response", "agent_start", "message_update", "agent_settled"]
    assert driver.records[2]["text"] == "a\u2028b"  # U+2028 inside JSON is not a line break


def test_a_refused_command_is_a_capture_error(driver: RpcDriver):
    with pytest.raises(CaptureError, match="pi refused refuse: no"):
        driver.request({"type": "refuse"})


def test_a_silent_process_hits_the_deadline(driver: RpcDriver):
    driver.send({"type": "hang"})
    with pytest.raises(CaptureError, match=r"no response to x within 0.3s"):
        driver.wait_for(lambda r: False, "response to x", timeout=0.3)


def test_an_exit_is_reported_with_stderr(driver: RpcDriver):
    driver.send({"type": "exit"})
    with pytest.raises(CaptureError, match=r"pi exited \(code 4\).*exiting on request"):
        driver.wait_for(lambda r: False, "anything")
    assert driver.close() == 4
