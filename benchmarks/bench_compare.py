"""Comparison on a big session: prints seconds, before and after, never asserts.

Builds a session-shaped answer (the ``entries`` stage: a header and N message entries with
content blocks, usage and costs) and times ``judging.comparison.differences`` on it: answers
equal, and answers that differ in 1 % of the entries (one text each), with the current code
and with the code before issue 12 (``--before``, a commit, loaded with ``git show`` into a
temporary module, so
both run in the same process, on the same machine load). The old code takes about 0.8 ms per
entry once anything differs, so it is timed on ``--old-entries`` entries for that case, and
the figure for N is that time scaled linearly (said so in the output). With the reference
installed, Pi's own time to answer the same session (``entries``, ``branch``, ``context``,
``stats``) is printed too: the judge should not be slower than what it judges.

    python benchmarks/bench_compare.py [--entries 100000] [--old-entries 10000] [--no-pi]
                                       [--before 83d06e75]
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from conformance.corpus.normalization import input_strings  # noqa: E402
from conformance.judging import comparison  # noqa: E402


def entry(n: int) -> dict[str, Any]:
    role = "user" if n % 2 else "assistant"
    message: dict[str, Any] = {"role": role, "timestamp": 1733234400000 + n * 1000}
    if role == "user":
        message["content"] = [{"type": "text", "text": f"question {n}"}]
    else:
        message.update(content=[{"type": "thinking", "thinking": f"thought {n}",
                                 "thinkingSignature": f"sig{n:08x}"},
                                {"type": "text", "text": f"answer {n}"}],
                       api="anthropic-messages", provider="anthropic",
                       model="claude-sonnet-4-5", stopReason="stop",
                       usage={"input": 10 + n % 7, "output": 5, "cacheRead": 0,
                              "cacheWrite": 0, "totalTokens": 15 + n % 7,
                              "cost": {"input": 3e-05, "output": 7.5e-05, "cacheRead": 0,
                                       "cacheWrite": 0, "total": 0.000105}})
    seconds = n
    stamp = f"2024-12-03T{seconds // 3600 % 24:02d}:{seconds // 60 % 60:02d}:" \
            f"{seconds % 60:02d}.000Z"
    return {"type": "message", "id": f"e{n:07d}", "parentId": f"e{n - 1:07d}" if n else None,
            "timestamp": stamp, "message": message}


def session(entries: int) -> dict[str, Any]:
    return {"header": {"type": "session", "version": 3, "id": "sess-big",
                       "timestamp": "2024-12-03T00:00:00.000Z", "cwd": "/project"},
            "entries": [entry(n) for n in range(entries)]}


def session_bytes(answer: dict[str, Any]) -> bytes:
    import orjson

    return b"\n".join(orjson.dumps(line) for line in [answer["header"], *answer["entries"]]) \
        + b"\n"


def differing(answer: dict[str, Any]) -> dict[str, Any]:
    """A copy in which 1 % of the entries (every hundredth) has another text."""
    changed = copy.deepcopy(answer)
    for item in changed["entries"][::100]:
        item["message"]["content"][-1]["text"] += " (changed)"
    return changed


BEFORE = "83d06e75"  # the last commit before exact, aligned comparison (issue 12)


def old_comparison(before: str = BEFORE) -> types.ModuleType:
    """The comparison and normalization of commit ``before``, in a temporary package."""
    root = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    for name in ("comparison", "normalization"):
        source = subprocess.run(
            ["git", "-C", str(REPO), "show",
             f"{before}:conformance/{'judging' if name == 'comparison' else 'corpus'}/{name}.py"],
            capture_output=True, text=True, check=True).stdout
        source = source.replace("from conformance.corpus.normalization import",
                                "from old_normalization import")
        (root / f"old_{name}.py").write_text(source)
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("old_comparison", root / "old_comparison.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_comparison"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def timed(function: Any, *args: Any, **kwargs: Any) -> tuple[float, int]:
    started = time.perf_counter()
    found = function(*args, **kwargs)
    return time.perf_counter() - started, len(found)


def pi_time(answer: dict[str, Any]) -> float | None:
    """Seconds the reference takes to answer the session's entries, branch, context, stats
    (the protocol round trip included)."""
    try:
        from conformance.implementations import protocol
        from conformance.implementations.specs import resolve
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "session.jsonl"
        text = session_bytes(answer)
        path.write_bytes(text)
        try:
            impl = resolve("reference")
            impl.start()
        except Exception as exc:  # not installed: say so, time the rest
            print(f"  (no reference: {exc})")
            return None
        try:
            total = 0.0
            # Two requests, so that no answer line passes the protocol's 64 MiB cap.
            for seq, stages in enumerate((["entries", "branch", "stats"], ["context"]), 1):
                request = protocol.run_request(seq, "bench.big", ("role-user", "role-assistant"),
                                               str(path), text.decode(), stages, {})
                started = time.perf_counter()
                impl.run(request, 600)
                total += time.perf_counter() - started
            return total
        finally:
            impl.close()


def row(name: str, seconds: float | None, note: str = "") -> None:
    shown = f"{seconds:9.3f} s" if seconds is not None else "        —"
    print(f"  {name:<52} {shown}  {note}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--old-entries", type=int, default=10_000,
                        help="entries for the old code on differing answers (then scaled)")
    parser.add_argument("--no-pi", action="store_true")
    parser.add_argument("--before", default=BEFORE,
                        help="the commit whose comparison is 'before' (default: %(default)s)")
    args = parser.parse_args()
    one, five, _ = os.getloadavg()
    print(f"  load average {one:.2f} {five:.2f} on {os.cpu_count()} cores; "
          f"{args.entries} entries")
    expected = session(args.entries)
    known = input_strings(session_bytes(expected))
    equal = copy.deepcopy(expected)
    changed = differing(expected)
    old = old_comparison(args.before)

    new_equal, n = timed(comparison.differences, expected, equal, known, volatile={})
    row("after: equal answers (recorded volatile)", new_equal, f"{n} differences")
    new_diff, n = timed(comparison.differences, expected, changed, known, volatile={})
    row("after: 1 % of entries differ (recorded volatile)", new_diff, f"{n} differences")
    guess_diff, n = timed(comparison.differences, expected, changed, known)
    row("after: 1 % differ (no recording: guessed)", guess_diff, f"{n} differences")

    old_equal, n = timed(old.differences, expected, equal, known)
    row("before: equal answers", old_equal, f"{n} differences")
    small = session(args.old_entries)
    small_known = input_strings(session_bytes(small))
    old_small, n = timed(old.differences, small, differing(small), small_known)
    scale = args.entries / args.old_entries
    row(f"before: 1 % differ, {args.old_entries} entries", old_small, f"{n} differences")
    row(f"before: 1 % differ, scaled to {args.entries}", old_small * scale,
        f"(x{scale:g}, linear)")
    print(f"  speed-up: equal {old_equal / new_equal:.1f}x, 1 % differing "
          f"{old_small * scale / new_diff:.1f}x", flush=True)
    if not args.no_pi:
        pi = pi_time(expected)
        row("Pi: answering entries, branch, context, stats", pi)
        if pi:
            print(f"  comparison / Pi: equal {new_equal / pi:.2f}, 1 % differing "
                  f"{new_diff / pi:.2f}", flush=True)


if __name__ == "__main__":
    main()
