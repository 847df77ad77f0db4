"""A Python-callable implementation (python:callable_impl:run), driven by environment
variables: FAKE_CORPUS (the corpus to replay), FAKE_ON (a case id) and FAKE_MODE, what to do
on that case: raise, unserialisable, print (to stdout, which must not corrupt answers),
exit (os._exit: a real crash), correct."""

import os

from _fake import HELLO, Goldens

_goldens = None


def run(request):
    global _goldens
    if _goldens is None:
        _goldens = Goldens(__import__("pathlib").Path(os.environ["FAKE_CORPUS"]))
    mode = os.environ.get("FAKE_MODE", "correct")
    if request["case"]["id"] == os.environ.get("FAKE_ON"):
        if mode == "raise":
            raise ValueError("the fake was told to fail here")
        if mode == "unserialisable":
            return {stage: {"output": object()} for stage in request["stages"]}
        if mode == "print":
            print("a stray print to stdout")
            os.write(1, b"and a write to fd 1\n")
        if mode == "exit":
            os._exit(7)
    return _goldens.answer(request)["results"]


class Implementation:
    """The object form: hello() and run(request)."""

    def hello(self):
        return HELLO

    def run(self, request):
        return run(request)


implementation = Implementation()
