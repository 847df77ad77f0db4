"""Run cases through an implementation and judge every stage against its golden.

The runner never trusts the implementation: each case gets a fresh copy of its session, every
wait is bounded, a crash or hang becomes an ``error`` result for that case (results already
obtained are kept) and the implementation is restarted, up to a cap. Stages or features the
implementation does not claim are ``skip``, never ``fail``.
"""

from __future__ import annotations

import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import protocol
from conformance.compare import Difference, differences
from conformance.corpus import Case, Corpus
from conformance.errors import ConformanceError, ImplementationError
from conformance.golden import read_golden
from conformance.implementations import Implementation
from conformance.normalize import input_strings

# pass: matches the golden. fail: differs where Pi's behaviour is required. error: no usable
# answer (crash, hang, malformed answer, or the implementation reported an error).
# skip: not applicable. info: an answer where nothing is required (implementation-defined,
# or Pi itself misbehaves), with its differences for reference.
STATUSES = ("pass", "fail", "error", "skip", "info")


@dataclass
class StageResult:
    case: str
    stage: str
    status: str
    message: str = ""
    differences: list[Difference] = field(default_factory=list)
    outcome: str = "required"
    expected_kind: str | None = None
    actual_kind: str | None = None
    duration: float = 0.0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"case": self.case, "stage": self.stage, "status": self.status}
        if self.message:
            data["message"] = self.message
        if self.differences:
            data["differences"] = [d.to_json() for d in self.differences]
        data["outcome"] = self.outcome
        if self.expected_kind:
            data["expected"] = self.expected_kind
        if self.actual_kind:
            data["actual"] = self.actual_kind
        data["duration"] = round(self.duration, 6)
        return data


@dataclass(frozen=True)
class Selection:
    """Which cases and stages to run; empty means all."""

    cases: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()

    def wants(self, stage: str) -> bool:
        if self.stages and stage not in self.stages:
            return False
        if self.apis and stage.startswith("request.") and stage[8:] not in self.apis:
            return False
        return True


@dataclass
class RunSettings:
    timeout: float = 30.0
    max_restarts: int = 10
    jobs: int = 1
    validate_protocol: bool = False


def judge(case: Case, stage: str, answer: dict[str, Any], known: frozenset[str]) -> StageResult:
    """One stage's verdict: the implementation's result against the golden."""
    golden = read_golden(case, stage)
    expected_kind, actual_kind = golden.kind, next(iter(answer))
    result = StageResult(case.id, stage, "pass", outcome=case.outcome,
                         expected_kind=expected_kind, actual_kind=actual_kind)
    if actual_kind == "error":
        result.status, result.message = "error", str(answer["error"].get("message", ""))
        return result
    if actual_kind == "skipped":
        result.status, result.message = "skip", f"the implementation skipped it: {answer['skipped']}"
        return result
    if expected_kind == "misbehaved":
        result.status = "info"
        result.message = f"Pi itself misbehaves here ({golden.result['misbehaved'].get('kind')})"
        return result
    if expected_kind != actual_kind:
        result.status = "fail"
        if expected_kind == "rejected":
            result.message = ("Pi rejects this input (" + golden.result["rejected"]["message"]
                              + "), the implementation answered it")
        else:
            result.message = ("the implementation rejected this input ("
                              + str(answer["rejected"].get("message")) + "), Pi answers it")
    elif expected_kind == "output":
        result.differences = differences(golden.result["output"], answer["output"], known)
        if result.differences:
            result.status = "fail"
            result.message = f"{len(result.differences)} difference(s)"
    if result.status == "fail" and case.outcome != "required":
        result.status = "info"
    return result


