"""Running a corpus through an implementation spec, for the tests."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

from conformance.corpus.cases import Corpus
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation
from conformance.judging.runner import Runner, RunSettings, Selection, StageResult


@dataclass
class Outcome:
    runner: Runner
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
    runner = Runner(corpus, RunSettings(timeout=timeout, max_restarts=max_restarts, jobs=jobs,
                                        validate_protocol=validate_protocol))
    implementations = [resolve(spec) for _ in range(jobs)]
    outcome = Outcome(runner, implementations)
    try:
        for impl in implementations:
            impl.start()
        runner.run(implementations, corpus.cases, selection or Selection(),
                   outcome.results.append)
    finally:
        for impl in implementations:
            impl.close()
    return outcome


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
