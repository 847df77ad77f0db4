"""Right answers wrapped in protocol sloppiness a lenient runner tolerates: an extra top-level
key and a result for a stage nobody asked for. --validate-protocol must catch both."""

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)


def answer(request):
    reply = goldens.answer(request)
    reply["debug"] = {"elapsed_ms": 1}
    reply["results"]["not-a-stage"] = {"output": None}
    write(reply)


serve(answer)