class Runner:
    def __init__(self, corpus: Corpus, settings: RunSettings | None = None):
        self.corpus = corpus
        self.settings = settings or RunSettings()

    def plan(self, hello: protocol.Hello, cases: Iterable[Case],
             selection: Selection) -> list[tuple[Case, list[str], list[StageResult]]]:
        """Per case, the stages to ask for and the skips decided without asking."""
        planned = []
        for case in cases:
            ask, skipped = [], []
            missing = (set(case.features) - hello.features) if hello.features is not None else set()
            for stage in case.stages:
                if not selection.wants(stage):
                    continue
                if stage not in hello.stages:
                    skipped.append(StageResult(case.id, stage, "skip", "stage not claimed",
                                               outcome=case.outcome))
                elif missing:
                    skipped.append(StageResult(
                        case.id, stage, "skip",
                        "feature(s) not claimed: " + ", ".join(sorted(missing)),
                        outcome=case.outcome))
                else:
                    ask.append(stage)
            if ask or skipped:
                planned.append((case, ask, skipped))
        return planned

    def run(self, implementations: list[Implementation], cases: list[Case],
            selection: Selection, emit: Callable[[StageResult], None]) -> None:
        """Run ``cases`` on already started ``implementations`` (one per worker)."""
        hello = implementations[0].hello
        work: queue.Queue[tuple[int, tuple[Case, list[str], list[StageResult]]]] = queue.Queue()
        for item in enumerate(self.plan(hello, cases, selection)):
            work.put(item)
        lock = threading.Lock()

        def locked_emit(result: StageResult) -> None:
            with lock:
                emit(result)

        scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-run-"))
        try:
            workers = [
                threading.Thread(target=self._worker, args=(impl, work, locked_emit, scratch),
                                 daemon=True)
                for impl in implementations
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _worker(self, impl: Implementation, work: queue.Queue[Any],
                emit: Callable[[StageResult], None], scratch: Path) -> None:
        given_up: str | None = None
        restarts = 0
        while True:
            try:
                seq, (case, ask, skipped) = work.get_nowait()
            except queue.Empty:
                return
            for result in skipped:
                emit(result)
            if not ask:
                continue
            if given_up is not None:
                for stage in ask:
                    emit(StageResult(case.id, stage, "error", given_up, outcome=case.outcome))
                continue
            failure = self._run_case(impl, seq, case, ask, emit, scratch)
            if failure is None:
                continue
            if restarts >= self.settings.max_restarts:
                given_up = f"not run: gave up after {restarts} restarts ({failure})"
                continue
            restarts += 1
            try:
                impl.restart()
            except ConformanceError as exc:
                given_up = f"not run: the implementation could not be restarted: {exc}"

    def _run_case(self, impl: Implementation, seq: int, case: Case, ask: list[str],
                  emit: Callable[[StageResult], None], scratch: Path) -> str | None:
        """Run one case; returns a description of the failure when a restart is needed."""
        session = case.session_bytes()
        copy = scratch / f"{seq}-session.jsonl"
        copy.write_bytes(session)
        request = protocol.run_request(
            seq, case.id, case.features, str(copy), session.decode("utf-8", errors="replace"),
            ask, self.corpus.request_options(case))
        started = time.perf_counter()
        try:
            answer = impl.run(request, self.settings.timeout)
        except ImplementationError as exc:
            elapsed = time.perf_counter() - started
            for stage in ask:
                emit(StageResult(case.id, stage, "error", str(exc), outcome=case.outcome,
                                 duration=elapsed / len(ask)))
            return str(exc).splitlines()[0]
        finally:
            copy.unlink(missing_ok=True)
        elapsed = time.perf_counter() - started
        problems = (protocol.schema_errors("run-response", answer)
                    if self.settings.validate_protocol else [])
        try:
            results = protocol.check_run_answer(answer, seq, ask)
        except ImplementationError as exc:
            for stage in ask:
                emit(StageResult(case.id, stage, "error", str(exc), outcome=case.outcome,
                                 duration=elapsed / len(ask)))
            # An answer with the wrong seq means requests and answers are out of step.
            return None if "failed the run" in str(exc) else str(exc)
        known = input_strings(session)
        for stage in ask:
            if problems:
                result = StageResult(case.id, stage, "error",
                                     "protocol violation: " + "; ".join(problems[:3]),
                                     outcome=case.outcome)
            else:
                try:
                    result = judge(case, stage, results[stage], known)
                except ConformanceError as exc:
                    result = StageResult(case.id, stage, "error", str(exc), outcome=case.outcome)
            result.duration = elapsed / len(ask)
            emit(result)
        return None
