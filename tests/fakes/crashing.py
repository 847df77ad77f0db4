"""Dies (exit code 3, a message on stderr) when asked about a --on case."""

import os
import sys

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)


def answer(request):
    if request["case"]["id"] in args.on:
        sys.stderr.write(f"fake: crashing on {request['case']['id']}\n")
        sys.stderr.flush()
        os._exit(3)
    write(goldens.answer(request))


serve(answer)
