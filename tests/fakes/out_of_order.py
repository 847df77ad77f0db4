"""Answers a --on case with the previous request's seq, as if answers overtook each other."""

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)
previous = {"seq": -1}


def answer(request):
    reply = goldens.answer(request)
    if request["case"]["id"] in args.on:
        reply["seq"] = previous["seq"]
    previous["seq"] = request["seq"]
    write(reply)


serve(answer)
