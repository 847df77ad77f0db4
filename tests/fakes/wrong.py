"""Right in most stages, wrong in the stages given with --stage (every case, or --on ones)."""

from _fake import Goldens, arguments, serve, write


def extra(parser):
    parser.add_argument("--stage", action="append", default=[])


args = arguments(extra)
goldens = Goldens(args.corpus)


def spoil(value):
    """A small, deterministic mistake: the first message's role, or an extra key."""
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and messages and isinstance(messages[0], dict):
            messages[0]["role"] = "wrong-role"
            return value
        value["unexpected"] = True
    return value


def answer(request):
    reply = goldens.answer(request)
    if not args.on or request["case"]["id"] in args.on:
        for stage in args.stage:
            result = reply["results"].get(stage)
            if result and "output" in result:
                result["output"] = spoil(result["output"])
    write(reply)


serve(answer)
