"""Never answers a --on case (and leaves a child process behind, to be killed too); creates
the file $FAKE_HANGING, when set, once it hangs (so a test can wait for that, not a clock)."""

import os
import subprocess
import sys
import time

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)


def answer(request):
    if request["case"]["id"] in args.on:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        if os.environ.get("FAKE_HANGING"):
            open(os.environ["FAKE_HANGING"], "w").close()
        while True:
            time.sleep(3600)
    write(goldens.answer(request))


serve(answer)
