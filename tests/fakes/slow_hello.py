"""Answers the hello only in the first process started: every later one (a second -j worker,
a restart) never answers it. Each process appends its pid to $FAKE_STARTS."""

import os
import time

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)
with open(os.environ["FAKE_STARTS"], "a") as starts:
    starts.write(f"{os.getpid()}\n")
with open(os.environ["FAKE_STARTS"]) as starts:
    if starts.read().split()[0] != str(os.getpid()):
        time.sleep(3600)


def answer(request):
    write(goldens.answer(request))


serve(answer)
