"""Run cases through an implementation and judge every stage against its golden.

The runner never trusts the implementation: each case gets a fresh copy of its session, every
wait is bounded, a crash or hang becomes an ``error`` result for that case (results already
obtained are kept) and the implementation is restarted, up to a cap. Stages or features the
implementation does not claim are ``skip``, never ``fail``.
"""

from __future__ import annotations

import contextlib
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance.corpus.answers import parse_answer
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.goldens import Goldens, read_golden
from conformance.corpus.stages import api_of, inputs_of
from conformance.errors import (
    ConformanceError,
    ImplementationError,
    ProtocolViolation,
    RunFailed,
)
from conformance.implementations import protocol
from conformance.implementations.transports import Crashed, Implementation, Timeout
from conformance.judging.judge import judge
from conformance.judging.verdicts import (
    ErrorKind,
    StageResult,
    Status,
)


def error_kind(exc: BaseException) -> ErrorKind:
    if isinstance(exc, Timeout):
        return "timeout"
    if isinstance(exc, Crashed):
        return "crash"
    if isinstance(exc, ProtocolViolation):
        return "protocol"
    if isinstance(exc, (RunFailed, ImplementationError)):
        return "implementation"
    return "harness"


@dataclass(frozen=True)
class Selection:
    """Which cases and stages to run; empty means all.

    ``stages`` and ``apis`` add up: ``--stage context --api openai-responses`` runs the
    context stage, request.openai-responses and wire.openai-responses; ``--api`` alone runs
    only request and wire stages.
    """

    cases: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()

    def wants(self, stage: str) -> bool:
        if not self.stages and not self.apis:
            return True
        return stage in self.stages or api_of(stage) in self.apis


# Where Pi itself misbehaves nothing is judged, so there is nothing to wait for: Pi 1.6.0 on a
# parent cycle needs 4 to 6 s and gigabytes to fail, and whether it fails before a cap or not
# must not change the verdict (it is always info). An implementation that does answer such a
# small case answers in milliseconds.
MISBEHAVING_TIMEOUT = 0.5


@dataclass
class RunSettings:
    timeout: float = 30.0
    max_restarts: int = 10
    jobs: int = 1
    validate_protocol: bool = False


Planned = tuple[Case, list[str], list[StageResult]]
# A case's verdicts, worked out on the judging thread from what its worker obtained.
Verdicts = Callable[[], list[StageResult]]
# What a worker hands the judging thread: a case, its asked stages, its skipped results and
# the verdicts of the asked ones (None: nothing was asked).
_Judged = tuple[Case, list[str], list[StageResult], Verdicts | None]
def runner_errors(case: Case, ask: list[str], exc: Exception) -> list[StageResult]:
    """The results of a case whose judging hit a bug of ours: that case's stages only."""
    return [StageResult(case.id, stage, "error", f"runner error: {exc!r}",
                        outcome=case.outcome, error_kind="harness") for stage in ask]


def guarded(case: Case, ask: list[str], verdicts: Verdicts) -> list[StageResult]:
    """``verdicts()``, where a bug of ours costs this case's stages, never the run."""
    try:
        return verdicts()
    except Exception as exc:
        return runner_errors(case, ask, exc)


def missing_inputs(case: Case, stage: str) -> list[str]:
    """The stages feeding ``stage`` that this case has no golden for (a case may leave out
    a stage whose output protocol v1 cannot carry, e.g. lone surrogates)."""
    return [source for source in inputs_of(stage) if source not in case.stages]


