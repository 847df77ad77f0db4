"""Writes 100 MB to stdout instead of answering a --on case: one endless line, or --lines."""

import sys

from _fake import Goldens, arguments, serve, write

MEGABYTE = b"x" * (1024 * 1024)


def extra(parser):
    parser.add_argument("--lines", action="store_true", help="many short garbage lines")
    parser.add_argument("--megabytes", type=int, default=100)


args = arguments(extra)
goldens = Goldens(args.corpus)


def answer(request):
    if request["case"]["id"] in args.on:
        chunk = (b"garbage\n" * (len(MEGABYTE) // 8)) if args.lines else MEGABYTE
        try:
            for _ in range(args.megabytes):
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.write(b"\n")
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            sys.exit(0)
        write(goldens.answer(request))
        return
    write(goldens.answer(request))


serve(answer)
