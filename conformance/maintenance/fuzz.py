"""The differential fuzzer: generated sessions through an implementation and the reference.

Hypothesis draws sessions from the public strategies (``strategies``), each one goes to the
implementation and to the real Pi at once, and judged as a run judges a case
(``execution.sessions.SessionJudge``: the same inputs, volatile paths and verdicts). A
disagreement is an exception for Hypothesis, which then shrinks the session to a small one
that still disagrees in the same way (same stage, same kind, same place). Each distinct disagreement
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

import hashlib
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import FlakyFailure
from hypothesis.strategies import SearchStrategy

from conformance.corpus.jsonpath import generalize
from conformance.corpus.metadata import CaseMetadata
from conformance.corpus.stages import SESSION_STAGES, stage_sort_key
from conformance.errors import ConformanceError
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.execution.runner import Limits
from conformance.execution.sessions import SessionJudge
from conformance.files import staged_directory
from conformance.implementations.transports import Implementation
from conformance.judging.comparison import preload
from conformance.judging.results import StageResult
from conformance.maintenance.fuzz_generation import (
    AHEAD,
    Generators,
    draw,
    draw_settings,
    fuzz_sessions,
    generators_for,
    shares,
)

__all__ = ["Differential", "Finding", "FuzzOutcome", "finding_of", "fuzz", "fuzz_sessions",
           "write_candidate"]
_draw = draw  # the thread generator's drawing, replaceable in tests
_SHRINK_KEY = b"pi-conformance-fuzz-shrink"

# Seconds each side may take for one session: the same default as every --timeout
# (cli/options.py DEFAULT_TIMEOUT), which the fuzz command passes explicitly.
TIMEOUT = 30.0
# Seconds Pi may take on one stage of a generated session before it counts as a hang (it
# answers one in milliseconds; where it hangs, nothing is required of the implementation).
REFERENCE_STAGE_TIMEOUT = 5.0
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


class Differential:
    """The implementation and the reference, started once; ``results`` runs one session
    through both (at once, unless the implementation takes its input from Pi's answer) and
    judges it exactly as a run judges a case (``execution.sessions.SessionJudge``)."""

    def __init__(self, impl: Implementation, reference: ReferenceGoldens | None = None,
                 stages: tuple[str, ...] = (), timeout: float = TIMEOUT):
        # Both are told which stages they will be asked (those given, else the session
        # stages), so the reference loads no provider's code it does not need.
        hint = tuple(stages) or SESSION_STAGES
        impl.stages_hint = hint
        self.reference = reference or ReferenceGoldens(
            stage_timeout=min(timeout, REFERENCE_STAGE_TIMEOUT), hint=hint)
        self.judge = SessionJudge(impl, self.reference, stages=stages,
                                  limits=Limits(timeout=timeout, max_restarts=1 << 30),
                                  case_id="fuzz.example", features=(FEATURE,))
        self.stages: list[str] = []

    @property
    def impl(self) -> Implementation:
        return self.judge.implementation

    def __enter__(self) -> Differential:
        self.judge.__enter__()
        self.stages = self.judge.stages
        return self

    def __exit__(self, *exc: object) -> None:
        self.judge.__exit__()

    def results(self, session: bytes) -> list[StageResult]:
        """Every compared stage's result for ``session``, as ``run`` would report it."""
        return self.judge.judge(session)

    def compare(self, session: bytes) -> Finding | None:
        return finding_of(session, self.results(session))


def finding_of(session: bytes, results: list[StageResult]) -> Finding | None:
    """The disagreement ``results`` show, if any: every failing stage in words, keyed by
    the first one's exact difference (its stage, kind and generalized path), so that
    Hypothesis shrinks each distinct difference on its own and never slides to another."""
    failing = sorted((r for r in results if r.failing), key=lambda r: stage_sort_key(r.stage))
    if not failing:
        return None
    found: dict[str, str] = {}
    details: dict[str, list[dict[str, Any]]] = {}
    for result in failing:
        found[result.stage] = _in_words(result)
        if result.differences:
            details[result.stage] = [d.to_json() for d in
                                     result.differences[:SHOWN_DIFFERENCES]]
    first = failing[0]
    if first.differences:
        diff = first.differences[0]
        kind = f"{diff.kind} {generalize(diff.path)}"
    elif first.status == "error":
        kind = "error"
    else:
        kind = f"{first.expected_kind}-vs-{first.actual_kind}"
    return Finding(session, f"{first.stage} {kind}", found, details)


def _in_words(result: StageResult) -> str:
    if result.status == "error":
        return f"the implementation failed: {result.message}"[:300]
    if not result.differences:
        return result.message[:300]
    first = result.differences[0]
    return (f"{len(result.differences)} difference(s), first at {first.path} ({first.kind}): "
            f"Pi {first.expected!r:.60}, implementation {first.actual!r:.60}")


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
                results = pair.results(session)
            except BaseException as exc:
                failure.append(exc)
                stop.set()
                continue
            answered.put((session, choices, results))

    def judge_all() -> None:
        """Judging, in a thread of its own: a pair asks its next session meanwhile."""
        nonlocal count
        while (item := answered.get()) is not _DONE:
            session, choices, results = item
            if stop.is_set():
                continue
            try:
                finding = finding_of(session, results)
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
    lines = [f"Found by the differential fuzzer: {impl_name} disagrees with Pi.", ""]
    for stage, what in finding.stages.items():
        lines.append(f"{stage}: {what}")
    metadata = CaseMetadata(id=f"fuzz.{slug}",
                            title=f"{impl_name} disagrees with Pi on " + ", ".join(finding.stages),
                            description="\n".join(lines), features=(FEATURE,),
                            stages=tuple(stages), source=command)
    with staged_directory(out / slug) as directory:  # whole, or not at all
        (directory / "session.jsonl").write_bytes(finding.session)
        metadata.write(directory)
    return out / slug
