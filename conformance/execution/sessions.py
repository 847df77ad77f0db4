"""Judge one session at a time, as a run judges a case: the fuzzer's generated sessions, a
shrinker's candidates, a draft's reproducer, an anonymized promotion.

A ``SessionJudge`` keeps an implementation and the real Pi (``ReferenceGoldens``) running and
hands each session to the runner's own path (``Runner.judge_case``): the same request, the
same inputs for stages claimed given their input, the same golden (Pi's answer, volatile paths
found by varied runs when an answer differs), the same ``judge``. What a run would report for
the session as a case is exactly what ``judge`` returns here.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.corpus.cases import Case, Corpus
from conformance.corpus.selection import Selection
from conformance.errors import ConformanceError
from conformance.execution.goldens import CaseGoldens, GoldenSource
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.execution.runner import Limits, Runner, plan
from conformance.implementations import protocol
from conformance.implementations.reference import ram_directory
from conformance.implementations.transports import Implementation
from conformance.judging.results import StageResult


class SessionJudge:
    """An implementation against Pi on sessions given as bytes.

    ``stages``: the stages to judge (default: every stage both answer from a session, as
    ``both_stages`` chooses). Enter it to start both sides (side by side: each handshake can
    take a second); leave it to stop them.
    """

    def __init__(self, implementation: Implementation, reference: ReferenceGoldens, *,
                 stages: Sequence[str] = (), every_api: bool = False,
                 limits: Limits | None = None,
                 case_id: str = "session.judged", features: tuple[str, ...] = (),
                 corpus: Corpus | None = None, own: bool = True):
        """``own``: the judge starts and stops both sides (False: they are started already,
        and whoever started them stops them)."""
        self.implementation = implementation
        self.reference = reference
        self.wanted = tuple(stages)
        self.every_api = every_api
        self.stages: list[str] = list(stages)
        self.case_id = case_id
        self.own = own
        self.features = features
        self.runner = Runner(corpus or Corpus(), _Remembering(reference), limits)
        self.judged = 0
        # The last session's answers, both sides': what a draft shows beside its verdicts
        # (kept by a function that holds the dict, not this judge: no cycle keeps the judge,
        # and its scratch directory, alive once it is dropped).
        self.last_answers: dict[str, dict[str, Any]] = {}
        self.runner.keep_answers = _keeper(self.last_answers)
        # Every session is written here before either side reads its own copy: in RAM when
        # there is a RAM file system (a disk write cost a millisecond on every session).
        self.scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-session-",
                                             dir=ram_directory()))
        self._remove_scratch = weakref.finalize(self, shutil.rmtree, self.scratch, True)

    def __enter__(self) -> SessionJudge:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start both sides at once (each already started is left as it is)."""
        if self.own:
            with ThreadPoolExecutor(2) as pool:
                starting = [pool.submit(self.reference.start),
                            pool.submit(self.implementation.start)]
                problems = [f.exception() for f in starting]
            failed = next((p for p in problems if p is not None), None)
            if failed is not None:
                raise failed
        self.stages = both_stages(self.implementation.hello, self.reference.stages,
                                  self.wanted, every_api=self.every_api)
        from conformance.corpus.stages import is_response

        # A stream parser claims only stages that read a case's response (judge_case).
        parses = any(is_response(s) and s in self.reference.hello.stages
                     for s in self.implementation.hello.stages)
        if not self.stages and not parses:
            raise ConformanceError(
                f"{self.implementation.spec} answers none of the stages to compare (it claims "
                f"{', '.join(sorted(self.implementation.hello.stages)) or 'none'})")

    def case(self, session: bytes, stages: Iterable[str] | None = None) -> Case:
        """``session`` as a case of this judge's stages (or ``stages``)."""
        self.judged += 1
        path = self.scratch / f"{self.judged}.jsonl"
        path.write_bytes(session)
        return Case(id=self.case_id, title=self.case_id, directory=self.scratch,
                    features=self.features,
                    declared_stages=tuple(stages if stages is not None else self.stages),
                    input_file=path)

    def pi_answer(self, stage: str) -> dict[str, Any]:
        """Pi's answer (the golden's result) for ``stage`` of the last session judged."""
        source = self.runner.goldens
        assert isinstance(source, _Remembering) and source.last is not None
        return source.last.golden(stage).result

    def judge(self, session: bytes, stages: Iterable[str] | None = None) -> list[StageResult]:
        """Every asked stage's result for ``session``, as a run would report them."""
        case = self.case(session, stages)
        try:
            return self.judge_case(case)
        finally:
            case.session_path.unlink(missing_ok=True)

    def judge_case(self, case: Case, stages: Iterable[str] | None = None) -> list[StageResult]:
        """A case as it is, with what it carries beside its session (a provider response,
        which a ``response.<api>`` stage reads), on ``stages`` (default: its own)."""
        self.last_answers.clear()
        if stages is not None:
            case = replace(case, declared_stages=tuple(stages))
        planned = plan(self.implementation.hello, [case], Selection())
        if not planned:
            return []
        planned = self.runner.prepare(planned, self.implementation.hello.inputs)
        if not planned:
            return []
        return self.runner.judge_case(self.implementation, planned[0])

    def close(self) -> None:
        self.runner.close()
        if self.own:
            for side in (self.implementation, self.reference):
                with contextlib.suppress(ConformanceError):
                    side.close()
        self._remove_scratch()


def _keeper(kept: dict[str, dict[str, Any]]) -> Callable[[Case, dict[str, dict[str, Any]]],
                                                         None]:
    def keep(case: Case, results: dict[str, dict[str, Any]]) -> None:
        kept.clear()
        kept.update(results)
    return keep


class _Remembering(GoldenSource):
    """The reference's goldens, the last session's kept for ``pi_answer``."""

    def __init__(self, source: ReferenceGoldens):
        self.source = source
        self.last: CaseGoldens | None = None

    def has(self, case: Case, stage: str) -> bool:
        return self.source.has(case, stage)

    def open(self, case: Case, stages: Sequence[str], session: bytes,
             options: Mapping[str, Any]) -> CaseGoldens:
        self.last = self.source.open(case, stages, session, options)
        return self.last


def both_stages(hello: protocol.Hello, reference: Iterable[str],
                wanted: Sequence[str] = (), *, every_api: bool = False) -> list[str]:
    """The stages both sides answer from a session, in stage order: those ``wanted``; or
    else every one both claim, request and wire stages included only with ``every_api`` or
    when the implementation claims nothing else (a provider library given its input)."""
    from conformance.corpus.stages import api_of, is_response, stage_sort_key

    # A response stage reads a provider's response, which a session file does not hold.
    both = sorted((s for s in reference if s in hello.stages and not is_response(s)),
                  key=stage_sort_key)
    if wanted:
        return [s for s in both if s in wanted]
    if every_api:
        return both
    sessions = [s for s in both if api_of(s) is None]
    return sessions or both


__all__ = ["SessionJudge", "both_stages"]
