"""Where the fuzzer's sessions come from: seeded draws, in worker processes.

Drawing a session with the public strategies through Hypothesis costs about 20 ms of CPU
(its per-draw bookkeeping over ~160 draws), four times what both implementations and the judge
together take for it. So the fuzzer draws ``seeded=True`` sessions (a few integer choices for
the tree's shape and one seed per entry, see ``strategies.seeded``), and draws them without
Hypothesis's engine: :func:`strategies.seeded.recorded` makes those choices itself, with a
seeded random generator, and writes them down as Hypothesis would have. Shrinking hands them
to Hypothesis as saved examples, which replay the very same sessions, in this process.

In a thread drawing would also hold the GIL against the judging thread, whose every wake-up
after Pi answers then waits for a switch interval. So the sessions are drawn in separate
processes (``python -m``: no fork of a process that holds pipes to Node and running threads),
each with its own seed and share of the examples, writing length-prefixed sessions to a pipe:
generation overlaps answering and judging, and the pipe and a bounded queue keep a generator
from running far ahead. A generator is named by the session kind (``all``, ``valid``,
``edge``, ``legacy``), which is what another process can rebuild.
"""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes
from hypothesis.strategies import SearchStrategy

from conformance.errors import ConformanceError

KINDS = ("all", "valid", "edge", "legacy")
AHEAD = 8  # sessions a generator may draw ahead of the judges, per generator
# A generator draws a session in about 1 ms of CPU, a pair answers and judges one in about
# 8 ms: one generator keeps several pairs busy, and each one more costs its start (~0.4 s
# of CPU, mostly importing Hypothesis) on the cores the pairs use.
PAIRS_PER_GENERATOR = 4


def fuzz_sessions(kind: str = "all") -> SearchStrategy[bytes]:
    """The session files the fuzzer draws: ``valid`` v3 trees, ``edge`` values and file
    quirks, ``legacy`` v1/v2 files, or ``all`` of them (valid first: it shrinks there)."""
    import strategies as pis

    legacy = st.one_of(pis.legacy_sessions(1, seeded=True),
                       pis.legacy_sessions(2, seeded=True)).map(pis.Session.to_jsonl)
    valid, edge = pis.session_files(seeded=True), pis.edge_session_files(seeded=True)
    choices = {"valid": [valid], "edge": [edge], "legacy": [legacy],
               "all": [valid, edge, legacy]}
    if kind not in choices:
        raise ConformanceError(f"unknown session kind {kind!r}: use {', '.join(choices)}")
    return st.one_of(choices[kind])


def draw_settings(max_examples: int) -> settings:
    """How sessions are drawn (a seed gives the same sessions every time), and the base of
    the shrinking phase's settings."""
    return settings(max_examples=max_examples, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), report_multiple_bugs=True,
                    verbosity=Verbosity.quiet, derandomize=False, print_blob=False,
                    phases=[Phase.generate, Phase.shrink])


def draw(sessions: SearchStrategy[bytes], max_examples: int, seed: int,
         sink: Callable[[bytes, bytes], None]) -> None:
    """Hand every session Hypothesis draws for ``seed`` to ``sink``, in order, with the
    choices it was drawn from (what Hypothesis replays to shrink it, in any process): how any
    strategy is drawn, the fuzz kinds included (``draw_kind`` draws those faster)."""
    @draw_settings(max_examples)
    @given(sessions)
    def each(session: bytes) -> None:
        sink(session, choices_to_bytes(current_build_context().data.choices))

    hypothesis_seed(seed)(each)()


def draw_kind(kind: str, max_examples: int, seed: int,
              sink: Callable[[bytes, bytes], None]) -> None:
    """Hand ``max_examples`` sessions of ``kind`` drawn for ``seed`` to ``sink``, with the
    choices Hypothesis replays them from (``strategies.seeded.recorded``), without its engine:
    the same seed, the same sessions. With a Hypothesis whose draws the recording does not
    follow (``recording_matches``), drawn by its engine instead: slower, never unshrinkable."""
    from strategies import seeded

    if max_examples < 0:
        raise ConformanceError(f"max_examples must be at least 0, not {max_examples}")
    sessions = fuzz_sessions(kind)
    if not recording_matches(sessions):
        draw(sessions, max_examples, seed, sink)
        return
    recorded = seeded.recorded
    seeds = random.Random(seed)
    for _ in range(max_examples):
        session, choices = recorded(sessions, seeds.getrandbits(64))
        sink(session, choices_to_bytes(choices))


