"""Running a corpus through an implementation spec, for the tests."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.cases import Case, Corpus
from conformance.corpus.selection import Selection
from conformance.corpus.shards import Shard
from conformance.corpus.stages import DEFAULT_STAGES
from conformance.execution import executor
from conformance.execution.executor import RunOutcome, Watcher, opened
from conformance.execution.goldens import CorpusGoldens
from conformance.execution.plan import Limits, RunPlan
from conformance.execution.rechunking import Rechunking
from conformance.execution.runner import Runner, plan
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation
from conformance.judging.results import StageResult


@dataclass
class RunRequest:
    """A whole run, by the run command's option names: ``execute`` makes its plan."""

    corpus: Corpus
    impl_spec: str
    cases: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    jobs: int = 1
    timeout: float = 30.0
    max_restarts: int = 10
    baseline: Path | None = None
    report_path: Path | None = None
    validate_protocol: bool = False
    shard: Shard | None = None
    allow_empty: bool = False

    def plan(self) -> RunPlan:
        return RunPlan(self.impl_spec, Selection(self.cases, self.features, self.stages,
                                                 self.apis),
                       Limits(timeout=self.timeout, max_restarts=self.max_restarts,
                              jobs=self.jobs, validate_protocol=self.validate_protocol),
                       shard=self.shard, baseline=self.baseline, report=self.report_path,
                       allow_empty=self.allow_empty)


def execute(request: RunRequest) -> RunOutcome:
    """The run command's execution of ``request``."""
    return executor.execute(request.plan(), request.corpus)


def runner_for(corpus: Corpus, **limits: Any) -> Runner:
    """A runner judging against ``corpus``'s golden files, with these ``Limits``."""
    return Runner(corpus, CorpusGoldens(corpus.root), Limits(**limits))


def drive(runner: Runner, implementations: list[Implementation], cases: list[Case],
          emit: Callable[[StageResult], None], selection: Selection | None = None) -> None:
    """Plan ``cases`` from the first implementation's hello, prepare and run them."""
    hello = implementations[0].hello
    planned = plan(hello, cases, selection or Selection())
    planned = runner.prepare(planned, hello.inputs)
    runner.run(implementations, planned, emit)


class Collect(Watcher):
    """Every result of a run, as written."""

    def __init__(self, into: list[StageResult]):
        self.into = into

    def result(self, result: StageResult) -> None:
        self.into.append(result)


def run_on(implementations: list[Implementation], corpus: Corpus, cases: list[Case] | None = None,
           *, selection: Selection | None = None, limits: Limits | None = None,
           spec: str = "", rechunking: Rechunking | None = None
           ) -> tuple[Runner, list[StageResult]]:
    """``cases`` (default: the corpus's) through already started ``implementations``, by the
    executor, with no report: the runner and every result."""
    results: list[StageResult] = []
    plan = RunPlan(spec or implementations[0].spec, selection or Selection(),
                   limits or Limits(), allow_empty=True, rechunking=rechunking)
    with opened(plan, corpus, implementations, watcher=Collect(results)) as execution:
        execution.run_cases(corpus.cases if cases is None else cases)
    return execution.runner, results


@dataclass
class Outcome:
    runner: Runner | None
    implementations: list[Implementation]
    results: list[StageResult] = field(default_factory=list)

    @property
    def by_key(self) -> dict[tuple[str, str], StageResult]:
        keyed = {(r.case, r.stage): r for r in self.results}
        assert len(keyed) == len(self.results), "a stage was reported twice"
        return keyed

    def statuses(self, case: str) -> set[str]:
        return {r.status for r in self.results if r.case == case}

    def of(self, case: str) -> list[StageResult]:
        return [r for r in self.results if r.case == case]


def run_spec(corpus: Corpus, spec: str, *, jobs: int = 1, timeout: float = 10.0,
             max_restarts: int = 10, selection: Selection | None = None,
             validate_protocol: bool = False) -> Outcome:
    """Every case of ``corpus`` through ``jobs`` processes of ``spec``, by the executor."""
    implementations = [resolve(spec) for _ in range(jobs)]
    outcome = Outcome(None, implementations)
    try:
        for impl in implementations:
            impl.start()
        outcome.runner, outcome.results = run_on(
            implementations, corpus, selection=selection, spec=spec,
            limits=Limits(timeout=timeout, max_restarts=max_restarts, jobs=jobs,
                          validate_protocol=validate_protocol))
    finally:
        for impl in implementations:
            impl.close()
    return outcome


def settled(probe: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``probe()`` once it is falsy (an empty list of live processes, False for alive), or its
    last value after ``seconds``: a SIGKILLed process is gone a moment later, not at once,
    and later still on a loaded machine, so a test waits for it instead of racing it."""
    deadline = time.monotonic() + seconds
    while True:
        value = probe()
        if not value or time.monotonic() >= deadline:
            return value
        time.sleep(0.05)


def live_group_members(pgid: int) -> list[int]:
    """Processes of a group still running (zombies left for init to reap do not count)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def sigint_as_default() -> None:
    """For ``Popen(preexec_fn=...)``: a child started from a shell's background job inherits
    SIGINT ignored, and a test that interrupts it would then see no interruption at all."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: A ``[scope]`` covering every default stage whole: for a test case given an outcome class
#: whose verdicts the test expects on every stage.
EVERY_STAGE = "[scope]\n" + "".join(f'"{stage}" = ["$"]\n' for stage in DEFAULT_STAGES)
