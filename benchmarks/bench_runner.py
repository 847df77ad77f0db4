"""Benchmark of the runner: prints figures, asserts nothing (a timed assert is a flaky test).

Measured side by side in one run:

1. protocol cost per case, persistent versus one-shot: the round trip of a run request to an
   implementation that does no work (benchmarks/null_impl.py), then to the real Pi;
2. the runner's overhead on a full run against the reference: (wall time of the whole run -
   time the implementation spent answering) / wall time, where the implementation's time is
   its handshake plus every run request's round trip.

Targets (issue 4): persistent at least 50x faster per case than one-shot; runner overhead
under 10% of a full run against the reference.

    python benchmarks/bench_runner.py [--cases N] [--oneshot-cases N] [--profile]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from conformance.corpus.cases import Corpus
from conformance.execution.executor import execute
from conformance.execution.plan import RunPlan
from conformance.implementations import protocol
from conformance.implementations.specs import resolve
from conformance.implementations.transports import (
    Implementation,
    OneShotImplementation,
    PersistentImplementation,
)

HERE = Path(__file__).resolve().parent
NULL = [sys.executable, str(HERE / "null_impl.py")]


def bench_corpus(minimum: int) -> Corpus:
    """The shipped corpus, its cases copied under new ids until there are ``minimum``."""
    source = Corpus()
    if len(source.cases) >= minimum:
        return source
    root = Path(tempfile.mkdtemp(prefix="pi-conformance-bench-"))
    for name in ("features", "clauses"):
        shutil.copytree(source.root / name, root / name)
    shutil.copy(source.root / "models.json", root / "models.json")
    copies = 0
    while copies < minimum:
        for case in source.cases:
            target = root / "cases" / "bench" / f"{copies:04d}"
            shutil.copytree(case.directory, target)
            meta = target / "case.toml"
            meta.write_text(meta.read_text().replace(f'id = "{case.id}"',
                                                     f'id = "bench.c{copies:04d}"'))
            copies += 1
    return Corpus(root)


def requests(corpus: Corpus, scratch: Path) -> list[dict]:
    built = []
    for seq, case in enumerate(corpus.cases):
        copy = scratch / f"{seq}.jsonl"
        copy.write_bytes(case.session_bytes())
        built.append(protocol.run_request(
            seq, case.id, case.features, str(copy), case.session_bytes().decode(errors="replace"),
            list(case.stages), corpus.request_options(case)))
    return built


def per_case(impl: Implementation, batch: list[dict]) -> list[float]:
    times = []
    for request in batch:
        started = time.perf_counter()
        impl.run(request, 120)
        times.append(time.perf_counter() - started)
    return times


def reference_oneshot() -> OneShotImplementation:
    """The reference harness driven one process per case (it reads to EOF, then exits)."""
    from conformance.implementations import reference as ref

    home = Path(tempfile.mkdtemp(prefix="pi-conformance-bench-home-"))
    (home / "agent").mkdir()
    installation = ref.require_installation()
    return OneShotImplementation("reference-oneshot", installation.harness_command(),
                                 env=ref.sandbox_env(home))


def compare(label: str, persistent: Implementation, oneshot: Implementation,
            batch: list[dict], oneshot_batch: list[dict]) -> None:
    with persistent:
        per_case(persistent, batch[:3])  # warm up (JIT, caches)
        fast = per_case(persistent, batch)
    oneshot.start()
    slow = per_case(oneshot, oneshot_batch)
    fast_ms, slow_ms = statistics.median(fast) * 1000, statistics.median(slow) * 1000
    print(f"  {label:<28} persistent {fast_ms:9.2f} ms/case (n={len(fast)})   "
          f"one-shot {slow_ms:9.2f} ms/case (n={len(slow)})   "
          f"persistent is {slow_ms / fast_ms:6.1f}x faster")


class Timed:
    """Wraps an implementation's start, run and restart (a new process's handshake, after a
    case where Pi hangs) to add up the time the implementation takes."""

    spent = 0.0

    @classmethod
    def install(cls) -> None:
        for name in ("start", "run", "restart"):
            original = getattr(PersistentImplementation, name)

            def timed(self, *args, __original=original, **kwargs):
                started = time.perf_counter()
                try:
                    return __original(self, *args, **kwargs)
                finally:
                    cls.spent += time.perf_counter() - started

            setattr(PersistentImplementation, name, timed)


def overhead(corpus: Corpus, profile: bool) -> None:
    Timed.install()
    report = Path(tempfile.mkdtemp()) / "report.jsonl"
    profiler = None
    if profile:
        try:
            from pyinstrument import Profiler
        except ImportError:
            raise SystemExit("--profile needs pyinstrument: pip install pyinstrument") from None

        profiler = Profiler()
        profiler.start()
    corpus = Corpus(corpus.root)  # loading the corpus is part of the run: start it cold
    started = time.perf_counter()
    outcome = execute(RunPlan("reference", report=report), corpus)
    wall = time.perf_counter() - started
    if profiler is not None:
        profiler.stop()
    results = len(outcome.report.results)
    runner_time = wall - Timed.spent
    print(f"  full run: {len(corpus.cases)} cases, {results} results, "
          f"verdict {'failed' if outcome.failed else 'passed'}, {outcome.restarts} restart(s)")
    print(f"  wall {wall:.3f} s; the reference answering (handshakes + run round trips) "
          f"{Timed.spent:.3f} s; the runner {runner_time:.3f} s")
    print(f"  runner overhead: {runner_time / wall * 100:.1f}% of the run (target: < 10%); "
          f"{runner_time / results * 1000:.2f} ms per result")
    if profiler is not None:
        print(profiler.output_text(unicode=False, color=False, show_all=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40, help="cases in the full run")
    parser.add_argument("--oneshot-cases", type=int, default=8,
                        help="cases run one-shot against the reference (about 1 s each)")
    parser.add_argument("--profile", action="store_true", help="profile the full run")
    args = parser.parse_args()
    corpus = bench_corpus(args.cases)
    scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-bench-"))
    batch = requests(corpus, scratch)
    print(f"pi-conformance runner benchmark (python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cpus)")
    print("1. protocol cost per case, median round trip of a run request:")
    compare("no-work implementation", resolve(f"process:{' '.join(NULL)}"),
            OneShotImplementation("null-oneshot", [*NULL, "--oneshot"]), batch, batch)
    compare("reference (real Pi)", resolve("reference"), reference_oneshot(), batch,
            batch[: args.oneshot_cases])
    print("2. runner overhead on a full run against the reference (-j 1):")
    overhead(corpus, args.profile)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
