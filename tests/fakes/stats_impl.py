"""A tiny Python implementation of one stage, ``stats``, for the fuzzer's tests.

It computes Pi's session stats from the session text (pi-behaviour-1.6.0.md 8.1). ``correct``
agrees with Pi; ``buggy`` has a planted bug the seed warns about: it adds ``reasoning`` to
``output``, counting reasoning twice. Hosted by python_host: python:stats_impl:buggy.
"""

import math

from strategies.properties import parse_session


def stats(text, bug):
    header, entries = parse_session(text.encode())
    counts = dict.fromkeys(("userMessages", "assistantMessages", "toolCalls", "toolResults",
                            "totalMessages"), 0)
    tokens = dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0)
    cost = 0.0

    def add(usage, reasoning=False):
        nonlocal cost
        for key in tokens:
            tokens[key] += usage[key]
        if reasoning:
            tokens["output"] += usage.get("reasoning", 0)  # the planted bug
        cost += usage["cost"]["total"]

    for entry in entries:
        kind = entry.get("type")
        if kind == "usage" or (kind in ("compaction", "branch_summary") and entry.get("usage")):
            add(entry["usage"])
        elif kind == "message":
            message = entry["message"]
            counts["totalMessages"] += 1
            role = message.get("role")
            if role == "user":
                counts["userMessages"] += 1
            elif role == "toolResult":
                counts["toolResults"] += 1
                if message.get("usage"):
                    add(message["usage"])
            elif role == "assistant":
                counts["assistantMessages"] += 1
                if isinstance(message.get("content"), list):
                    counts["toolCalls"] += sum(
                        1 for b in message["content"] if b.get("type") == "toolCall")
                add(message["usage"], reasoning=bug)
    tokens["total"] = sum(tokens.values())
    return {"sessionId": header["id"], **counts, "tokens": tokens,
            "cost": cost if math.isfinite(cost) else None}


class StatsImpl:
    def __init__(self, bug):
        self.bug = bug

    def hello(self):
        return {"protocol": 1,
                "implementation": {"name": "stats-double" + ("-buggy" if self.bug else ""),
                                   "version": "0", "language": "python"},
                "capabilities": {"stages": ["stats"]}}

    def run(self, request):
        text = request["session"]["text"]
        if parse_session(text.encode())[0] is None:
            return {"stats": {"rejected": {"message": "not a valid pi session"}}}
        return {"stats": {"output": stats(text, self.bug)}}


correct = StatsImpl(False)
buggy = StatsImpl(True)
