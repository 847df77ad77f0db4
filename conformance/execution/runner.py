"""Ask an implementation for each case and judge every stage against its golden.

The runner never trusts the implementation: each case gets a fresh copy of its session, every
wait is bounded, a crash or hang becomes an ``error`` result for that case (results already
obtained are kept) and the implementation is restarted, up to a cap. Stages or features the
implementation does not claim are ``skip``, never ``fail``.

It does not know where goldens come from (``goldens.GoldenSource``): the corpus's files, or
Pi asked now. Whatever the source, a stage claimed given its input is sent the golden results
of the stages that feed it, and is judged by ``judging.judge`` like any other.
"""

from __future__ import annotations

import contextlib
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance.corpus.answers import Answer, Failed, parse_answer
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.selection import Selection
from conformance.corpus.stages import inputs_of
from conformance.errors import (
    ConformanceError,
    CorpusError,
    ImplementationError,
    ProtocolViolation,
    RunFailed,
)
from conformance.execution import interrupts
from conformance.execution.goldens import CaseGoldens, GoldenSource
from conformance.execution.rechunking import ResponseCutter
from conformance.files import UnreadableFile, read_regular
from conformance.implementations import process, protocol
from conformance.implementations.transports import (
    Crashed,
    Implementation,
    RequestTooLarge,
    Timeout,
    Unsolicited,
)
from conformance.judging.judge import failure, judge
from conformance.judging.results import ErrorKind, StageResult

# Where Pi itself misbehaves nothing is judged, so there is nothing to wait for: Pi 1.6.0 on a
# parent cycle needs 4 to 6 s and gigabytes to fail, and whether it fails before a cap or not
# must not change the verdict (it is always info). An implementation that does answer such a
# small case answers in milliseconds.
MISBEHAVING_TIMEOUT = 0.5


def error_kind(exc: BaseException) -> ErrorKind:
    if isinstance(exc, RequestTooLarge):  # the runner's own limit: nothing was asked
        return "harness"
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
class Limits:
    """How long an implementation may take, how often it may be restarted, how many
    processes answer at once, and whether every answer is checked against the schemas."""

    timeout: float = 30.0
    max_restarts: int = 10
    jobs: int = 1
    validate_protocol: bool = False


@dataclass(frozen=True)
class Planned:
    """One case of a run: the stages to ask for, and the skips decided without asking."""

    case: Case
    ask: tuple[str, ...]
    skipped: tuple[StageResult, ...]

    @property
    def results(self) -> int:
        return len(self.ask) + len(self.skipped)


# Sees a case's raw stage answers, as the implementation gave them (the matrix keeps Pi's).
KeepAnswers = Callable[[Case, dict[str, dict[str, Any]]], None]
# A case's verdicts, worked out on the judging thread from what its worker obtained.
Verdicts = Callable[[], list[StageResult]]
_Judged = tuple[Planned, Verdicts | None]


def runner_errors(case: Case, ask: Iterable[str], exc: Exception) -> list[StageResult]:
    """The results of a case whose judging hit a bug of ours: that case's stages only."""
    return [StageResult(case.id, stage, "error", f"runner error: {exc!r}",
                        outcome=case.outcome, error_kind="harness") for stage in ask]


def guarded(case: Case, ask: Iterable[str], verdicts: Verdicts) -> list[StageResult]:
    """``verdicts()``, where a bug of ours costs this case's stages, never the run."""
    try:
        return verdicts()
    except Exception as exc:
        return runner_errors(case, ask, exc)


def withheld(case: Case, stage: str) -> list[str]:
    """The inputs of ``stage`` that ``case`` declares withheld (``withheld_inputs``: a golden
    too large to commit, e.g. the entries of a generated 6 MB session)."""
    return [source for source in inputs_of(stage) if source in case.withheld_inputs]


def plan(hello: protocol.Hello, cases: Iterable[Case], selection: Selection,
         unavailable: Callable[[str], str | None] = lambda stage: None) -> list[Planned]:
    """Per case, the stages to ask for and the skips decided without asking;
    ``unavailable(stage)``: why the golden source has no golden for a stage (an older Pi
    release judged against), or None."""
    planned = []
    for case in cases:
        ask: list[str] = []
        skipped: list[StageResult] = []
        missing = (set(case.features) - hello.features) if hello.features is not None \
            else set()

        for stage in case.stages:
            if not selection.wants(stage):
                continue
            why = ""
            if stage not in hello.stages:
                why = "stage not claimed"
            elif (lacking := unavailable(stage)) is not None:
                why = lacking
            elif missing:
                why = "feature(s) not claimed: " + ", ".join(sorted(missing))
            elif stage in hello.inputs and withheld(case, stage):
                why = ("claimed given its input, and this case withholds the golden of "
                       f"{', '.join(withheld(case, stage))} (too large to commit); it is "
                       "judged for implementations that read the session")
            if why:
                skipped.append(StageResult(case.id, stage, "skip", why, outcome=case.outcome))
            else:
                ask.append(stage)
        if ask or skipped:
            planned.append(Planned(case, tuple(ask), tuple(skipped)))
    return planned


