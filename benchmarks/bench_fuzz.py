"""Throughput of generated sessions through the reference over the persistent protocol.

Prints sessions per second for: generation alone (Hypothesis drawing ``session_files()``, and
the fuzzer's seeded drawing without Hypothesis's engine), the reference alone (pre-generated
sessions), and generation plus the reference the way the fuzzer runs them (one at a time),
and pipelined (requests sent ahead while the next session is drawn; optionally over several
reference processes). Figures, never an assert: the machine is shared and its load is
printed alongside.

    .venv/bin/python benchmarks/bench_fuzz.py [--examples 500] [--jobs 2] [--window 4]
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import tempfile
import threading
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

import strategies as pis
from conformance.corpus.stages import SESSION_STAGES
from conformance.implementations import protocol
from conformance.implementations.transports import PersistentImplementation, reference

OPTIONS = {"cwd": "/pi-conformance/cwd"}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), to report cost apart from load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drive(strategy: SearchStrategy[bytes], examples: int, body) -> float:
    """Run ``body`` on ``examples`` generated sessions; returns the seconds it took."""
    @settings(max_examples=examples, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(data: bytes) -> None:
        body(data)

    started = time.perf_counter()
    run()
    return time.perf_counter() - started


class Pipeline:
    """Sessions handed to one worker thread per reference process through a bounded queue,
    so the next session is drawn while Pi answers the previous ones (``window`` = how many
    may wait per process). Each worker asks its process one request at a time."""

    def __init__(self, impls: list[PersistentImplementation], scratch: Path, stages: list[str],
                 window: int):
        self.stages = stages
        self.queue: queue.Queue[bytes | None] = queue.Queue(maxsize=max(1, window) * len(impls))
        self.answered = 0
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.workers = [threading.Thread(target=self._work, args=(impl, scratch / str(i)),
                                         daemon=True) for i, impl in enumerate(impls)]
        for worker in self.workers:
            worker.start()

    def _work(self, impl: PersistentImplementation, scratch: Path) -> None:
        scratch.mkdir(exist_ok=True)
        path, seq = scratch / "session.jsonl", 0
        while (data := self.queue.get()) is not None:
            seq += 1
            path.write_bytes(data)
            request = protocol.run_request(seq, "bench", (), str(path),
                                           data.decode("utf-8", "replace"), self.stages, OPTIONS)
            results = protocol.check_run_answer(impl.run(request, 30), seq, self.stages)
            with self.lock:
                self.answered += 1
                self.errors += [f"{s}: {r}" for s, r in results.items() if "output" not in r]

    def submit(self, data: bytes) -> None:
        self.queue.put(data)

    def drain(self) -> None:
        for _ in self.workers:
            self.queue.put(None)
        for worker in self.workers:
            worker.join()
        if self.errors:
            raise SystemExit(f"the reference did not answer: {self.errors[:3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=2, help="reference processes, pipelined")
    parser.add_argument("--window", type=int, default=4, help="requests in flight per process")
    args = parser.parse_args()
    n = args.examples
    strategy = pis.session_files()
    print(f"machine: {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")

    corpus: list[bytes] = []
    cpu = time.process_time()
    seconds = drive(strategy, n, corpus.append)
    gen_cpu = (time.process_time() - cpu) / len(corpus)
    entries = sum(d.count(b"\n") - 1 for d in corpus) / len(corpus)
    print(f"generation alone:                 {len(corpus) / seconds:7.1f} sessions/s "
          f"({len(corpus)} sessions, {entries:.1f} entries on average; "
          f"{gen_cpu * 1000:.1f} ms CPU each)")

    from conformance.maintenance.fuzz_generation import Generators, draw_kind, shares

    for kind in ("valid", "all"):
        seeded: list[bytes] = []
        cpu, started = time.process_time(), time.perf_counter()
        draw_kind(kind, n, 1, lambda session, _: seeded.append(session))  # noqa: B023
        seconds = time.perf_counter() - started
        print(f"seeded drawing, --sessions {kind + ':':<7}{len(seeded) / seconds:7.1f} "
              f"sessions/s ({(time.process_time() - cpu) / len(seeded) * 1000:.1f} ms CPU "
              "each; as fuzz draws)")

    for count in sorted({1, max(1, args.jobs)}):
        started = time.perf_counter()
        generators = Generators("valid", shares(1, n, count))
        drawn = sum(1 for _ in generators)
        generators.close()
        print(f"generation in {count} generator process(es): "
              f"{drawn / (time.perf_counter() - started):7.1f} sessions/s (as fuzz draws, "
              "start included)")

    scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-bench-"))
    impls = [reference() for _ in range(max(1, args.jobs))]
    try:
        for impl in impls:
            impl.start()
        first = impls[0]
        path = scratch / "session.jsonl"
        seq = 0

        def ask(data: bytes, stages: list[str]) -> None:
            nonlocal seq
            seq += 1
            path.write_bytes(data)
            request = protocol.run_request(seq, "bench", (), str(path),
                                           data.decode("utf-8", "replace"), stages, OPTIONS)
            results = protocol.check_run_answer(first.run(request, 30), seq, stages)
            assert all("output" in r for r in results.values()), results

        pid = first.connection.pid  # type: ignore[union-attr]
        ref_cpu = 0.0
        for stages in (["entries"], list(SESSION_STAGES)):
            started, cpu = time.perf_counter(), cpu_seconds(pid)
            for data in corpus:
                ask(data, stages)
            rate = len(corpus) / (time.perf_counter() - started)
            ref_cpu = (cpu_seconds(pid) - cpu) / len(corpus)
            label = "entries" if stages == ["entries"] else "all session stages"
            print(f"reference alone, {label + ':':<18}{rate:7.1f} sessions/s "
                  f"({ref_cpu * 1000:.1f} ms CPU each in Node)")

        stages = list(SESSION_STAGES)
        seconds = drive(strategy, n, lambda data: ask(data, stages))
        print(f"generated -> reference, in turn:  {n / seconds:7.1f} sessions/s "
              "(how the fuzzer runs, all session stages)")

        for count in sorted({1, len(impls)}):
            pipe = Pipeline(impls[:count], scratch, stages, window=args.window)
            seconds = drive(strategy, n, pipe.submit)
            started = time.perf_counter()
            pipe.drain()
            seconds += time.perf_counter() - started
            print(f"generated -> reference, overlapped, {count} process(es): "
                  f"{pipe.answered / seconds:7.1f} sessions/s")
        cores = os.cpu_count() or 1
        bound = 1 / max(gen_cpu, ref_cpu / max(1, min(len(impls), cores - 1)))
        print(f"CPU-bound estimate on {cores} idle cores (generation overlapped with "
              f"{len(impls)} reference process(es)): {bound:7.1f} sessions/s")
    finally:
        for impl in impls:
            impl.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
