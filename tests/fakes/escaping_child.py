"""Starts a grandchild that calls setsid() (leaving the process group a group kill reaches)
each time it is started, before it answers the hello; the grandchild's pid is appended to
$FAKE_GRANDCHILDREN."""

import os
import subprocess
import sys

from _fake import Goldens, arguments, serve, write

DAEMON = """
import os, sys, time
os.setsid()
print(os.getpid(), flush=True)
time.sleep(3600)
"""

args = arguments()
goldens = Goldens(args.corpus)
daemon = subprocess.Popen([sys.executable, "-c", DAEMON], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, text=True)
with open(os.environ["FAKE_GRANDCHILDREN"], "a") as pids:
    pids.write(daemon.stdout.readline())


def answer(request):
    write(goldens.answer(request))


serve(answer)