@dataclass(frozen=True)
class _Asked:
    """One case asked: its verdicts; ``failed``, what went wrong when its process must be
    restarted; and, for a case answered in step (``seq``), ``blame``: its stages as protocol
    errors, should output found later turn out to be its own."""

    verdicts: Verdicts
    failed: str | None = None
    cause: ImplementationError | None = None
    seq: int | None = None
    blame: Callable[[str], Verdicts] | None = None

    def blame_for(self, later: _Asked) -> str | None:
        """What to say of this case when the ``later`` case failed on output that was this
        case's: written after its answer and read before the next request went out, or an
        answer naming its request; None when the later failure is the later case's own."""
        cause, seq = later.cause, self.seq
        if isinstance(cause, Unsolicited):
            if cause.seq == seq:
                return f"it answered this case (seq {seq}) twice: {cause}"
            return f"after its answer to this case (seq {seq}), {cause}"
        if isinstance(cause, protocol.OutOfStep) and cause.seq == seq:
            return (f"it answered this case (seq {seq}) twice, the second time in place of the "
                    f"next request's answer ({cause})")
        return None

    def blamed(self, message: str) -> Verdicts:
        return self.blame(message) if self.blame is not None else self.verdicts


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
    """One run's asking and judging: ``prepare`` what ``plan`` made of the cases (every
    golden they need, checked once), then ``run`` them on started implementations (one per
    worker) or ``judge_case`` one at a time (fuzzing, shrinking)."""

    def __init__(self, corpus: Corpus, goldens: GoldenSource, limits: Limits | None = None,
                 rechunking: ResponseCutter | None = None):
        self.corpus = corpus  # the request options (its models) for every case
        self.goldens = goldens
        self.limits = limits or Limits()
        self.rechunking = rechunking  # None: every response goes in its own chunks
        self.restarts = 0
        self.abandoned: str | None = None
        self._budget = _RestartBudget(self.limits.max_restarts)
        self._scratch: Path | None = None
        self._seq = 0
        self._seq_lock = threading.Lock()
        # Per worker (implementation id), the case answered last, held until the next request
        # shows nothing more followed its answer (``_worker``).
        self._held: dict[int, tuple[Planned, _Asked]] = {}
        self._held_lock = threading.Lock()
        # Implementations (by id) whose last case failed: restarted before their next case.
        self.pending_restarts: dict[int, tuple[str, bool]] = {}
        self.keep_answers: KeepAnswers | None = None

    # -- the goldens a plan needs ---------------------------------------------------------

    def needed(self, planned: Planned, fed: frozenset[str]) -> list[str]:
        """The goldens a case needs: its asked stages', and the inputs of those fed."""
        return list(dict.fromkeys([*planned.ask, *(source for stage in planned.ask
                                                   if stage in fed
                                                   for source in inputs_of(stage))]))

    def prepare(self, planned: Sequence[Planned], fed: frozenset[str]) -> list[Planned]:
        """``planned``, every golden it needs checked before the run: a missing or broken one
        (an asked stage's, or an input's) is a CorpusError naming it, never a skip. An input a
        case withholds (``withheld_inputs``) was skipped by ``plan`` already."""
        for item in planned:
            for stage in item.ask:
                if stage not in fed:
                    continue
                absent = [s for s in inputs_of(stage) if not self.goldens.has(item.case, s)]
                if absent:
                    raise CorpusError(
                        f"{item.case.id}: {stage} is claimed given its input, but the case has "
                        f"no golden for {', '.join(absent)} (add the stage to the case, or "
                        "declare it in withheld_inputs)", path=item.case.metadata_path)
        self.goldens.check((item.case, stage) for item in planned
                           for stage in self.needed(item, fed))
        return list(planned)

    # -- running --------------------------------------------------------------------------

    def run(self, implementations: list[Implementation], planned: Sequence[Planned],
            emit: Callable[[StageResult], None]) -> None:
        """Run ``planned`` (already ``prepare``d) on started ``implementations``, one per
        worker. Every planned stage gets exactly one result, whatever they do."""
        # Cases where Pi itself misbehaves get info whatever the answer: when the
        # implementation runs them in processes of their own, they go to a lane of their own
        # beside the workers instead of holding one up (each costs a process start and a cap).
        lane = implementations[0] if implementations[0].isolates_misbehaving else None
        work: queue.Queue[Planned] = queue.Queue()
        isolated: queue.Queue[Planned] = queue.Queue()
        for item in planned:
            misbehaving = item.case.outcome == "reference-misbehaves"
            (isolated if lane is not None and item.ask and misbehaving else work).put(item)
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
        used_before = self._budget.used
        try:
            judge_thread.start()
            workers = [threading.Thread(target=self._worker, args=(impl, work, judging, stop),
                                        daemon=True) for impl in implementations]
            if lane is not None and not isolated.empty():
                workers.append(threading.Thread(
                    target=self._isolated_worker, args=(lane, isolated, locked_emit, stop),
                    daemon=True))
            for worker in workers:
                worker.start()
            try:
                for worker in workers:
                    worker.join()
            except BaseException:  # Ctrl-C, SIGTERM: keep what was emitted, emit nothing more
                with interrupts.held():  # a second Ctrl-C must not leave workers emitting
                    with lock:  # cases held for their next request are answered: keep them
                        for item, asked in self._take_held():
                            for result in (*item.skipped,
                                           *guarded(item.case, item.ask, asked.verdicts)):
                                emit(result)
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
                    item = left.get_nowait()
                    for result in item.skipped:
                        locked_emit(result)
                    for stage in item.ask:
                        locked_emit(StageResult(item.case.id, stage, "error", reason,
                                                outcome=item.case.outcome,
                                                error_kind="not-run"))
        finally:
            self.restarts += self._budget.used - used_before

    def judge_case(self, impl: Implementation, item: Planned) -> list[StageResult]:
        """One planned case, asked and judged on this thread (the skips first); a failed
        process is restarted before the next case, as in ``run``."""
        results = list(item.skipped)
        if not item.ask:
            return results
        pending = self.pending_restarts.pop(id(impl), None)
        if pending is not None and not self._restart(impl, *pending):
            reason = f"not run: {self.abandoned}"
            return results + [StageResult(item.case.id, stage, "error", reason,
                                          outcome=item.case.outcome, error_kind="not-run")
                              for stage in item.ask]
        asked = self._case_results(impl, item)
        if asked.failed is not None and impl.persistent:
            self.pending_restarts[id(impl)] = (asked.failed,
                                               item.case.outcome == "reference-misbehaves")
        return results + guarded(item.case, item.ask, asked.verdicts)

    def close(self) -> None:
        """Remove the scratch directory the sessions' copies were written in."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    # -- the threads ----------------------------------------------------------------------

    def _worker(self, impl: Implementation, work: queue.Queue[Planned],
                judging: queue.Queue[_Judged | None], stop: threading.Event) -> None:
        """Ask cases one after another on ``impl``. A case that passed on a persistent process
        is held until the next request shows whether more output followed its answer (a
        second answer to it, a log line): then that case is blamed, and the next one, which
        did nothing wrong, is asked again at once on a fresh process, where nothing before it
        can be blamed (so one misbehaving case never costs more than one other)."""
        def held() -> _Asked | None:
            with self._held_lock:
                entry = self._held.get(id(impl))
            return entry[1] if entry is not None else None

        def release(blame: str | None = None) -> None:
            with self._held_lock:  # an interruption may have taken it (``run``)
                entry = self._held.pop(id(impl), None)
            if entry is not None:
                kept, asked = entry
                judging.put((kept, asked.blamed(blame) if blame else asked.verdicts))

        try:
            while not stop.is_set():
                try:
                    item = work.get_nowait()
                except queue.Empty:
                    return
                if not item.ask:
                    judging.put((item, None))
                    continue
                # A failed process is restarted when it has a case to run, not after the last
                # one (and still when the next run of this runner, as smoke does, brings one).
                pending = self.pending_restarts.pop(id(impl), None)
                if pending is not None and not self._restart(impl, *pending):
                    work.put(item)  # reported as not run by ``run``
                    return
                asked = self._case_results(impl, item)
                last = held()
                blame = last.blame_for(asked) if last is not None else None
                release(blame)
                if blame is not None:  # not this case's fault: asked again, on a fresh process
                    if not self._restart(impl, blame.splitlines()[0], False):
                        work.put(item)  # reported as not run by ``run``
                        return
                    asked = self._case_results(impl, item)
                if asked.failed is not None and impl.persistent:
                    judging.put((item, asked.verdicts))
                    self.pending_restarts[id(impl)] = (
                        asked.failed, item.case.outcome == "reference-misbehaves")
                elif impl.persistent and asked.seq is not None:
                    with self._held_lock:
                        self._held[id(impl)] = (item, asked)
                else:
                    judging.put((item, asked.verdicts))
        finally:
            last = held()
            if last is not None and not stop.is_set():
                try:
                    impl.check_quiet()  # the last answer: no next request will show more
                except ImplementationError as exc:
                    release(last.blame_for(_Asked(lambda: [], cause=exc)))
                    self.pending_restarts[id(impl)] = (str(exc).splitlines()[0], False)
            if not stop.is_set():
                release()

    def _take_held(self) -> list[tuple[Planned, _Asked]]:
        with self._held_lock:
            taken = list(self._held.values())
            self._held.clear()
        return taken

    def _isolated_worker(self, impl: Implementation, work: queue.Queue[Planned],
                         emit: Callable[[StageResult], None], stop: threading.Event) -> None:
        """The lane of cases where Pi misbehaves, one isolated process at a time; a failure
        there leaves ``impl`` itself untouched, so nothing is ever restarted."""
        while not stop.is_set():
            try:
                item = work.get_nowait()
            except queue.Empty:
                return
            for result in item.skipped:
                emit(result)
            asked = self._case_results(impl, item, another_follows=not work.empty())
            for result in guarded(item.case, item.ask, asked.verdicts):  # info, whatever
                emit(result)

    @staticmethod
    def _judge_worker(judging: queue.Queue[_Judged | None],
                      emit: Callable[[StageResult], None],
                      failures: list[BaseException], stop: threading.Event) -> None:
        """Judge and emit what the workers obtained, in the order they obtained it. Once
        emitting has failed, the workers stop asking, and it drains the queue so that none
        waits forever."""
        while (judged := judging.get()) is not None:
            item, verdicts = judged
            if failures:
                continue
            try:
                for result in item.skipped:
                    emit(result)
                if verdicts is not None:
                    for result in guarded(item.case, item.ask, verdicts):
                        emit(result)
            except BaseException as exc:
                failures.append(exc)
                stop.set()

    # -- one case -------------------------------------------------------------------------

    def _restart(self, impl: Implementation, failed: str, expected: bool) -> bool:
        """Restart ``impl`` after ``failed``; False when the run must give up on it."""
        if not self._budget.take(expected=expected):
            self.abandoned = (f"gave up after {self._budget.limit} restart(s); the last "
                              f"failure: {failed}")
            return False
        try:
            impl.restart()
        except ConformanceError as exc:
            self.abandoned = f"the implementation could not be restarted: {exc}"
            return False
        return True

    def _case_results(self, impl: Implementation, item: Planned, *,
                      another_follows: bool = True) -> _Asked:
        """``_run_case``, where a bug of ours costs this case's stages, never the run."""
        try:
            return self._run_case(impl, item, another_follows=another_follows)
        except Exception as exc:
            errors = runner_errors(item.case, item.ask, exc)
            return _Asked(lambda: errors)

    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq += 1
            return self._seq

    def _scratch_directory(self) -> Path:
        with self._seq_lock:
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-run-"))
            return self._scratch

    def _run_case(self, impl: Implementation, item: Planned, *,
                  another_follows: bool = True) -> _Asked:
        """Ask one case: its verdicts (judged later, on the judging thread), a description
        of the failure when a restart is needed, and how to blame it for output found
        later."""
        case, ask = item.case, list(item.ask)
        seq = self._next_seq()
        try:  # read once: Pi and the implementation see one snapshot
            session = read_session(case)
        except UnreadableFile as exc:  # a user's file: this case's error, not the run's end
            message = str(exc)
            return _Asked(lambda: [StageResult(case.id, stage, "error", message,
                                               outcome=case.outcome, error_kind="harness")
                                   for stage in ask])
        options = self.corpus.request_options(case)
        fed = impl.hello.inputs
        goldens = self.goldens.open(case, self.needed(item, fed), session, options)
        inputs = {source: goldens.golden(source).result
                  for stage in ask if stage in fed for source in inputs_of(stage)}
        scratch = self._scratch_directory()
        copy = scratch / f"{seq}-session.jsonl"
        copy.write_bytes(session)
        events = None
        if "events" in ask and case.events_path.is_file():
            stream = case.events_path.read_bytes()
            events_copy = scratch / f"{seq}-events.jsonl"
            events_copy.write_bytes(stream)
            events = (str(events_copy), stream.decode("utf-8", errors="replace"))
        responses = {api: (response if self.rechunking is None
                           else self.rechunking.split(case.id, api, response)).serializable()
                     for api, response in case.responses_for(ask).items()}
        request = protocol.run_request(
            seq, case.id, case.features, str(copy), session.decode("utf-8", errors="replace"),
            ask, options, events, inputs, responses)
        if self.limits.validate_protocol:
            problems = protocol.schema_errors("run-request", request)
            if problems:  # our own bug: say so rather than blame the implementation
                raise ConformanceError("the runner built an invalid run request: "
                                       + "; ".join(problems[:3]))
        started = time.perf_counter()

        # Where Pi itself hangs or crashes, nothing is required: failing the same way is
        # reported as info, and waiting the full timeout for it would only slow the run.
        misbehaving = case.outcome == "reference-misbehaves"
        timeout = min(self.limits.timeout, MISBEHAVING_TIMEOUT) if misbehaving \
            else self.limits.timeout

        def errors(message: str, kind: ErrorKind) -> Verdicts:
            share = (time.perf_counter() - started) / len(ask)
            failed: dict[str, Answer] = {stage: Failed(message) for stage in ask}
            return self._verdicts(case, ask, goldens, failed, share, impl, kind)

        def blame(message: str) -> Verdicts:
            return errors(message, "protocol")

        isolated = misbehaving and impl.isolates_misbehaving
        try:
            answer = (impl.run_isolated(request, timeout, another_follows=another_follows)
                      if isolated else impl.run(request, timeout))
        except ImplementationError as exc:
            # An isolated process is gone already, and a request over the runner's limit was
            # never sent: either way the implementation itself is untouched.
            untouched = isolated or isinstance(exc, RequestTooLarge)
            return _Asked(errors(str(exc), error_kind(exc)),
                          None if untouched else str(exc).splitlines()[0], cause=exc)
        finally:
            copy.unlink(missing_ok=True)
            if events is not None:
                Path(events[0]).unlink(missing_ok=True)
        elapsed = time.perf_counter() - started
        if self.limits.validate_protocol:
            problems = protocol.run_answer_problems(answer, ask)
            if problems:
                return _Asked(errors("protocol violation: " + "; ".join(problems[:3]),
                                     "protocol"), seq=seq, blame=blame)
        try:
            results = protocol.check_run_answer(answer, seq, ask)
        except ProtocolViolation as exc:
            # Answers no longer pair with requests: this process cannot be trusted any more.
            return _Asked(errors(str(exc), "protocol"), str(exc), cause=exc)
        except RunFailed as exc:
            return _Asked(errors(str(exc), "implementation"), seq=seq, blame=blame)
        if self.keep_answers is not None:
            self.keep_answers(case, results)
        answers = {stage: parse_answer(results[stage]) for stage in ask}
        return _Asked(self._verdicts(case, ask, goldens, answers, elapsed / len(ask), impl),
                      seq=seq, blame=blame)

    @staticmethod
    def _verdicts(case: Case, ask: list[str], goldens: CaseGoldens, answers: dict[str, Answer],
                  share: float, impl: Implementation,
                  failure_kind: ErrorKind | None = None) -> Verdicts:
        """The verdicts of ``answers``, to be worked out on the judging thread (where the
        goldens, which may still be coming from Pi, are waited for)."""
        fields = impl.hello.fields  # as claimed now: a restart may bring another hello

        def verdicts() -> list[StageResult]:
            judged = []
            for stage in ask:
                try:
                    golden = goldens.golden(stage)
                    answer = answers[stage]
                    if failure_kind is not None and isinstance(answer, Failed):
                        result = failure(case, stage, golden, answer.message, failure_kind)
                    else:
                        result = judge(case, stage, answer, golden, fields.get(stage, ()))
                except ConformanceError as exc:
                    result = StageResult(case.id, stage, "error", str(exc),
                                         outcome=case.outcome, error_kind="harness")
                except Exception as exc:  # a bug of ours costs this stage, not the others
                    result = StageResult(case.id, stage, "error", f"runner error: {exc!r}",
                                         outcome=case.outcome, error_kind="harness")
                judged.append(replace(result, duration=share))
            return judged

        return verdicts


def read_session(case: Case) -> bytes:
    """A case's session bytes; a user's file (``input_file``) only if it is a regular file
    within the runner's request limit (a FIFO would block, a huge file could never be sent)."""
    if case.input_file is None:
        return case.session_bytes()
    return read_regular(case.input_file, process.MAX_REQUEST, "MAX_REQUEST")


__all__ = ["MISBEHAVING_TIMEOUT", "KeepAnswers", "Limits", "Planned", "Runner", "error_kind",
           "guarded", "plan", "runner_errors", "withheld"]
