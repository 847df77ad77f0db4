"""Writes terminal escape sequences (OSC, CSI, C1 CSI, NUL, BEL) where a person will read
them: --in-hello in its name, --on CASE in that case's run error, --die-at-hello on stderr
before it exits without a hello. Otherwise correct."""

import copy
import sys

from _fake import HELLO, Goldens, arguments, serve, write

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x00\x9b31m\r"

args = arguments(lambda parser: (parser.add_argument("--in-hello", action="store_true"),
                                 parser.add_argument("--die-at-hello", action="store_true")))
goldens = Goldens(args.corpus)
hello = copy.deepcopy(HELLO)
if args.in_hello:
    hello["implementation"]["name"] = f"fake{ESCAPES}"
if args.die_at_hello:
    sys.stderr.write(f"fake: cannot start{ESCAPES}\n")
    sys.stderr.flush()
    sys.exit(1)


def answer(request):
    if request["case"]["id"] in args.on:
        write({"seq": request["seq"], "error": {"message": f"refused{ESCAPES}"}})
    else:
        write(goldens.answer(request))


serve(answer, hello)
