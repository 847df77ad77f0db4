"""Chunk-boundary fuzzing: the corpus's provider responses cut where Hypothesis chooses, each
cut judged by the one executor against the same golden, a failing cut shrunk to the fewest
cuts and written as a candidate case.

A stream parser's answer must not depend on where the network cut the body
(``strategies.body_cuts``: any offsets, inside multi-byte characters, every byte apart). Pi's
does not (a test holds it for every response of the corpus), so a cut that changes a port's
answer is the port's bug, shown with the cuts that cause it. Changes it: a cut is judged
against the golden, and is a finding only where the judgement differs from the one of the body
in its own chunks; a port that is wrong however its body is cut fails plain runs instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky

import strategies
from conformance.corpus import http_responses
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.http_responses import HttpResponse
from conformance.corpus.metadata import CaseMetadata
from conformance.corpus.selection import Selection
from conformance.corpus.stages import RESPONSE_PREFIX, RESPONSE_STAGES
from conformance.execution.executor import Watcher, opened
from conformance.execution.plan import Limits, RunPlan
from conformance.execution.rechunking import ExplicitCuts
from conformance.execution.runner import Planned
from conformance.files import staged_directory
from conformance.implementations.transports import Implementation
from conformance.judging.results import StageResult

#: The feature a candidate case carries (corpus/features/).
FEATURE = "response-chunk-boundaries"


@dataclass(frozen=True)
class CutFinding:
    """A response the implementation answers otherwise once its body is cut at ``cuts``."""

    case: Case
    api: str
    cuts: tuple[int, ...]
    response: HttpResponse  # cut at ``cuts``
    detail: str

    @property
    def stage(self) -> str:
        return RESPONSE_PREFIX + self.api


class _Results(Watcher):
    def __init__(self) -> None:
        self.results: list[StageResult] = []

    def result(self, result: StageResult) -> None:
        self.results.append(result)


def fuzz_cuts(impl: Implementation, corpus: Corpus, cases: Sequence[Case], *,
              max_examples: int = 50, seed: int = 0, timeout: float = 30.0,
              on_response: Callable[[Case, str], None] = lambda case, api: None
              ) -> list[CutFinding]:
    """Every response stage of ``cases`` the implementation claims, cut ``max_examples``
    ways; at most one finding per response, shrunk."""
    cutter = ExplicitCuts()
    plan = RunPlan(impl.spec, Selection(stages=RESPONSE_STAGES), Limits(timeout=timeout),
                   allow_empty=True, rechunking=cutter)
    watcher = _Results()
    findings = []
    with opened(plan, corpus, [impl], watcher=watcher) as execution:
        for case in cases:
            for stage in case.response_stages():
                if stage not in impl.hello.stages:
                    continue
                api = stage.removeprefix(RESPONSE_PREFIX)
                on_response(case, api)
                response = case.responses_for([stage])[api]
                planned = [_only(item, stage) for item in execution.schedule([case])]

                def answered(cuts: Sequence[int], case: Case = case, api: str = api,
                             stage: str = stage, planned: list[Planned] = planned
                             ) -> StageResult | None:
                    cutter.set(case.id, api, cuts)
                    watcher.results.clear()
                    execution.run(planned)
                    return next((r for r in watcher.results if r.stage == stage), None)

                # What it answers with the body in its own chunks: a cut is a finding only
                # where it changes that, so a port wrong however the body is cut is not one.
                whole = _verdict(answered(response.boundaries()))

                def judged(cuts: list[int], whole: tuple[object, ...] = whole,
                           answered: Callable[[Sequence[int]], StageResult | None] = answered
                           ) -> StageResult | None:
                    result = answered(cuts)
                    failing = result is not None and result.status in ("fail", "error")
                    return result if failing and _verdict(result) != whole else None

                found = _search(response.body, judged, max_examples, seed)
                if found is not None:
                    cuts, result = found
                    findings.append(CutFinding(case, api, tuple(cuts),
                                               response.split_at(cuts), result.message))
    return findings


def _verdict(result: StageResult | None) -> tuple[object, ...]:
    """What a judgement says, whatever the run's timing: its status, message, differences."""
    if result is None:
        return ()
    return (result.status, result.message, result.differences)


