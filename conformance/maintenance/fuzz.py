"""The differential fuzzer: generated sessions through an implementation and the reference.

Hypothesis draws sessions from the public strategies (``strategies``), each one goes to the
implementation and to the real Pi at once, and every stage both answer is compared with the
runner's own rules (``compare.differences`` after ``normalize``). A disagreement is an
exception for Hypothesis, which then shrinks the session to a small one that still
disagrees in the same way (same stage, same kind, same place). Each distinct disagreement
is written as a candidate case directory: ``case.toml`` and ``session.jsonl``, no goldens;
``pi-conformance corpus promote`` turns one into a corpus case with goldens from the reference.

Both processes stay alive across examples (protocol v1's persistent mode): that is what
makes hundreds of sessions per second possible. A crash or hang is a finding too, and the
process is restarted for the next example.

A run has two phases, so that generation stays off the critical path. Exploring: generator
processes (``fuzz_generation``, one per four pairs, each its own seed and share of the
sessions) draw seeded sessions, in the form Hypothesis replays, while ``-j`` pairs of
processes (implementation and reference, each pair started side by side) answer the ones
drawn before; nothing waits for anything but the slowest of them. Shrinking, only when
something disagreed: the Hypothesis choices each disagreeing session was drawn from are handed
back to Hypothesis as saved examples, which it replays, compares again and shrinks.
"""

from __future__ import annotations

import contextlib
import hashlib
import queue
import random
import re
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w
from hypothesis import Phase, given, settings
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import FlakyFailure
from hypothesis.strategies import SearchStrategy

from conformance import jsonio
from conformance.corpus.normalization import input_strings
from conformance.corpus.stages import SESSION_STAGES, api_of
from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations import protocol
from conformance.implementations.reference import ram_directory
from conformance.implementations.transports import Implementation
from conformance.judging.comparison import differences, preload
from conformance.maintenance.fuzz_generation import (
    AHEAD,
    Generators,
    draw,
    draw_settings,
    fuzz_sessions,
    generators_for,
    shares,
)
from conformance.maintenance.oracle import request_options

__all__ = ["Differential", "Finding", "FuzzOutcome", "fuzz", "fuzz_sessions", "judge",
           "write_candidate"]
_draw = draw  # the thread generator's drawing, replaceable in tests
_SHRINK_KEY = b"pi-conformance-fuzz-shrink"

# Seconds each side may take for one session: the same default as every --timeout
# (cli/options.py DEFAULT_TIMEOUT), which the fuzz command passes explicitly.
TIMEOUT = 30.0
FEATURE = "generated"
SHOWN_DIFFERENCES = 5


@dataclass
class Finding:
    """One disagreement, on the session that shows it (the shrunk one, once Hypothesis is
    done)."""

    session: bytes
    key: str
    stages: dict[str, str]  # stage -> what differs, in words
    details: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def summary(self) -> str:
        return "; ".join(f"{stage}: {what}" for stage, what in self.stages.items())


class Disagreement(Exception):
    """Raised inside the Hypothesis test; one subclass per kind of disagreement, so that
    Hypothesis shrinks each kind separately instead of sliding from one bug to another."""

    finding: Finding

    def __init__(self, finding: Finding):
        super().__init__(finding.summary())
        self.finding = finding


_KINDS: dict[str, type[Disagreement]] = {}


def _disagreement_type(key: str) -> type[Disagreement]:
    if key not in _KINDS:
        name = "Disagreement_" + re.sub(r"\W+", "_", key)[:80]
        _KINDS[key] = type(name, (Disagreement,), {})
    return _KINDS[key]


def _shape(path: str) -> str:
    """``$.entries[3].message`` -> ``$.entries[*].message``: where, regardless of which."""
    return re.sub(r"\[\d+\]", "[*]", path)


