"""Answers --after N requests, then writes half an answer and exits 0, as if it was done."""

import os
import sys

from _fake import Goldens, arguments, serve, write


def extra(parser):
    parser.add_argument("--after", type=int, default=1)


args = arguments(extra)
goldens = Goldens(args.corpus)
answered = {"count": 0}


def answer(request):
    if answered["count"] >= args.after:
        sys.stdout.buffer.write(b'{"seq": ' + str(request["seq"]).encode() + b', "resu')
        sys.stdout.buffer.flush()
        os._exit(0)
    answered["count"] += 1
    write(goldens.answer(request))


serve(answer)
