"""Writes its answer to a --on case twice (the same line), as an adapter with a doubled print
would; otherwise correct. --apart: the second copy in a write of its own, a moment later."""

import sys
import time

from _fake import Goldens, arguments, dumps, serve, write

args = arguments(lambda parser: parser.add_argument("--apart", action="store_true"))
goldens = Goldens(args.corpus)


def answer(request):
    reply = goldens.answer(request)
    if request["case"]["id"] not in args.on:
        write(reply)
    elif args.apart:
        write(reply)
        time.sleep(0.2)  # not a test of timing: either order must blame this case
        write(reply)
    else:
        sys.stdout.buffer.write((dumps(reply) + b"\n") * 2)
        sys.stdout.buffer.flush()


serve(answer)