class Differential:
    """The implementation and the reference, started once; ``compare`` runs one session
    through both (concurrently) and says how they disagree, if they do."""

    def __init__(self, impl: Implementation, reference: Implementation,
                 stages: tuple[str, ...] = (), options: dict[str, Any] | None = None,
                 timeout: float = TIMEOUT):
        self.impl, self.reference = impl, reference
        self.wanted = stages
        # Both are told which stages they will be asked (those given, else the session
        # stages: request stages only when asked), so the reference loads no provider's code.
        for side in (impl, reference):
            side.stages_hint = tuple(stages) or SESSION_STAGES
        self.options = options
        self.timeout = timeout
        self.seq = 0
        # Every session is written here before both sides read it: in RAM when there is a
        # RAM file system (writing to a disk took a millisecond, on every session's path).
        self.scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-fuzz-",
                                             dir=ram_directory()))
        # Removed on exit, or when a pair never entered is collected (or at interpreter exit).
        self._remove_scratch = weakref.finalize(self, shutil.rmtree, self.scratch, True)
        self.pool = ThreadPoolExecutor(1)
        self.stages: list[str] = []

    def __enter__(self) -> Differential:
        try:
            ref_hello, hello = _start_together(self.reference, self.impl)
        except BaseException:
            self.__exit__()
            raise
        both = [s for s in (*SESSION_STAGES, *sorted(ref_hello.stages - set(SESSION_STAGES)))
                if s in hello.stages and s in ref_hello.stages]
        if self.wanted:
            both = [s for s in both if s in self.wanted]
        elif any(api_of(s) is None for s in both):
            both = [s for s in both if api_of(s) is None]  # request stages only when asked
        if not both:
            self.__exit__()  # both were started: stop them
            raise ConformanceError(
                f"{self.impl.spec} answers none of the stages to compare (it claims "
                f"{', '.join(sorted(hello.stages)) or 'none'})")
        self.stages = both
        if self.options is None:
            self.options = request_options(both)
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown()
        for impl in (self.impl, self.reference):
            with contextlib.suppress(ConformanceError):
                impl.close()
        self._remove_scratch()

    def _ask(self, impl: Implementation, request: dict[str, Any]) -> dict[str, Any]:
        """The per-stage results, or one ``error`` result per stage if the run failed."""
        try:
            answer = impl.run(request, self.timeout)
            return protocol.check_run_answer(answer, request["seq"], request["stages"])
        except ImplementationError as exc:
            with contextlib.suppress(ConformanceError):
                impl.restart()
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return {stage: {"error": {"message": message}} for stage in request["stages"]}

    def compare(self, session: bytes) -> Finding | None:
        return judge(session, self.stages, *self.answers(session))

    def answers(self, session: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
        """The reference's per-stage results and the implementation's, asked at once."""
        self.seq += 1
        path = self.scratch / "session.jsonl"
        path.write_bytes(session)
        request = protocol.run_request(
            self.seq, f"fuzz.example-{self.seq}", (FEATURE,), str(path),
            session.decode("utf-8", errors="replace"), list(self.stages), self.options or {})
        pending = self.pool.submit(self._ask, self.impl, request)
        expected = self._ask(self.reference, request)
        return expected, pending.result()


def judge(session: bytes, stages: list[str], expected: dict[str, Any],
          actual: dict[str, Any]) -> Finding | None:
    """How ``actual`` (the implementation) differs from ``expected`` (the reference)."""
    known: frozenset[str] | None = None  # the session's strings: read once outputs differ
    found: dict[str, str] = {}
    details: dict[str, list[dict[str, Any]]] = {}
    key = ""
    for stage in stages:
        want, got = expected[stage], actual[stage]
        want_kind, got_kind = next(iter(want)), next(iter(got))
        if got_kind == "skipped":
            continue
        if want_kind in ("error", "skipped"):
            what = f"the reference failed: {want[want_kind]}"
            kind = "reference-failed"
        elif got_kind == "error":
            what = f"the implementation failed: {got['error'].get('message', '')}"[:300]
            kind = "error"
        elif want_kind != got_kind:
            what = f"Pi gives {want_kind}, the implementation {got_kind}"
            kind = f"{want_kind}-vs-{got_kind}"
        elif want_kind == "output":
            if _identical(want["output"], got["output"]):
                continue
            known = input_strings(session) if known is None else known
            diffs = differences(want["output"], got["output"], known)
            if not diffs:
                continue
            first = diffs[0]
            what = (f"{len(diffs)} difference(s), first at {first.path} ({first.kind}): "
                    f"Pi {first.expected!r:.60}, implementation {first.actual!r:.60}")
            kind = f"{first.kind} {_shape(first.path)}"
            details[stage] = [d.to_json() for d in diffs[:SHOWN_DIFFERENCES]]
        else:
            continue  # both rejected: the messages are free text
        found[stage] = what
        key = key or f"{stage} {kind}"
    return Finding(session, key, found, details) if found else None


def _identical(a: Any, b: Any) -> bool:
    """The same JSON, byte for byte once keys are sorted: no difference, and no need to read
    the session's strings, which only tell generated values apart. False when unsure."""
    try:
        return jsonio.canonical(a) == jsonio.canonical(b)
    except (TypeError, ValueError, RecursionError):
        return False


@dataclass
class FuzzOutcome:
    examples: int
    elapsed: float  # exploring: drawing sessions and comparing the answers, shrinking excluded
    stages: list[str]
    findings: list[Finding]
    flaky: bool = False
    shrink_elapsed: float = 0.0

    @property
    def rate(self) -> float:
        return self.examples / self.elapsed if self.elapsed else 0.0


_DONE = object()


def _start_together(*impls: Implementation) -> list[protocol.Hello]:
    """Start every implementation at once (a Node handshake takes a while); if one fails, the
    others are closed and the first failure is raised."""
    with ThreadPoolExecutor(len(impls)) as pool:
        futures = [pool.submit(impl.start) for impl in impls]
        errors = [f.exception() for f in futures]
    failed = next((e for e in errors if e is not None), None)
    if failed is not None:
        for impl in impls:
            with contextlib.suppress(Exception):
                impl.close()
        raise failed
    return [f.result() for f in futures]


def fuzz(differentials: Differential | Sequence[Differential], *, max_examples: int = 200,
         seed: int | None = None,
         sessions: SearchStrategy[bytes] | str | Generators | None = None,
         on_example: Callable[[int], None] = lambda n: None) -> FuzzOutcome:
    """Explore ``max_examples`` sessions over every pair in ``differentials`` at once, then
    shrink every distinct disagreement (see the module's docstring).

    ``sessions`` is a session kind (``fuzz_sessions``; default ``all``), drawn in generator
    processes (``generators_for`` the pairs); or generators already started
    (``start_generators``, so that they start while the implementations do); or a strategy,
    drawn in a thread of this process."""
    pairs = [differentials] if isinstance(differentials, Differential) else list(differentials)
    if not pairs:
        raise ConformanceError("fuzz needs at least one implementation and reference pair")
    seed = fuzz_seed(seed)
    started_early = sessions if isinstance(sessions, Generators) else None
    kind: str | SearchStrategy[bytes]
    if isinstance(sessions, Generators):
        kind = sessions.kind
    else:
        kind = "all" if sessions is None else sessions
    strategy = fuzz_sessions(kind) if isinstance(kind, str) else kind
    plan = started_early.plan if started_early else shares(seed, max_examples,
                                                           generators_for(len(pairs)))
    drawn: queue.Queue[Any] = queue.Queue(maxsize=AHEAD * len(pairs))
    answered: queue.Queue[Any] = queue.Queue(maxsize=AHEAD * len(pairs))
    found: dict[str, tuple[Finding, bytes]] = {}
    count = 0
    failure: list[BaseException] = []
    stop = threading.Event()

    def produce() -> None:
        try:
            if isinstance(kind, str):
                generators = started_early or Generators(kind, plan)
                try:
                    for item in generators:  # (session, choices)
                        if stop.is_set():
                            break
                        drawn.put(item)
                finally:
                    generators.close()
            else:
                _draw(strategy, max_examples, seed, lambda *item: drawn.put(item))
        except BaseException as exc:  # reported below, after the workers stop
            failure.append(exc)
        finally:
            for _ in pairs:
                drawn.put(_DONE)

    def work(pair: Differential) -> None:
        while (item := drawn.get()) is not _DONE:
            session, choices = item
            if stop.is_set():
                continue  # something failed: drain what was drawn, ask nothing more
            try:
                answers = pair.answers(session)
            except BaseException as exc:
                failure.append(exc)
                stop.set()
                continue
            answered.put((pair.stages, session, choices, answers))

    def judge_all() -> None:
        """Judging, in a thread of its own: a pair asks its next session meanwhile."""
        nonlocal count
        while (item := answered.get()) is not _DONE:
            stages, session, choices, (expected, actual) = item
            if stop.is_set():
                continue
            try:
                finding = judge(session, stages, expected, actual)
            except BaseException as exc:
                failure.append(exc)
                stop.set()
                continue
            count += 1
            on_example(count)
            if finding is not None:
                found.setdefault(finding.key, (finding, choices))

    if not isinstance(kind, str):  # drawn in a thread here: nothing may be imported half-way
        preload()  # by one thread while Hypothesis draws in another (generator processes
        #            draw elsewhere, and DeepDiff, rarely needed now, is then imported on use)
    started = time.perf_counter()
    threads = [threading.Thread(target=produce, daemon=True)]
    threads += [threading.Thread(target=work, args=(pair,), daemon=True) for pair in pairs]
    judging = threading.Thread(target=judge_all, daemon=True)
    for thread in [*threads, judging]:
        thread.start()
    for thread in threads:
        thread.join()
    answered.put(_DONE)
    judging.join()
    elapsed = time.perf_counter() - started
    if failure:
        raise failure[0]
    if not found:
        return FuzzOutcome(count, elapsed, pairs[0].stages, [])
    started = time.perf_counter()
    shrunk, flaky = _shrink(pairs[0], strategy, [choices for _, choices in found.values()])
    if not shrunk:  # the replay never disagreed: keep what exploring found, as it was
        shrunk, flaky = [f for f, _ in found.values()], True
    return FuzzOutcome(count, elapsed, pairs[0].stages, shrunk, flaky,
                       time.perf_counter() - started)


def fuzz_seed(seed: int | None) -> int:
    """The run's seed: the one given, else a random one."""
    return seed if seed is not None else random.SystemRandom().getrandbits(32)


def start_generators(kind: str, max_examples: int, seed: int, pairs: int) -> Generators:
    """The generator processes ``fuzz`` would start for these pairs, started now."""
    return Generators(kind, shares(seed, max_examples, generators_for(pairs)))


def _shrink(pair: Differential, strategy: SearchStrategy[bytes],
            disagreeing: list[bytes]) -> tuple[list[Finding], bool]:
    """Hand the choices of every session that disagreed to Hypothesis as saved examples:
    it replays each one (reuse), compares it again, and shrinks each kind that still
    disagrees. No exploring is replayed, so the sessions need not come from this process."""
    database = InMemoryExampleDatabase()
    for choices in disagreeing:  # not yet shrunk: under the secondary key (Hypothesis would
        database.save(_SHRINK_KEY + b".secondary", choices)  # take primary ones as shrunk)

    @settings(draw_settings(len(disagreeing)), database=database,
              phases=[Phase.reuse, Phase.shrink])  # every saved example replayed
    @given(strategy)
    def probe(session: bytes) -> None:
        finding = pair.compare(session)
        if finding is not None:
            raise _disagreement_type(finding.key)(finding)

    probe._hypothesis_internal_database_key = _SHRINK_KEY  # type: ignore[attr-defined]
    findings: list[Finding] = []
    flaky = False
    try:
        probe()
    except Disagreement as exc:
        findings.append(exc.finding)
    except BaseExceptionGroup as group:
        flaky = isinstance(group, FlakyFailure)
        matched, rest = group.split(Disagreement)
        if rest is not None and not flaky:
            raise
        findings += [leaf.finding for leaf in _leaves(matched)]
    unique = {f.session: f for f in findings}
    return list(unique.values()), flaky


def _leaves(group: BaseExceptionGroup | None) -> list[Disagreement]:
    if group is None:
        return []
    out: list[Disagreement] = []
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            out += _leaves(exc)
        elif isinstance(exc, Disagreement):
            out.append(exc)
    return out


def candidate_slug(session: bytes) -> str:
    return "fuzz-" + hashlib.sha256(session).hexdigest()[:10]


def write_candidate(finding: Finding, out: Path, impl_name: str, command: str,
                    stages: list[str]) -> Path:
    """``out/<slug>/case.toml`` and ``session.jsonl``: a case without goldens."""
    slug = candidate_slug(finding.session)
    directory = out / slug
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "session.jsonl").write_bytes(finding.session)
    lines = [f"Found by the differential fuzzer: {impl_name} disagrees with Pi.", ""]
    for stage, what in finding.stages.items():
        lines.append(f"{stage}: {what}")
    meta = {
        "id": f"fuzz.{slug}",
        "title": f"{impl_name} disagrees with Pi on " + ", ".join(finding.stages),
        "description": "\n".join(lines),
        "features": [FEATURE],
        "stages": stages,
        "source": command,
    }
    (directory / "case.toml").write_text(tomli_w.dumps(meta), encoding="utf-8")
    return directory
