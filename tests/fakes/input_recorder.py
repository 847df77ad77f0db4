"""Claims some stages given their input and appends each run request's ``inputs`` (case id,
asked stages, inputs) to the file named by ``--record``; answers with the goldens."""

import orjson
from _fake import HELLO, Goldens, arguments, serve, write


def extra(parser):
    parser.add_argument("--record", required=True)
    parser.add_argument("--inputs", required=True, help="comma-separated stages claimed fed")


args = arguments(extra)
HELLO["capabilities"]["inputs"] = [s for s in args.inputs.split(",") if s]
goldens = Goldens(args.corpus)


def answer(request):
    with open(args.record, "ab") as record:
        record.write(orjson.dumps({"case": request["case"]["id"], "stages": request["stages"],
                                   "inputs": request.get("inputs")}) + b"\n")
    write(goldens.answer(request))


serve(answer)
