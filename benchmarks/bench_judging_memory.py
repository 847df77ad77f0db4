"""Judging memory per list item: prints bytes, before and after, never asserts.

Builds a golden of N session entries (message entries with content blocks, usage, ids) or
of N tiny objects, and an answer that differs from it in the way that defeats the cheap
alignment (one item missing near the start and one replaced near the end, so items are
matched by their keys), and judges it with ``judging.comparison.differences``. Prints, per
N, the peak of Python's allocations during judging (``tracemalloc``), that peak per item
and per byte of the answer as JSON, and the time. ``--before COMMIT`` loads the comparison
and alignment modules of that commit beside the current ones, so both are measured in one
process, one after the other, on the same load.

    python benchmarks/bench_judging_memory.py [--sizes 1000,10000,100000] [--shapes entries,tiny]
                                               [--before 77b66b9e0]
"""

from __future__ import annotations

import argparse
import copy
import gc
import subprocess
import sys
import time
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from conformance.judging import comparison  # noqa: E402


def entry(n: int) -> dict[str, Any]:
    """An entry of a few hundred bytes, with nested lists (content blocks) like Pi's."""
    role = "user" if n % 2 else "assistant"
    message: dict[str, Any] = {
        "role": role,
        "content": [{"type": "text", "text": f"message number {n} says something ordinary"}],
        "timestamp": 1_700_000_000_000 + n,
    }
    if role == "assistant":
        message.update(api="anthropic-messages", provider="anthropic", model="claude-x",
                       usage={"input": n % 97, "output": 12, "cacheRead": 0, "cacheWrite": 0,
                              "totalTokens": 12 + n % 97,
                              "cost": {"input": 0.001, "output": 0.002, "total": 0.003}},
                       stopReason="stop")
    return {"type": "message", "id": f"{n:08x}", "parentId": f"{n - 1:08x}" if n else None,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": message}


def tiny(n: int) -> dict[str, Any]:
    """An item of a few bytes, where what judging keeps per item weighs most."""
    return {"a": n % 7}


SHAPES = {"entries": entry, "tiny": tiny}


def answers(size: int, shape: str = "entries") -> tuple[dict[str, Any], dict[str, Any]]:
    make = SHAPES[shape]
    golden = {"header": {"type": "session", "version": 3},
              "entries": [make(n) for n in range(size)]}
    answer = copy.deepcopy(golden)
    del answer["entries"][size // 10]
    answer["entries"][-(size // 10) or -1] = {"changed": True}
    return golden, answer


def load_before(commit: str) -> Callable[..., Any]:
    """``differences`` as it was at ``commit``, with that commit's alignment module."""
    modules = {}
    for name in ("alignment", "comparison"):
        source = subprocess.run(["git", "show", f"{commit}:conformance/judging/{name}.py"],
                                cwd=REPO, check=True, capture_output=True, text=True).stdout
        module = types.ModuleType(f"before_{name}")
        module.__dict__["__name__"] = f"before_{name}"
        sys.modules[f"before_{name}"] = module
        if name == "comparison":
            source = source.replace("from conformance.judging.alignment import align",
                                    "from before_alignment import align")
        exec(compile(source, f"{commit}:{name}.py", "exec"), module.__dict__)
        modules[name] = module
    return modules["comparison"].differences  # type: ignore[no-any-return]


def measure(judge: Callable[..., Any], golden: Any, answer: Any) -> tuple[int, float, int]:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    started = time.perf_counter()
    found = judge(golden, answer)
    took = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, took, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--shapes", default="entries,tiny", help="entries, tiny or both")
    parser.add_argument("--before", help="a commit whose judging to measure beside this one")
    args = parser.parse_args()
    judges = [("now", comparison.differences)]
    if args.before:
        judges.insert(0, (f"at {args.before}", load_before(args.before)))
    print(f"{'code':>14} {'shape':>7} {'items':>8} {'answer':>10} {'peak':>10} {'per item':>9} "
          f"{'x answer':>8} {'seconds':>8} {'found':>5}")
    for shape, size in ((shape, int(n)) for shape in args.shapes.split(",")
                        for n in args.sizes.split(",")):
        golden, answer = answers(size, shape)
        answer_bytes = len(orjson.dumps(answer))
        for name, judge in judges:
            peak, took, found = measure(judge, golden, answer)
            print(f"{name:>14} {shape:>7} {size:>8} {answer_bytes / 2**20:>8.1f}MB "
                  f"{peak / 2**20:>8.1f}MB {peak / size:>8.0f}B {peak / answer_bytes:>8.2f} "
                  f"{took:>8.2f} {found:>5}", flush=True)


if __name__ == "__main__":
    main()
