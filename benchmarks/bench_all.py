"""Every speed and memory figure of the project, side by side, in one run: prints, never asserts.

The machine is shared and noisy, so each figure that matters is a ratio of two things measured
back to back in the same run, and the load average is printed before and after. Each
measurement runs the real command in a child process (the way a user runs it):

* ``--help``: median wall time of ``pi-conformance --help`` (the script pip installs) against
  ``python -c pass``;
* a one-case run: wall time from start to the first result line in the report, and to the
  end, against the reference and against benchmarks/null_impl.py (an implementation that
  answers at once: the runner's own share);
* a full reference run with ``-j 1`` and ``-j 2``: wall time, peak RSS of the largest process
  (Node included), and the reference's own answering time (the sum of the report's per-result
  durations), so ``wall / answering`` is the judge's cost and ``-j 2 / -j 1`` the scaling;
* full runs of benchmarks/replay_impl.py (a conforming implementation that computes nothing):
  without delay, the runner's own throughput; waiting 20 ms per case, ``-j 2 / -j 1`` where
  the implementation needs no CPU (the reference's own scaling is bounded by 2 cores);
* ``fuzz`` against the reference, ``-j 1`` and ``-j 2``: sessions per second, shrinking
  excluded (there is nothing to shrink: the reference agrees with itself);
* comparison on big sessions, when ``benchmarks/bench_compare.py`` is present: its own figures.

    python benchmarks/bench_all.py [--skip full,fuzz,compare] [--repeat 10]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
NULL_IMPL = f"process:{sys.executable} {HERE / 'null_impl.py'}"
CLI = [sys.executable, "-m", "conformance.cli.main"]
_WRAPPER = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
            " stderr=subprocess.PIPE).returncode\n"
            "wall = time.perf_counter() - t\n"
            "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(code, wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def measured(command: list[str]) -> tuple[int, float, int, float]:
    """Exit code, wall seconds, peak RSS (KiB) of the largest process ``command`` ran, and
    the CPU seconds (user and system) of all of them, every Node process included."""
    out = subprocess.run([sys.executable, "-c", _WRAPPER, *command], capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[0]), float(out[1]), int(out[2]), float(out[3])


def median_wall(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def first_result(command: list[str], report: Path) -> tuple[float, float, int]:
    """Seconds from the start of ``command`` (a run) to its first result line in the report,
    then to its end, and its exit code. The report is polled every 2 ms."""
    report.unlink(missing_ok=True)
    started = time.perf_counter()
    first = None
    with subprocess.Popen([*command, "--report", str(report)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as process:
        while process.poll() is None:
            if first is None and report.is_file() and report.read_bytes().count(b"\n") >= 2:
                first = time.perf_counter() - started
            time.sleep(0.002)
    wall = time.perf_counter() - started
    return first if first is not None else wall, wall, process.returncode


def answering_time(report: Path) -> float:
    total = 0.0
    for line in report.read_bytes().splitlines():
        record = orjson.loads(line)
        if record.get("type") == "result":
            total += float(record.get("duration") or 0.0)
    return total


def row(name: str, value: str, note: str = "") -> None:
    print(f"  {name:<44} {value:>16}  {note}", flush=True)


def bench_help(scratch: Path, repeat: int) -> None:
    """The command as pip installs it (cli/entry.py, no click) against the interpreter alone,
    taken in turn each round (bench_cli_startup.py has the detail)."""
    from bench_cli_startup import importing, installed_command, timed

    command = [*installed_command(HERE.parent, scratch / "bin"), "--help"]
    (walls, cpus), (help_walls, help_cpus) = timed(
        [([sys.executable, "-c", "pass"], dict(os.environ)), (command, importing(HERE.parent))],
        repeat)
    baseline, help_time = statistics.median(walls), statistics.median(help_walls)
    print("CLI start-up (wall median; CPU median, which a loaded machine disturbs less)")
    row("python -c pass", f"{baseline * 1000:.0f} ms",
        f"CPU {statistics.median(cpus) * 1000:.0f} ms")
    row("pi-conformance --help", f"{help_time * 1000:.0f} ms",
        f"{help_time / baseline:.1f}x python -c pass (target: under 100 ms); "
        f"CPU {statistics.median(help_cpus) * 1000:.0f} ms")


def bench_runs(scratch: Path, full: bool = True) -> None:
    print("Runs against the reference")
    # The case asks every stage, stats and the four provider APIs included, so the reference
    # loads all of Pi; narrowed to one stage, it loads only what that stage needs.
    for label, spec, narrowed in (("one-case run", "reference", []),
                                  ("one-case run, --stage branch", "reference",
                                   ["--stage", "branch"]),
                                  ("one-case run, null implementation", NULL_IMPL, [])):
        first, wall, code = first_result([*CLI, "run", "--impl", spec, "-k",
                                          "branch.assistant-sets-model", *narrowed, "-q"],
                                         scratch / "one.jsonl")
        row(f"{label}: first result", f"{first:.2f} s",
            "(target: under 1 s)" if spec == "reference" else
            "(the runner's own time to the first result)")
        row(f"{label}: start to end", f"{wall:.2f} s", f"exit {code}")
    if not full:
        return
    walls = {}
    for jobs in (1, 2):
        report = scratch / f"full-{jobs}.jsonl"
        code, wall, rss, cpu = measured([*CLI, "run", "--impl", "reference", "-j", str(jobs),
                                         "--report", str(report)])
        walls[jobs] = wall
        answering = answering_time(report)
        row(f"full run -j {jobs}: wall", f"{wall:.2f} s", f"exit {code}")
        row(f"full run -j {jobs}: the reference answering", f"{answering:.2f} s",
            f"wall / answering = {wall / answering:.2f}" + (
                " (target: at most 2)" if jobs == 1 else ""))
        row(f"full run -j {jobs}: peak RSS", f"{rss / 1024:.0f} MiB", "(target: under 1 GiB)")
        row(f"full run -j {jobs}: CPU, every process", f"{cpu:.2f} s",
            f"{cpu / wall:.2f} cores busy on average")
    row("full run: -j 2 wall / -j 1 wall", f"{walls[2] / walls[1]:.2f}", "(target: at most 0.65)")
    bench_replay(scratch)


def bench_replay(scratch: Path) -> None:
    """Full runs of an implementation that computes nothing: the runner alone, and the
    runner's scaling where the implementation waits instead of competing for the cores."""
    print("Full runs, benchmarks/replay_impl.py (replays the goldens)")
    corpus = HERE.parent / "corpus"
    for delay in (0, 20):
        spec = f"process:{sys.executable} {HERE / 'replay_impl.py'} {corpus} --delay-ms {delay}"
        walls = {}
        for jobs in (1, 2) if delay else (1,):
            code, wall, _, cpu = measured([*CLI, "run", "--impl", spec, "-j", str(jobs), "-q",
                                           "--report", str(scratch / "replay.jsonl")])
            walls[jobs] = wall
            row(f"{delay} ms per case, -j {jobs}: wall", f"{wall:.2f} s",
                f"exit {code}; CPU {cpu:.2f} s, every process")
        if delay:
            row(f"{delay} ms per case: -j 2 wall / -j 1 wall", f"{walls[2] / walls[1]:.2f}",
                "(the runner's own scaling)")


