"""Where the CPU of a fuzz run goes, per session: generators, each Node side, our judging.

Runs ``fuzz`` of the reference against itself (``-j 1`` and ``-j 2``, all session kinds, all
session stages) in this process, and prints, side by side in one run with the machine's load:
sessions per second (wall, shrinking excluded: nothing disagrees) and the CPU milliseconds
per session of the generator processes (their start included), of the Node processes
(implementation side and reference side, their start excluded), and of this process while it
explores (protocol, threads and comparison). The sum over the cores is the bound on an idle
machine. Figures, never an assert.

    python benchmarks/bench_fuzz_cpu.py [--examples 400] [--seed 1] [--jobs 1,2]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from conformance.implementations.transports import reference
from conformance.maintenance.fuzz import Differential, fuzz, start_generators


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def node_pid(differential: Differential, side: str) -> int:
    impl = differential.impl if side == "impl" else differential.reference
    return impl.connection.pid  # type: ignore[attr-defined,no-any-return]


def measure(jobs: int, examples: int, seed: int, kind: str) -> None:
    # As the CLI does: the generators start first, while Node does (their start is counted).
    before_children, before_self = children_cpu(), time.process_time()
    generators = start_generators(kind, examples, seed, jobs)  # waited for inside fuzz
    pairs = [Differential(reference(), reference()) for _ in range(jobs)]
    for pair in pairs:
        pair.__enter__()
    try:
        nodes = {side: [node_pid(p, side) for p in pairs] for side in ("impl", "reference")}
        before_nodes = {side: sum(map(cpu_seconds, pids)) for side, pids in nodes.items()}
        before_self = time.process_time()
        outcome = fuzz(pairs, max_examples=examples, seed=seed, sessions=generators)
        own = time.process_time() - before_self
        drawing = children_cpu() - before_children
        node = {side: sum(map(cpu_seconds, pids)) - before_nodes[side]
                for side, pids in nodes.items()}
    finally:
        for pair in pairs:
            pair.__exit__()
    n = outcome.examples
    per = {"generators": drawing, "Node, implementation side": node["impl"],
           "Node, reference side": node["reference"], "this process (judging)": own}
    total = sum(per.values())
    cores = os.cpu_count() or 1
    print(f"fuzz -j {jobs}, --sessions {kind}: {n} sessions in {outcome.elapsed:.2f} s = "
          f"{outcome.rate:.0f}/s; {len(outcome.findings)} finding(s)")
    for name, seconds in per.items():
        print(f"  {name:<28} {seconds / n * 1000:6.2f} ms CPU per session "
              f"({seconds / total:4.0%})")
    print(f"  {'total':<28} {total / n * 1000:6.2f} ms CPU per session: at most "
          f"{n / total * cores:.0f}/s on {cores} idle cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--sessions", default="all")
    args = parser.parse_args()
    print(f"before: {load()}")
    for jobs in map(int, args.jobs.split(",")):
        measure(jobs, args.examples, args.seed, args.sessions)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
