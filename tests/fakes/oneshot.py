"""The one-shot contract: one request on stdin, its answer on stdout, then exit.

``--mode`` on a --on case: crash (exit 3), hang, garbage; every other case is answered right.
"""

import os
import sys
import time

import orjson
from _fake import HELLO, Goldens, arguments


def extra(parser):
    parser.add_argument("--mode", default="correct", choices=["correct", "crash", "hang",
                                                               "garbage"])


args = arguments(extra)
request = orjson.loads(sys.stdin.buffer.read())
if request["cmd"] == "hello":
    answer = HELLO
else:
    if request["case"]["id"] in args.on:
        if args.mode == "crash":
            sys.stderr.write("fake one-shot: crashing\n")
            os._exit(3)
        if args.mode == "hang":
            time.sleep(3600)
        if args.mode == "garbage":
            sys.stdout.write("this is not json")
            sys.exit(0)
    answer = Goldens(args.corpus).answer(request)
sys.stdout.buffer.write(orjson.dumps(answer))
