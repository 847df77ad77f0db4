"""A planted bug: right everywhere but the context stage, where it drops the first message of
every context (what a port that skips the first line after the header would do)."""

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)


def answer(request):
    reply = goldens.answer(request)
    for stage, result in reply["results"].items():
        if "misbehaved" in result:  # where Pi hangs or crashes, this port just refuses
            reply["results"][stage] = {"rejected": {"message": "refused"}}
    context = reply["results"].get("context", {}).get("output")
    if isinstance(context, dict) and context.get("messages"):
        context["messages"] = context["messages"][1:]
    write(reply)


serve(answer)