_RATE = re.compile(r"(\d+) sessions in ([\d.]+)s \((\d+)/s")


def bench_fuzz(scratch: Path, examples: int) -> None:
    """The fuzz command's own rate counts from the handshakes (what loading Pi costs then
    falls inside or outside it, depending on when the harness loads it), so the rate over
    the command's whole wall time, start-up included, is printed beside it, for ``examples``
    sessions and for five times as many (where start-up weighs less)."""
    print("Differential fuzzing, the reference against itself")
    for count in (examples, 5 * examples):
        for jobs in (1, 2):
            started = time.perf_counter()
            done = subprocess.run([*CLI, "fuzz", "--impl", "reference", "--max-examples",
                                   str(count), "--seed", "1", "-j", str(jobs), "--out",
                                   str(scratch / "fuzz")], capture_output=True, text=True,
                                  check=False)
            wall = time.perf_counter() - started
            match = _RATE.search(done.stderr)
            if match is None:
                row(f"fuzz -j {jobs}", "no figure", done.stderr.strip().splitlines()[-1:])
                continue
            row(f"fuzz -j {jobs}: {match.group(1)} sessions", f"{match.group(3)}/s",
                f"{match.group(2)} s after the handshakes (target: at least 100/s)")
            row(f"fuzz -j {jobs}: {match.group(1)} sessions, end to end",
                f"{int(match.group(1)) / wall:.0f}/s", f"{wall:.1f} s, start-up included")


def bench_compare() -> None:
    script = HERE / "bench_compare.py"
    if not script.is_file():
        return
    print("Comparison on big sessions (benchmarks/bench_compare.py)", flush=True)
    subprocess.run([sys.executable, str(script)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", default="",
                        help="comma-separated: help,runs,full,fuzz,compare "
                             "(full: the full runs only, not the one-case ones)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--fuzz-examples", type=int, default=200)
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"pi-conformance benchmarks; before: {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pi-conformance-bench-") as tmp:
        scratch = Path(tmp)
        if "help" not in skip:
            bench_help(scratch, args.repeat)
        if "runs" not in skip:
            bench_runs(scratch, full="full" not in skip)
        if "fuzz" not in skip:
            bench_fuzz(scratch, args.fuzz_examples)
        if "compare" not in skip:
            bench_compare()
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
