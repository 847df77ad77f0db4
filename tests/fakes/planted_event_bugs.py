"""An event consumer port with one planted bug (``--bug NAME``), for the events stage of the
cases with a turn script: it replays the golden of the live turn and spoils it the way the
bug would. Without ``--bug`` it is right. It refuses a run request without ``turns`` (the
runner must send the turn script it is asked to run).

* ``pending``: it persists the assistant as ``message_start`` showed it (stopReason
  ``pending``), not as ``message_end`` finished it: the appended entries and the replayed
  context carry the provisional snapshot.
* ``replay-tool-results``: the seed's renderer. It shows tool results only from the live
  stream's ``message_end`` events; replaying the saved file, it has no tool results, so the
  replayed ``context`` lacks them while the ``live`` state has them.
"""

from __future__ import annotations

import copy
from typing import Any

from _fake import Goldens, arguments, serve, write

Output = dict[str, Any]


def persists_pending(output: Output) -> None:
    """Each persisted assistant message becomes its ``message_start`` snapshot."""
    starts = [e["message"] for e in output["events"]
              if e["type"] == "message_start" and e["message"].get("role") == "assistant"]
    finished = [e["message"] for e in output["events"]
                if e["type"] == "message_end" and e["message"].get("role") == "assistant"]
    pairs = list(zip(finished, starts, strict=False))

    def spoiled(message: Any) -> Any:
        for end, start in pairs:
            if message == end:
                return copy.deepcopy(start)
        return message

    for entry in output["appended"]:
        if isinstance(entry, dict) and entry.get("type") == "message":
            entry["message"] = spoiled(entry["message"])
    output["context"]["messages"] = [spoiled(m) for m in output["context"]["messages"]]


def replay_without_tool_results(output: Output) -> None:
    """The replayed conversation has no tool results; the live one keeps them."""
    output["context"]["messages"] = [m for m in output["context"]["messages"]
                                     if m.get("role") != "toolResult"]


BUGS = {"pending": persists_pending, "replay-tool-results": replay_without_tool_results}
HELLO = {"protocol": 1,
         "implementation": {"name": "planted-event-port", "version": "0", "language": "python",
                            "homepage": "https://example.invalid/planted-event-port"},
         "capabilities": {"stages": ["events"]}}

args = arguments(lambda parser: parser.add_argument("--bug", choices=sorted(BUGS)))
goldens = Goldens(args.corpus)


def answer(request: dict[str, Any]) -> None:
    results: dict[str, Any] = {}
    for stage in request["stages"]:
        if stage != "events":
            results[stage] = {"skipped": "not claimed"}
        elif "turns" not in request:
            results[stage] = {"error": {"message": "no turns in the run request"}}
        else:
            result = goldens.result(request["case"]["id"], stage)
            if args.bug and "output" in result:
                BUGS[args.bug](result["output"])
            results[stage] = result
    write({"seq": request["seq"], "results": results})


serve(answer, HELLO)