class _RestartBudget:
    """The restart cap, shared by all workers of a run.

    A restart after a case where Pi itself misbehaves is expected, so it is counted in
    ``used`` but does not spend the cap.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self.used = 0
        self.spent = 0
        self.lock = threading.Lock()

    def take(self, *, expected: bool = False) -> bool:
        with self.lock:
            if not expected:
                if self.spent >= self.limit:
                    return False
                self.spent += 1
            self.used += 1
            return True


class Runner:
    def __init__(self, corpus: Corpus, settings: RunSettings | None = None):
        self.corpus = corpus
        self.settings = settings or RunSettings()
        self.goldens = Goldens()
        self.restarts = 0
        self.abandoned: str | None = None
        # Implementations (by id) whose last case failed: restarted before their next case.
        self.pending_restarts: dict[int, tuple[str, bool]] = {}

    def plan(self, hello: protocol.Hello, cases: Iterable[Case],
             selection: Selection) -> list[Planned]:
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
                elif stage in hello.inputs and missing_inputs(case, stage):
                    skipped.append(StageResult(
                        case.id, stage, "skip",
                        "claimed given its input, but this case has no golden for "
                        + ", ".join(missing_inputs(case, stage)), outcome=case.outcome))
                else:
                    ask.append(stage)
            if ask or skipped:
                planned.append((case, ask, skipped))
        return planned

    def preflight(self, planned: list[Planned], fed: frozenset[str] = frozenset()) -> None:
        """Read every golden the plan needs, the inputs of the ``fed`` stages included; a
        missing or broken one is a CorpusError."""
        wanted = {(case.id, stage): (case, stage) for case, ask, _ in planned for stage in
                  [*ask, *(s for asked in ask if asked in fed for s in inputs_of(asked))]}
        self.goldens.check(wanted.values(), self.corpus.root)

    def inputs(self, case: Case, ask: list[str], fed: frozenset[str]) -> dict[str, Any]:
        """The run request's ``inputs``: the golden result of every stage that feeds an asked
        stage claimed given its input (read by preflight)."""
        return {source: self.goldens[(case.id, source)].result
                for stage in ask if stage in fed for source in inputs_of(stage)}

    def run(self, implementations: list[Implementation], cases: list[Case],
            selection: Selection, emit: Callable[[StageResult], None],
            planned: list[Planned] | None = None) -> None:
        """Run ``cases`` on already started ``implementations`` (one per worker).

        Every planned stage gets exactly one result, whatever the implementations do.
        """
        if planned is None:
            planned = self.plan(implementations[0].hello, cases, selection)
        self.preflight(planned, implementations[0].hello.inputs)
        # Cases where Pi itself misbehaves get info whatever the answer: when the
        # implementation runs them in processes of their own, they go to a lane of their own
        # beside the workers instead of holding one up (each costs a process start and a cap).
        lane = implementations[0] if implementations[0].isolates_misbehaving else None
        work: queue.Queue[tuple[int, Planned]] = queue.Queue()
        isolated: queue.Queue[tuple[int, Planned]] = queue.Queue()
        for seq, item in enumerate(planned):
            case, ask, _ = item
            misbehaving = case.outcome == "reference-misbehaves"
            (isolated if lane is not None and ask and misbehaving else work).put((seq, item))
        lock = threading.Lock()
        stop = threading.Event()

        def locked_emit(result: StageResult) -> None:
            with lock:
                if not stop.is_set():  # after an interruption, the report is being closed
                    emit(result)

        # Workers ask and one thread judges, so an implementation answers the next case while
        # the last answer is judged. Bounded: a worker waits rather than hold many answers.
        judging: queue.Queue[_Judged | None] = queue.Queue(maxsize=2 * len(implementations))
        judge_failures: list[BaseException] = []
        judge_thread = threading.Thread(target=self._judge_worker,
                                        args=(judging, locked_emit, judge_failures, stop),
                                        daemon=True)
        budget = _RestartBudget(self.settings.max_restarts)
        scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-run-"))
        try:
            judge_thread.start()
            workers = [
                threading.Thread(target=self._worker,
                                 args=(impl, work, judging, scratch, budget, stop),
                                 daemon=True)
                for impl in implementations
            ]
            if lane is not None and not isolated.empty():
                workers.append(threading.Thread(
                    target=self._isolated_worker, args=(lane, isolated, locked_emit, scratch, stop),
                    daemon=True))
            for worker in workers:
                worker.start()
            try:
                for worker in workers:
                    worker.join()
            except BaseException:  # Ctrl-C, SIGTERM: keep what was emitted, emit nothing more
                with lock:
                    stop.set()
                for impl in implementations:  # a worker waiting on an answer wakes up now
                    impl.abort()
                for worker in workers:
                    worker.join(timeout=5)
                with contextlib.suppress(queue.Full):  # the judge, draining, ends too
                    judging.put(None, timeout=5)
                judge_thread.join(timeout=5)
                raise
            judging.put(None)
            judge_thread.join()
            if judge_failures:  # emitting failed (the report could not be written)
                raise judge_failures[0]
            # Whatever no worker could run (all gave up) is reported, never dropped.
            reason = f"not run: {self.abandoned or 'no worker left'}"
            for left in (work, isolated):
                while not left.empty():
                    _, (case, ask, skipped) = left.get_nowait()
                    for result in skipped:
                        locked_emit(result)
                    for stage in ask:
                        locked_emit(StageResult(case.id, stage, "error", reason,
                                                outcome=case.outcome, error_kind="not-run"))
        finally:
            self.restarts += budget.used
            shutil.rmtree(scratch, ignore_errors=True)

    def _worker(self, impl: Implementation, work: queue.Queue[tuple[int, Planned]],
                judging: queue.Queue[_Judged | None], scratch: Path,
                budget: _RestartBudget, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                seq, (case, ask, skipped) = work.get_nowait()
            except queue.Empty:
                return
            if not ask:
                judging.put((case, ask, skipped, None))
                continue
            # A failed process is restarted when it has a case to run, not after the last one
            # (and still when the next run of this runner, as smoke does, brings one).
            pending = self.pending_restarts.pop(id(impl), None)
            if pending is not None and not self._restart(impl, budget, *pending):
                work.put((seq, (case, ask, skipped)))  # reported as not run by ``run``
                return
            verdicts, failure = self._case_results(impl, seq, case, ask, scratch)
            judging.put((case, ask, skipped, verdicts))
            if failure is not None and impl.persistent:
                self.pending_restarts[id(impl)] = (failure,
                                                   case.outcome == "reference-misbehaves")

    def _isolated_worker(self, impl: Implementation, work: queue.Queue[tuple[int, Planned]],
                         emit: Callable[[StageResult], None], scratch: Path,
                         stop: threading.Event) -> None:
        """The lane of cases where Pi misbehaves, one isolated process at a time; a failure
        there leaves ``impl`` itself untouched, so nothing is ever restarted."""
        while not stop.is_set():
            try:
                seq, (case, ask, skipped) = work.get_nowait()
            except queue.Empty:
                return
            for result in skipped:
                emit(result)
            verdicts, _ = self._case_results(impl, seq, case, ask, scratch,
                                             another_follows=not work.empty())
            for result in guarded(case, ask, verdicts):  # info whatever the answer: cheap
                emit(result)

    @staticmethod
    def _judge_worker(judging: queue.Queue[_Judged | None],
                      emit: Callable[[StageResult], None],
                      failures: list[BaseException], stop: threading.Event) -> None:
        """Judge and emit what the workers obtained, in the order they obtained it. Once
        emitting has failed, the workers stop asking, and it drains the queue so that none
        waits forever."""
        while (item := judging.get()) is not None:
            case, ask, skipped, verdicts = item
            if failures:
                continue
            try:
                for result in skipped:
                    emit(result)
                if verdicts is not None:
                    for result in guarded(case, ask, verdicts):
                        emit(result)
            except BaseException as exc:
                failures.append(exc)
                stop.set()

    def _case_results(self, impl: Implementation, seq: int, case: Case, ask: list[str],
                      scratch: Path, *, another_follows: bool = True
                      ) -> tuple[Verdicts, str | None]:
        """``_run_case``, where a bug of ours costs this case's stages, never the run."""
        try:
            return self._run_case(impl, seq, case, ask, scratch,
                                  another_follows=another_follows)
        except Exception as exc:
            errors = runner_errors(case, ask, exc)
            return lambda: errors, None

    def _restart(self, impl: Implementation, budget: _RestartBudget, failure: str,
                 expected: bool) -> bool:
        """Restart ``impl`` after ``failure``; False when the run must give up on it."""
        if not budget.take(expected=expected):
            self.abandoned = (f"gave up after {budget.limit} restart(s); the last "
                              f"failure: {failure}")
            return False
        try:
            impl.restart()
        except ConformanceError as exc:
            self.abandoned = f"the implementation could not be restarted: {exc}"
            return False
        return True

    def _run_case(self, impl: Implementation, seq: int, case: Case, ask: list[str],
                  scratch: Path, *, another_follows: bool = True
                  ) -> tuple[Verdicts, str | None]:
        """Ask one case; its verdicts (judged later, on the judging thread) and a
        description of the failure when a restart is needed."""
        session = case.session_bytes()
        copy = scratch / f"{seq}-session.jsonl"
        copy.write_bytes(session)
        events = None
        if "events" in ask and case.events_path.is_file():
            stream = case.events_path.read_bytes()
            events_copy = scratch / f"{seq}-events.jsonl"
            events_copy.write_bytes(stream)
            events = (str(events_copy), stream.decode("utf-8", errors="replace"))
        request = protocol.run_request(
            seq, case.id, case.features, str(copy), session.decode("utf-8", errors="replace"),
            ask, self.corpus.request_options(case), events,
            self.inputs(case, ask, impl.hello.inputs))
        if self.settings.validate_protocol:
            problems = protocol.schema_errors("run-request", request)
            if problems:  # our own bug: say so rather than blame the implementation
                raise ConformanceError("the runner built an invalid run request: "
                                       + "; ".join(problems[:3]))
        started = time.perf_counter()

        # Where Pi itself hangs or crashes, nothing is required: failing the same way is
        # reported as info, and waiting the full timeout for it would only slow the run.
        misbehaving = case.outcome == "reference-misbehaves"
        timeout = min(self.settings.timeout, MISBEHAVING_TIMEOUT) if misbehaving \
            else self.settings.timeout

        def errors(message: str, kind: ErrorKind) -> Verdicts:
            share = (time.perf_counter() - started) / len(ask)
            status: Status = "info" if misbehaving else "error"
            results = [StageResult(case.id, stage, status, message, outcome=case.outcome,
                                   duration=share, error_kind=kind) for stage in ask]
            return lambda: results

        isolated = misbehaving and impl.isolates_misbehaving
        try:
            answer = (impl.run_isolated(request, timeout, another_follows=another_follows)
                      if isolated else impl.run(request, timeout))
        except ImplementationError as exc:
            # An isolated process is gone already; the implementation itself is untouched.
            return errors(str(exc), error_kind(exc)), None if isolated else \
                str(exc).splitlines()[0]
        finally:
            copy.unlink(missing_ok=True)
            if events is not None:
                Path(events[0]).unlink(missing_ok=True)
        elapsed = time.perf_counter() - started
        if self.settings.validate_protocol:
            problems = protocol.run_answer_problems(answer, ask)
            if problems:
                return errors("protocol violation: " + "; ".join(problems[:3]), "protocol"), None
        try:
            results = protocol.check_run_answer(answer, seq, ask)
        except ProtocolViolation as exc:
            # Answers no longer pair with requests: this process cannot be trusted any more.
            return errors(str(exc), "protocol"), str(exc)
        except RunFailed as exc:
            return errors(str(exc), "implementation"), None
        fields = impl.hello.fields  # as claimed now: a restart may bring another hello

        def verdicts() -> list[StageResult]:
            judged = []
            for stage in ask:
                try:
                    golden = self.goldens.get((case.id, stage)) or read_golden(case, stage)
                    result = judge(case, stage, parse_answer(results[stage]), golden,
                                   fields.get(stage, ()))
                except ConformanceError as exc:
                    result = StageResult(case.id, stage, "error", str(exc),
                                         outcome=case.outcome, error_kind="harness")
                except Exception as exc:  # a bug of ours costs this stage, not the others
                    result = StageResult(case.id, stage, "error", f"runner error: {exc!r}",
                                         outcome=case.outcome, error_kind="harness")
                judged.append(replace(result, duration=elapsed / len(ask)))
            return judged

        return verdicts, None
