"""An events-stage implementation: the messages a recorded RPC stream shows Pi persisting.

Reads the run request's ``events`` file (never a golden): each ``message_end`` message, in
order. ``--keep-start`` is the classic bug: it also keeps the assistant snapshot of
``message_start`` (stopReason ``pending``) as if it were a message.
"""

import sys

import orjson

keep_start = "--keep-start" in sys.argv
HELLO = {"protocol": 1,
         "implementation": {"name": "events-reader", "version": "0", "language": "python",
                            "homepage": "https://example.invalid/events-reader"},
         "capabilities": {"stages": ["events"]}}


def messages(path: str) -> list:
    found = []
    with open(path, "rb") as stream:
        for line in stream:
            event = orjson.loads(line)
            if event["type"] == "message_end" or (
                    keep_start and event["type"] == "message_start"
                    and event["message"]["role"] == "assistant"):
                found.append(event["message"])
    return found


for line in sys.stdin.buffer:
    request = orjson.loads(line)
    if request["cmd"] == "hello":
        answer = HELLO
    elif request["cmd"] == "bye":
        break
    else:
        answer = {"seq": request["seq"], "results": {
            stage: ({"output": {"messages": messages(request["events"]["path"])}}
                    if stage == "events" and "events" in request
                    else {"skipped": "not claimed" if stage != "events" else "no recorded stream"})
            for stage in request["stages"]}}
    sys.stdout.buffer.write(orjson.dumps(answer) + b"\n")
    sys.stdout.buffer.flush()
