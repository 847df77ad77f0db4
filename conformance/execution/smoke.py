"""Is this adapter wired correctly? (Bowtie's smoke; ``pi-conformance smoke --impl X``.)

Not a score: it starts the implementation, checks its hello against the schema, runs the one
or two smallest cases it claims with strict protocol validation, and checks it leaves on
``bye``. Each check prints one pass/fail line; differences from the goldens are shown for
information only, since a wrong answer is what ``run`` is for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from conformance.corpus.cases import Case, Corpus
from conformance.corpus.stages import inputs_of, stage_sort_key
from conformance.errors import ImplementationError
from conformance.execution.executor import Watcher, opened
from conformance.execution.plan import Limits, RunPlan
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation, PersistentImplementation
from conformance.judging.results import StageResult


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"[{'pass' if self.ok else 'FAIL'}] {self.name}: {self.detail}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def tiny_cases(corpus: Corpus, impl: Implementation, patterns: tuple[str, ...],
               count: int = 2) -> list[Case]:
    """The smallest cases whose features the implementation claims and that hold a stage it
    claims (a stream parser's are the response cases); failing that, the smallest."""
    features = impl.hello.features
    cases = corpus.select(patterns)
    fitting = [c for c in cases if features is None or set(c.features) <= features]
    claimed = [c for c in fitting if impl.hello.stages & set(c.stages)]
    return sorted(claimed or fitting,
                  key=lambda c: (c.session_path.stat().st_size, c.id))[:count]


def _case_check(case: Case, results: list[StageResult], elapsed: float) -> Check:
    asked = [r for r in results if r.message != "stage not claimed"]
    errors = [r for r in asked if r.status == "error"]
    if not asked:
        return Check(f"run {case.id}", False, "no claimed stage in this case")
    if errors:
        first = errors[0]
        return Check(f"run {case.id}", False,
                     f"{len(errors)} of {len(asked)} stage(s) errored ({first.error_kind}); "
                     f"{first.stage}: {first.message.splitlines()[0]}")
    count = {s: sum(r.status == s for r in asked) for s in ("pass", "fail", "info", "skip")}
    return Check(f"run {case.id}", True,
                 f"{len(asked)} stage(s) answered in {_ms(elapsed)}, valid against "
                 f"run-response.json; {count['pass']} match the golden, {count['fail']} "
                 f"differ, {count['skip']} skipped by it (differences are run's business)")


def inputs_check(fed: frozenset[str]) -> Check:
    """What the stages claimed given their input will be sent (hello already checked that
    each is claimed)."""
    sources = sorted({source for stage in fed for source in inputs_of(stage)},
                     key=stage_sort_key)
    return Check("inputs", True,
                 f"{len(fed)} stage(s) claimed given their input "
                 f"({', '.join(sorted(fed, key=stage_sort_key))}); each run request carries "
                 f"the goldens of {', '.join(sources)}")


class _Collect(Watcher):
    def __init__(self) -> None:
        self.results: list[StageResult] = []

    def result(self, result: StageResult) -> None:
        self.results.append(result)


def smoke(spec: str, corpus: Corpus, patterns: tuple[str, ...] = (),
          timeout: float = 30.0, bye_grace: float = 5.0) -> list[Check]:
    """Every check, in order; stops early only when nothing further can be checked.

    ``bye_grace``: how long a process may take to exit after ``bye`` before it is killed and
    the bye check fails (tests pass a short one).
    """
    checks: list[Check] = []
    impl = resolve(spec)
    started = time.perf_counter()
    try:
        hello = impl.start()
    except ImplementationError as exc:
        return [Check("handshake", False, exc.problem)]
    try:
        checks.append(Check(
            "handshake", True,
            f"{hello.name} {hello.version} ({hello.implementation.get('language')}) answered "
            f"hello in {_ms(time.perf_counter() - started)}, valid against hello-response.json"))
        checks.append(Check("stages", bool(hello.stages),
                            f"claims {len(hello.stages)}: {', '.join(sorted(hello.stages))}"
                            if hello.stages else "claims no stage: nothing can be asked"))
        if hello.inputs:
            checks.append(inputs_check(hello.inputs))
        if hello.features is not None:
            unknown = sorted(hello.features - set(corpus.features))
            checks.append(Check(
                "features", not unknown,
                f"claims {len(hello.features)}, all in the corpus vocabulary" if not unknown
                else "not in the corpus vocabulary: " + ", ".join(unknown)))
        cases = tiny_cases(corpus, impl, patterns)
        if not cases:
            checks.append(Check("cases", False, "no case in the corpus fits what it claims"))
        plan = RunPlan(spec, limits=Limits(timeout=timeout, max_restarts=len(cases),
                                           validate_protocol=True))
        collected = _Collect()
        with opened(plan, corpus, [impl], watcher=collected) as execution:
            for case in cases:
                collected.results = []
                began = time.perf_counter()
                execution.run_cases([case])
                checks.append(_case_check(case, collected.results,
                                          time.perf_counter() - began))
        if isinstance(impl, PersistentImplementation) and impl.connection is not None:
            connection, impl.connection = impl.connection, None
            exited = connection.close(grace=bye_grace)
            checks.append(Check("bye", exited, "exited on its own after bye" if exited else
                                f"still running {bye_grace:g} s after bye; it was killed"))
    finally:
        impl.close()
    return checks


__all__ = ["Check", "smoke"]
