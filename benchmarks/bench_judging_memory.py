"""Judging memory per list item: prints bytes, before and after, never asserts.

Builds a golden of N items and an answer judged against it by ``judging.comparison.
differences``, the function ``judge`` calls for every stage (with the golden's recorded
generated values where it has them), in four shapes:

* ``entries``: session entries (message entries with content blocks, usage, ids); the
  answer misses one item near the start and has one replaced near the end, which defeats the
  cheap alignment, so items are matched by their keys;
* ``tiny``: the same differences in a list of tiny objects, where what judging keeps per item
  weighs most;
* ``own-ids``: entries whose ``id`` and ``parentId`` Pi generated (recorded as volatile, as a
  version-1 migration's are), answered by a conforming implementation with ids of its own;
* ``equal``: entries answered exactly (what a passing stage costs).

Each figure is measured in a child process of its own, so that its peak resident memory is
the judging's: ``rss`` is the rise of the peak RSS (``getrusage``) over the inputs already
built, ``traced`` the peak of Python's allocations during judging (``tracemalloc``, which
also counts buffers reserved but never touched), each per item and per byte of the answer as
JSON; ``seconds`` is timed without tracemalloc. ``--before COMMIT`` loads that commit's
judging (comparison, alignment, generated values and ``jsonio``) beside the current one, so
both are measured side by side on the same load.

    python benchmarks/bench_judging_memory.py [--sizes 1000,10000,100000]
                                               [--shapes entries,tiny,own-ids,equal]
                                               [--before 0f317dd50]
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import resource
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

# The modules judging is made of, in import order: a commit's versions are loaded under
# ``before_<name>`` and each imports the others' ``before_`` versions.
JUDGING = {"jsonio": "conformance/jsonio.py",
           "generated_values": "conformance/judging/generated_values.py",
           "alignment": "conformance/judging/alignment.py",
           "comparison": "conformance/judging/comparison.py"}
IMPORTS = {"from conformance import jsonio": "import before_jsonio as jsonio",
           "from conformance.judging.alignment import": "from before_alignment import",
           "from conformance.judging.generated_values import":
               "from before_generated_values import"}


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


Inputs = tuple[dict[str, Any], dict[str, Any], dict[str, str] | None]


def planted(size: int, make: Callable[[int], Any]) -> Inputs:
    golden = {"header": {"type": "session", "version": 3},
              "entries": [make(n) for n in range(size)]}
    answer = copy.deepcopy(golden)
    del answer["entries"][size // 10]
    answer["entries"][-(size // 10) or -1] = {"changed": True}
    return golden, answer, None


def own_ids(size: int) -> Inputs:
    golden = {"entries": [entry(n) for n in range(size)]}
    answer = copy.deepcopy(golden)
    volatile = {}
    for n, item in enumerate(answer["entries"]):
        item["id"] = f"own{n:08x}"
        volatile[f"$.entries[{n}].id"] = f"id-{n}"
        if n:
            item["parentId"] = f"own{n - 1:08x}"
            volatile[f"$.entries[{n}].parentId"] = f"id-{n - 1}"
    return golden, answer, volatile


def equal(size: int) -> Inputs:
    golden = {"entries": [entry(n) for n in range(size)]}
    return golden, copy.deepcopy(golden), {}


SHAPES: dict[str, Callable[[int], Inputs]] = {
    "entries": lambda size: planted(size, entry), "tiny": lambda size: planted(size, tiny),
    "own-ids": own_ids, "equal": equal}


def answers(size: int, shape: str = "entries") -> tuple[dict[str, Any], dict[str, Any]]:
    """The golden and the answer of ``shape`` (without the recorded generated values)."""
    golden, answer, _ = SHAPES[shape](size)
    return golden, answer


def load_before(commit: str) -> Callable[..., Any]:
    """``differences`` as it was at ``commit``, with that commit's judging modules."""
    modules = {}
    for name, path in JUDGING.items():
        found = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=REPO,
                               capture_output=True, text=True)
        if found.returncode:
            continue  # not there at that commit: the current one is used
        source = found.stdout
        for current, before in IMPORTS.items():
            module = before.split()[1]
            if module in sys.modules:
                source = source.replace(current, before)
        module = types.ModuleType(f"before_{name}")
        sys.modules[f"before_{name}"] = module
        exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
        modules[name] = module
    return modules["comparison"].differences  # type: ignore[no-any-return]


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes (Linux counts KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_one(code: str, shape: str, size: int) -> dict[str, Any]:
    """One figure, in this (child) process: RSS and time first, untraced, then traced."""
    judge = comparison.differences if code == "now" else load_before(code)
    golden, answer, volatile = SHAPES[shape](size)
    judge({"a": 1}, {"a": 2})  # imports (DeepDiff's numpy) outside the measure
    judge(golden["entries"][:3], answer["entries"][:2])
    gc.collect()
    before = peak_rss()
    started = time.perf_counter()
    found = judge(golden, answer, volatile=volatile)
    took = time.perf_counter() - started
    rss = max(0, peak_rss() - before)
    del found
    gc.collect()
    tracemalloc.start()
    found = judge(golden, answer, volatile=volatile)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"answer": len(orjson.dumps(answer)), "rss": rss, "traced": traced,
            "seconds": took, "found": len(found)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=", ".join(SHAPES))
    parser.add_argument("--before", help="a commit whose judging to measure beside this one")
    parser.add_argument("--one", nargs=3, metavar=("CODE", "SHAPE", "N"),
                        help=argparse.SUPPRESS)  # a child's single measure
    args = parser.parse_args()
    if args.one:
        code, shape, size = args.one
        print(json.dumps(measure_one(code, shape, int(size))))
        return
    codes = [args.before, "now"] if args.before else ["now"]
    print(f"{'code':>10} {'shape':>8} {'items':>7} {'answer':>8} {'rss':>8} {'per item':>8} "
          f"{'x answer':>8} {'traced':>8} {'per item':>8} {'x answer':>8} {'seconds':>7} "
          f"{'found':>5}")
    for shape in args.shapes.split(","):
        for size in (int(n) for n in args.sizes.split(",")):
            for code in codes:
                child = subprocess.run([sys.executable, __file__, "--one", code, shape,
                                        str(size)], capture_output=True, text=True, check=True)
                got = json.loads(child.stdout)
                mb = 2**20
                print(f"{code:>10} {shape:>8} {size:>7} {got['answer'] / mb:>6.1f}MB "
                      f"{got['rss'] / mb:>6.1f}MB {got['rss'] / size:>7.0f}B "
                      f"{got['rss'] / got['answer']:>8.2f} {got['traced'] / mb:>6.1f}MB "
                      f"{got['traced'] / size:>7.0f}B {got['traced'] / got['answer']:>8.2f} "
                      f"{got['seconds']:>7.2f} {got['found']:>5}", flush=True)


if __name__ == "__main__":
    main()
