"""Full reference runs, repeated: wall time, peak RSS and status counts of each; asserts nothing.

Issue 12 asks for the same status counts on every run (the cases where Pi misbehaves used to
flip between pass and info) and issue 17 for a full reference run under 1 GB of peak RSS. Each
run is ``pi-conformance run --impl reference`` under ``/usr/bin/time -v`` (whose maximum RSS
is that of the largest process of the run: Python or a Node harness), its report read back
for the counts.

    python benchmarks/bench_reference_runs.py [--runs 10] [-- extra run options]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from conformance.reporting.stream import read_report


def one_run(report: Path, extra: list[str]) -> tuple[float, int, Counter[str]]:
    """(wall seconds, peak RSS in kB, status counts) of one full reference run."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "conformance.cli.main", "run",
               "--impl", "reference", "--report", str(report), "--format", "json", *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if wall is None or rss is None:
        raise SystemExit(f"no figures from /usr/bin/time:\n{done.stderr[-2000:]}")
    *hours_minutes, seconds = wall.group(1).split(":")
    elapsed = float(seconds) + sum(int(part) * 60 ** (len(hours_minutes) - i)
                                   for i, part in enumerate(hours_minutes))
    counts = Counter(result.status for result in read_report(report).results)
    return elapsed, int(rss.group(1)), counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("extra", nargs="*", help="further options for pi-conformance run")
    args = parser.parse_args()
    if not shutil.which("/usr/bin/time"):
        raise SystemExit("needs /usr/bin/time (GNU time) for the peak RSS")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} cores")
    seen: list[tuple[tuple[str, int], ...]] = []
    with tempfile.TemporaryDirectory(prefix="pi-conformance-bench-") as scratch:
        for number in range(1, args.runs + 1):
            wall, rss, counts = one_run(Path(scratch) / f"run-{number}.jsonl", args.extra)
            shown = tuple(sorted(counts.items()))
            seen.append(shown)
            print(f"run {number:2d}: wall {wall:6.2f} s  peak RSS {rss / 1024:7.1f} MiB  "
                  + "  ".join(f"{status} {count}" for status, count in shown), flush=True)
    print("identical status counts in every run" if len(set(seen)) == 1 else
          f"status counts differ between runs: {len(set(seen))} distinct")


if __name__ == "__main__":
    main()
