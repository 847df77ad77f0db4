"""Answers every stage with one big text (--megabytes, default 5) instead of the golden's
output: the report must stay bounded however much an implementation says."""

from _fake import Goldens, arguments, serve, write


def extra(parser):
    parser.add_argument("--megabytes", type=float, default=5)


args = arguments(extra)
goldens = Goldens(args.corpus)


def answer(request):
    reply = goldens.answer(request)
    text = "x" * int(args.megabytes * 1024 * 1024)
    for result in reply["results"].values():
        if "output" in result:
            result["output"] = {"text": text}
    write(reply)


serve(answer)
