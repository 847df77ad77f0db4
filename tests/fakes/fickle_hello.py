"""Every process after the first says something else in its hello (--change: the
implementation's name, the stages, the features or the fields it claims). Each process
appends its pid to $FAKE_STARTS, to know whether it is the first."""

import os

from _fake import HELLO, Goldens, arguments, serve, write

args = arguments(lambda parser: parser.add_argument(
    "--change", choices=["name", "stages", "features", "fields"], required=True))
goldens = Goldens(args.corpus)
with open(os.environ["FAKE_STARTS"], "a") as starts:
    starts.write(f"{os.getpid()}\n")
with open(os.environ["FAKE_STARTS"]) as starts:
    later = starts.read().split()[0] != str(os.getpid())
capabilities = HELLO["capabilities"]
if later and args.change == "name":
    HELLO["implementation"] = {**HELLO["implementation"], "name": "someone-else"}
if later and args.change == "stages":
    capabilities["stages"] = ["entries", "branch"]
if later and args.change == "features":
    capabilities["features"] = ["compaction"]
if later and args.change == "fields":
    capabilities["fields"] = {"stats": ["tokens"]}


def answer(request):
    write(goldens.answer(request))


serve(answer)
