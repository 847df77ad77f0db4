"""Benchmark of the CLI's start: prints figures, asserts nothing (a timed assert is a flaky test).

``pi-conformance --help`` should feel instant (issue 17: under 0.1 s). Measured side by side
in one run, each a fresh interpreter, ``--runs`` times, median and fastest:

1. ``python -c pass``: the interpreter alone, the floor;
2. ``python -m conformance.cli.main --help``;
3. ``python -c 'import conformance.cli.main'``: the import alone;

and which heavy libraries importing the CLI pulls in (the commands import them when run).
bench_all.py prints the headline figure among the others; this is the detail, with CPU time,
which a loaded machine disturbs much less than wall time.

    python benchmarks/bench_cli_startup.py [--runs N]

The subprocesses import ``conformance`` from the current directory first, so to compare two
checkouts run it from each (``cd ../other && PYTHONPATH=. python /path/to/this/script``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HEAVY = ("jsonschema", "deepdiff", "rich", "hypothesis", "jinja2", "orjson")


def timed(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) seconds of each run. On a loaded machine the wall time
    swings with the load; the CPU time much less, so both are printed."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def heavy_imports() -> list[str]:
    probe = ("import sys, conformance.cli.main; "
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores, "
          f"{runs} runs each")
    floor = timed([sys.executable, "-c", "pass"], runs)
    rows = [
        ("python -c pass", floor),
        ("pi-conformance --help", timed([sys.executable, "-m", "conformance.cli.main", "--help"],
                                        runs)),
        ("import conformance.cli.main", timed([sys.executable, "-c",
                                               "import conformance.cli.main"], runs)),
    ]
    base_wall, base_cpu = statistics.median(floor[0]), statistics.median(floor[1])
    for name, (walls, cpus) in rows:
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"{name:28} wall median {wall * 1000:5.0f} ms (fastest {min(walls) * 1000:4.0f}, "
              f"{wall / base_wall:4.1f}x)  cpu median {cpu * 1000:5.0f} ms "
              f"({cpu / base_cpu:4.1f}x python -c pass)")
    print("heavy libraries imported by the CLI's import:", ", ".join(heavy_imports()) or "none")


if __name__ == "__main__":
    main()
