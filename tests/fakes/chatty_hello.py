"""Writes one line to stdout (--say) before its hello answer, otherwise correct: --when start
writes it at start-up, before reading anything, then creates the file $FAKE_PRINTED (so a test
can send the hello only once the line is surely written); --when asked writes it after reading
the hello request, just before the answer."""

import os
import sys
from pathlib import Path

from _fake import HELLO, Goldens, arguments, serve, write

args = arguments(lambda parser: (parser.add_argument("--say", required=True),
                                 parser.add_argument("--when", choices=["start", "asked"],
                                                     required=True)))
goldens = Goldens(args.corpus)


def say() -> None:
    sys.stdout.write(args.say + "\n")
    sys.stdout.flush()


if args.when == "start":
    say()
    if os.environ.get("FAKE_PRINTED"):
        Path(os.environ["FAKE_PRINTED"]).touch()
else:
    sys.stdin.buffer.readline()  # the hello request
    say()
    write(HELLO)


def answer(request):
    write(goldens.answer(request))


serve(answer)