def replayed(strategy: SearchStrategy[bytes], choices: bytes) -> list[bytes]:
    """What Hypothesis draws from ``strategy`` when it replays ``choices``, as shrinking does."""
    database = InMemoryExampleDatabase()
    database.save(b"replay.secondary", choices)
    drawn: list[bytes] = []

    @settings(database=database, phases=[Phase.reuse], max_examples=1, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def probe(value: bytes) -> None:
        drawn.append(value)

    probe._hypothesis_internal_database_key = b"replay"  # type: ignore[attr-defined]
    probe()
    return drawn


def recording_matches(sessions: SearchStrategy[bytes], probes: int = 3) -> bool:
    """Whether sessions recorded without Hypothesis's engine replay as themselves in the
    Hypothesis installed. The recording follows how it draws integers, ``sampled_from`` and
    ``one_of``, which are its internals: a release may change them (6.170 changed one)."""
    from strategies import seeded

    try:
        for probe_seed in range(1, probes + 1):
            session, choices = seeded.recorded(sessions, probe_seed)
            if replayed(sessions, choices_to_bytes(choices)) != [session]:
                return False
    except Exception:  # an internal it reads is gone or has another shape
        return False
    return True


@dataclass(frozen=True)
class Share:
    """One generator's part of a run: its seed and how many sessions it draws."""

    index: int
    seed: int
    examples: int


def generators_for(pairs: int) -> int:
    """How many generator processes serve ``pairs`` pairs of processes."""
    return max(1, -(-pairs // PAIRS_PER_GENERATOR))


def shares(seed: int, max_examples: int, generators: int) -> list[Share]:
    """``max_examples`` split over ``generators``; one generator keeps the run's own seed
    (the sessions of a single-generator run do not depend on how they were drawn)."""
    count = max(1, min(generators, max_examples))
    if count == 1:
        return [Share(0, seed, max_examples)]
    return [Share(k, seed * count + k, max_examples // count + (k < max_examples % count))
            for k in range(count)]


def _generate(kind: str, examples: int, seed: int) -> None:
    """A generator process: every session on stdout as a length-prefixed frame, then a zero
    length; a failure is a traceback on stderr and a non-zero exit."""
    out = sys.stdout.buffer

    def put(session: bytes, choices: bytes) -> None:
        out.write(len(session).to_bytes(4, "big") + session
                  + len(choices).to_bytes(4, "big") + choices)
        out.flush()  # the pipe's buffer is the backpressure: a full pipe blocks the draw

    draw_kind(kind, examples, seed, put)
    out.write(_END)
    out.flush()


_END = (0).to_bytes(4, "big")  # no session file is empty: a header line at least


class Generators:
    """Generator processes for ``kind``, one per share; iterate for ``(session, choices)``
    in each generator's own order, until every generator is done."""

    def __init__(self, kind: str, plan: list[Share]):
        if kind not in KINDS:
            raise ConformanceError(f"unknown session kind {kind!r}: use {', '.join(KINDS)}")
        self.kind, self.plan = kind, plan
        self.items: queue.Queue[tuple[int, tuple[bytes, bytes] | str | None]] = queue.Queue(
            maxsize=AHEAD * len(plan))
        # stderr goes to a file, read only on failure: a pipe nobody reads would block a
        # generator that warns more than a pipe holds.
        self.errors = [tempfile.TemporaryFile() for _ in plan]  # noqa: SIM115 (closed in close)
        self.processes = [subprocess.Popen(
            [sys.executable, "-m", __name__, kind, str(share.examples), str(share.seed)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors)
            for share, errors in zip(plan, self.errors, strict=True)]
        self.readers = [threading.Thread(target=self._read, args=(k, process), daemon=True)
                        for k, process in enumerate(self.processes)]
        for reader in self.readers:
            reader.start()

    def _read(self, index: int, process: subprocess.Popen[bytes]) -> None:
        """One generator's frames onto the shared queue; None when it is done, a string
        when it failed."""
        assert process.stdout is not None
        stream = process.stdout
        while len(size := stream.read(4)) == 4 and size != _END:
            session = stream.read(int.from_bytes(size, "big"))
            choices = stream.read(int.from_bytes(stream.read(4), "big"))
            self.items.put((index, (session, choices)))
        if size == _END:
            self.items.put((index, None))
            return
        code = process.wait()
        try:
            self.errors[index].seek(0)
            error = self.errors[index].read()[-20000:].decode("utf-8", "replace").strip()
        except ValueError:  # closed: the run stopped the generators, nobody waits for this
            return
        self.items.put((index, error or f"the generator process exited ({code})"))

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        running = len(self.processes)
        while running:
            _, item = self.items.get()
            if item is None:
                running -= 1
            elif isinstance(item, str):
                raise ConformanceError(f"drawing sessions failed:\n{item}")
            else:
                yield item

    def close(self) -> None:
        """Stop the generators, finished or not (a failed run leaves them blocked)."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait()
            if process.stdout is not None:
                process.stdout.close()
        for errors in self.errors:
            errors.close()


if __name__ == "__main__":
    _generate(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
