"""An implementation that does no work: every stage is answered ``skipped`` at once.

Its round trip is the protocol's own cost, which is what bench_runner.py compares between
the persistent and the one-shot way. ``--oneshot`` answers one request and exits.
"""

import json
import sys

HELLO = {"protocol": 1,
         "implementation": {"name": "null", "version": "0", "language": "python"},
         "capabilities": {"stages": ["entries"]}}


def answer(message):
    if message["cmd"] == "hello":
        return HELLO
    return {"seq": message["seq"],
            "results": {stage: {"skipped": "null"} for stage in message["stages"]}}


if "--oneshot" in sys.argv:
    sys.stdout.write(json.dumps(answer(json.loads(sys.stdin.read()))))
else:
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "bye":
            break
        sys.stdout.write(json.dumps(answer(message)) + "\n")
        sys.stdout.flush()