def _only(item: Planned, stage: str) -> Planned:
    """The planned case asking ``stage`` alone (its other stages are not the search's)."""
    return replace(item, ask=tuple(s for s in item.ask if s == stage), skipped=())


def _search(body: bytes, judged: Callable[[list[int]], StageResult | None],
            max_examples: int, seed: int) -> tuple[list[int], StageResult] | None:
    """The smallest failing cuts Hypothesis finds for ``body``, with their result."""
    failing: list[tuple[list[int], StageResult]] = []

    @hypothesis_seed(seed)
    @settings(max_examples=max_examples, database=None, deadline=None,
              phases=(Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck))
    @given(strategies.body_cuts(body))
    def probe(cuts: list[int]) -> None:
        result = judged(cuts)
        if result is not None:
            failing.append((cuts, result))
            raise AssertionError(result.message)

    try:
        probe()
    except AssertionError:
        if not failing:
            return None
        # Hypothesis replays the smallest it found last; cutting every byte apart is one
        # example it cannot shrink, so the cuts are narrowed further by delta debugging.
        cuts, result = failing[-1]
        return _fewest(cuts, result, judged)
    except Flaky:
        # The last failure did not come again when replayed (a parser that is not
        # deterministic, or the clock): the latest failing cuts that do are the finding;
        # none, and there is none.
        for cuts, _ in reversed(failing):
            again = judged(cuts)
            if again is not None:
                return _fewest(cuts, again, judged)
    return None


def _fewest(cuts: list[int], result: StageResult,
            judged: Callable[[list[int]], StageResult | None]) -> tuple[list[int], StageResult]:
    """A smallest subset of ``cuts`` that still fails (Zeller's ddmin): halves, then quarters
    ..., keeping any part or complement that fails on its own."""
    parts = 2
    while len(cuts) >= 2:
        size = -(-len(cuts) // parts)
        chunks = [cuts[i:i + size] for i in range(0, len(cuts), size)]
        for index, chunk in enumerate(chunks):
            for candidate in (chunk, [c for i, part in enumerate(chunks) if i != index
                                      for c in part]):
                found = judged(candidate) if len(candidate) < len(cuts) else None
                if found is not None:
                    cuts, result = candidate, found
                    parts = 2 if candidate is chunk else max(parts - 1, 2)
                    break
            else:
                continue
            break
        else:
            if parts >= len(cuts):
                break
            parts = min(len(cuts), parts * 2)
    return cuts, result


def write_cut_candidate(finding: CutFinding, out: Path, impl_name: str, command: str) -> Path:
    """``out/<case>-<api>-cut/``: the case's session and this response, cut where it failed,
    declared for its response stage alone; ``corpus promote`` gives it Pi's golden."""
    slug = f"{finding.case.id.replace('.', '-')}-{finding.api}-cut"
    description = (f"Found by chunk-boundary fuzzing: {impl_name} answers {finding.stage} "
                   f"otherwise once the body is cut at {list(finding.cuts)}.\n\n{finding.detail}")
    metadata = CaseMetadata(id=f"fuzz.{slug}", title=f"{impl_name}: {finding.stage} depends on "
                            "where the body is cut", description=description,
                            features=(FEATURE,), stages=(finding.stage,), source=command,
                            options=finding.case.options)
    with staged_directory(out / slug) as directory:
        (directory / "session.jsonl").write_bytes(finding.case.session_bytes())
        (directory / "responses").mkdir()
        (directory / "responses" / f"{finding.api}.json").write_text(
            http_responses.dumps(finding.response))
        metadata.write(directory)
    return out / slug
