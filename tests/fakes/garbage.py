"""Prints a line that is not JSON instead of answering a --on case."""

import sys

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)


def answer(request):
    if request["case"]["id"] in args.on:
        sys.stdout.write("Loading session... done!\n")
        sys.stdout.flush()
        return
    write(goldens.answer(request))


serve(answer)
