"""Goldens from the reference: write them (``regenerate``) or verify them (``check``).

Both ask the real, pinned Pi through the same protocol the runner uses, so a golden is
exactly the reference's answer. Each carries its provenance: package versions, lockfile and
harness hashes, the hash of the case's input, and the command that wrote it.

What Pi invents (random ids, the clock, temporary paths) is found, not assumed: regenerate asks
every case in several runs that differ in randomness, clock and temporary directory
(``volatility.VARIATIONS``), keeps the first run's answer and records in ``volatile`` the paths
whose values varied, grouped by the value they shared. ``check`` asks a plain run and a new
variation, and fails when a path varies that is not recorded, or a recorded one no longer does.

A stage on which Pi hangs or crashes is recorded as ``misbehaved`` only for cases that declare
``outcome = "reference-misbehaves"``; anywhere else it is an error. Such cases (parent cycles)
make Pi loop while it grows an array, so they are asked once, one stage at a time, each in a
process of its own with a capped heap and a one-second cap: they always end as ``misbehaved``,
cheaply. Freshness treats "misbehaved" and "rejected" as the same verdict there: Pi failed, and
how it failed is not a fact of the format.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.goldens import Golden, read_golden, write_golden
from conformance.corpus.jsonpath import get
from conformance.corpus.stages import CAPTURE_STAGES
from conformance.errors import ConformanceError, ImplementationError
from conformance.files import replace_text
from conformance.implementations import protocol
from conformance.implementations.reference import HARNESS, lock_sha256
from conformance.implementations.transports import PersistentImplementation, reference
from conformance.judging.comparison import Difference
from conformance.judging.volatility import (
    CHECK_VARIATION,
    VARIATIONS,
    describe_change,
    stable_differences,
    volatile_groups,
)

REFERENCE_TIMEOUT = 20.0
MISBEHAVES_TIMEOUT = 1.0
FAILURE_KINDS = frozenset({"rejected", "misbehaved"})


def same_verdict(case: Case, golden_kind: str, answer_kind: str) -> bool:
    """Whether a golden's kind still holds; for misbehaving cases any failure is the same."""
    if golden_kind == answer_kind:
        return True
    return case.outcome == "reference-misbehaves" and {golden_kind, answer_kind} <= FAILURE_KINDS


def provenance(hello: protocol.Hello, case: Case) -> dict[str, Any]:
    found = {
        "generator": ("pi-conformance reference harness "
                      "(conformance/implementations/reference/harness.mjs)"),
        "command": f"pi-conformance corpus regenerate {case.id}",
        "reference": dict(hello.implementation.get("dependencies", {})),
        "lock_sha256": lock_sha256(),
        "harness_sha256": hashlib.sha256(HARNESS.read_bytes()).hexdigest(),
        "input_sha256": case.input_sha256(),
    }
    if case.generated is not None:
        # A [generate] case: the session was built from this seed, not read from the corpus.
        found["session"] = case.generated.provenance()
    return found


class ReferenceSession:
    """The reference, started once (with ``variation``, its harness variables), answering
    whole cases; cases where Pi misbehaves go to isolated processes and never disturb it."""

    def __init__(self, corpus: Corpus, variation: Mapping[str, str] | None = None):
        self.corpus = corpus
        self.impl: PersistentImplementation = reference(variation)
        self.seq = 0

    def __enter__(self) -> ReferenceSession:
        self.hello = self.impl.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.impl.close()

    def answer(self, case: Case, stages: list[str]) -> dict[str, dict[str, Any]]:
        """The reference's result per stage; misbehaving cases are asked one stage at a time."""
        if case.outcome != "reference-misbehaves":
            try:
                return self._ask(case, stages)
            except ImplementationError as exc:
                raise ConformanceError(f"the reference failed on {case.id}: {exc}",
                                       path=case.session_path) from None
        results = {}
        for stage in stages:
            try:
                results.update(self._ask(case, [stage], MISBEHAVES_TIMEOUT, isolated=True))
            except ImplementationError as exc:
                kind = "timeout" if "no answer within" in str(exc) else "crash"
                results[stage] = {"misbehaved": {"kind": kind, "detail": str(exc)[:2000]}}
        return results

    def _ask(self, case: Case, stages: list[str], timeout: float = REFERENCE_TIMEOUT, *,
             isolated: bool = False) -> dict[str, dict[str, Any]]:
        self.seq += 1
        session = case.session_bytes()
        # Pi rewrites what it opens: it only ever sees a copy (and the harness copies again).
        with tempfile.TemporaryDirectory(prefix="pi-conformance-regen-") as scratch:
            copy = Path(scratch) / "session.jsonl"
            copy.write_bytes(session)
            request = protocol.run_request(
                self.seq, case.id, case.features, str(copy),
                session.decode("utf-8", errors="replace"), stages,
                self.corpus.request_options(case),
                responses={api: response.serializable()
                           for api, response in case.responses_for(stages).items()})
            answer = (self.impl.run_isolated if isolated else self.impl.run)(request, timeout)
        results = protocol.check_run_answer(answer, self.seq, stages)
        for stage, result in results.items():
            if "error" in result or "skipped" in result:
                raise ConformanceError(f"the reference could not answer {stage}: {result}",
                                       path=case.session_path)
        return results


