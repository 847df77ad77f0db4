"""Right everywhere but the context stage of the --on cases, where the first message's text
holds an escaped lone surrogate, as Node's JSON.stringify writes it (valid JSON)."""

import orjson
from _fake import Goldens, arguments, serve

args = arguments()
goldens = Goldens(args.corpus)
MARK = "@@lone-surrogate@@"


def answer(request):
    reply = goldens.answer(request)
    context = reply["results"].get("context", {}).get("output")
    if request["case"]["id"] in args.on and context and context.get("messages"):
        context["messages"][0]["content"] = MARK
    line = orjson.dumps(reply).replace(MARK.encode(), b"lone \\ud800 high")
    import sys
    sys.stdout.buffer.write(line + b"\n")
    sys.stdout.buffer.flush()


serve(answer)
