"""A correct implementation that appends, once per process, the stages hint it was started
with (``PI_CONFORMANCE_STAGES``, or ``<unset>``) to the file named by ``--record``."""

import os

from _fake import Goldens, arguments, serve, write


def extra(parser):
    parser.add_argument("--record", required=True)


args = arguments(extra)
with open(args.record, "a", encoding="utf-8") as record:
    record.write(os.environ.get("PI_CONFORMANCE_STAGES", "<unset>") + "\n")
goldens = Goldens(args.corpus)
serve(lambda request: write(goldens.answer(request)))