def reference_models() -> dict[str, Any]:
    """``corpus/models.json``: the model objects for request stages, read from Pi's catalog."""
    from conformance.implementations import reference as ref

    installation = ref.require_installation()
    completed = subprocess.run(
        [str(installation.node), str(ref.MODELS_SCRIPT), str(installation.prefix)],
        capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise ConformanceError(f"models.mjs failed: {completed.stderr.strip()[-2000:]}")
    return {
        "provenance": {
            "generator": "conformance/implementations/reference/models.mjs (Pi's model catalog)",
            "command": "pi-conformance corpus regenerate",
            "reference": {**installation.versions(), "node": installation.node_version()},
            "lock_sha256": lock_sha256(),
        },
        "models": jsonio.loads(completed.stdout),
    }


def refresh_models(corpus: Corpus) -> bool:
    """Rewrite models.json if the catalog says otherwise; True when it changed."""
    path = corpus.root / "models.json"
    fresh = reference_models()
    if path.is_file() and jsonio.read_json(path) == fresh:
        return False
    replace_text(path, jsonio.dumps_pretty(fresh))
    corpus.__dict__.pop("models", None)
    return True


def harness_stages(case: Case) -> list[str]:
    """The stages the reference harness writes; capture stages come from
    ``pi-conformance corpus capture``."""
    return [stage for stage in case.stages if stage not in CAPTURE_STAGES]


class ReferenceRuns:
    """The reference in several runs at once (one process per variation), asked the same
    case in parallel; the first variation's answer is the one a golden keeps."""

    def __init__(self, corpus: Corpus, variations: Sequence[Mapping[str, str]]):
        self.sessions = [ReferenceSession(corpus, variation) for variation in variations]
        self.pool = ThreadPoolExecutor(max_workers=len(self.sessions))

    def __enter__(self) -> ReferenceRuns:
        try:
            list(self.pool.map(ReferenceSession.__enter__, self.sessions))
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for session in self.sessions:
            session.__exit__()
        self.pool.shutdown()

    @property
    def hello(self) -> protocol.Hello:
        return self.sessions[0].hello

    def answer(self, case: Case) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
        """The first run's result per stage, and per stage the volatile paths of all runs.

        A case where Pi misbehaves is asked once: its verdict never depends on the answer.
        """
        stages = harness_stages(case)
        if case.outcome == "reference-misbehaves":
            return self.sessions[0].answer(case, stages), {stage: {} for stage in stages}
        runs = list(self.pool.map(lambda session: session.answer(case, stages), self.sessions))
        volatile = {stage: volatile_groups([run[stage] for run in runs]) for stage in stages}
        return runs[0], volatile


def regenerate(corpus: Corpus, cases: list[Case],
               progress: Callable[[Case], None] = lambda case: None) -> int:
    """Rewrite the goldens of ``cases`` that the reference would not write again as they are.

    A golden that is still fresh is left alone, so the random ids of a migration or the way a
    misbehaving Pi fails this time do not churn the corpus. Returns the files written.
    """
    written = 0
    with ReferenceRuns(corpus, VARIATIONS) as runs:
        for case in cases:
            results, volatile = runs.answer(case)
            expected_dir = case.directory / "expected"
            if expected_dir.is_dir():
                for old in expected_dir.glob("*.json"):
                    if old.stem not in case.stages:
                        old.unlink()
            fresh_provenance = provenance(runs.hello, case)
            for stage, result in results.items():
                if not staleness(case, stage, result, volatile[stage], fresh_provenance):
                    continue
                write_golden(case, Golden(stage, result, fresh_provenance, volatile[stage]))
                written += 1
            progress(case)
    return written


@dataclass
class Staleness:
    case: str
    stage: str
    reason: str
    differences: list[Difference] = field(default_factory=list)


def staleness(case: Case, stage: str, result: dict[str, Any], volatile: Mapping[str, str],
              fresh_provenance: dict[str, Any]) -> list[Staleness]:
    """Why the stored golden is not what the reference answers now (empty: it is fresh).

    ``result`` is a plain run's answer and ``volatile`` the paths that varied between this
    run and its variations. Outside the volatile paths (recorded or found) the answer must
    equal the golden exactly; the volatile paths must be the recorded ones, grouped alike.
    """
    try:
        golden = read_golden(case, stage)
    except ConformanceError as exc:
        return [Staleness(case.id, stage, str(exc))]
    found = [
        Staleness(case.id, stage, f"provenance {key} is out of date")
        for key in ("input_sha256", "lock_sha256", "harness_sha256", "reference")
        if golden.provenance.get(key) != fresh_provenance[key]
    ][:1]
    if not same_verdict(case, golden.kind, next(iter(result))):
        found.append(Staleness(case.id, stage, f"golden is {golden.kind}, the reference now "
                                               f"gives {next(iter(result))}"))
    elif case.outcome != "reference-misbehaves":
        masked = golden.volatile.keys() | volatile.keys()
        changed = [Difference(path=path, kind="changed", expected=get(golden.result, path),
                              actual=get(result, path))
                   for path in stable_differences(golden.result, result, masked)]
        if changed:
            found.append(Staleness(case.id, stage, "the reference's output changed", changed))
        found.extend(Staleness(case.id, stage, problem)
                     for problem in describe_change(golden.volatile, volatile))
    return found


def freshness(corpus: Corpus, cases: list[Case],
              progress: Callable[[Case], None] = lambda case: None) -> Iterator[Staleness]:
    """Every golden that the reference would not write again as it is: its answer, and its
    volatile paths against a plain run and a variation regenerate never used."""
    with ReferenceRuns(corpus, (VARIATIONS[0], CHECK_VARIATION)) as runs:
        for case in cases:
            results, volatile = runs.answer(case)
            fresh_provenance = provenance(runs.hello, case)
            for stage, result in results.items():
                yield from staleness(case, stage, result, volatile[stage], fresh_provenance)
            progress(case)
