"""A correct implementation: replays the goldens of every case it is asked about."""

from _fake import Goldens, arguments, serve, write

args = arguments()
goldens = Goldens(args.corpus)
serve(lambda request: write(goldens.answer(request)))
