"""The report as values: a header, stage results and a footer, frozen and typed.

``reporting.stream`` writes and reads these (one JSON line each, schemas/report.schema.json);
renderers, run diffs, the matrix, baselines and the discrepancy tools take them, never the
raw lines. ``from_json`` checks a line's fields and types once; ``to_json`` writes it back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from conformance import __version__
from conformance.corpus.selection import Selection
from conformance.corpus.stages import stage_sort_key
from conformance.judging.results import (
    STATUSES,
    ModelError,
    StageResult,
    StaleEntry,
    Status,
    get_choice,
    get_field,
    get_strings,
)

SCHEMA = "pi-conformance/report/1"

# passed / failed as the results say; interrupted: the run was stopped (Ctrl-C) before every
# result was in, so it is never a pass, whatever the results so far say; nothing-judged: every
# result is a skip (or there is none), so the run says nothing about the implementation: not
# a pass either, unless the run was told that is what it wants (``--allow-empty``).
Verdict = Literal["passed", "failed", "interrupted", "nothing-judged"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
#: The statuses that say something about the implementation (all but ``skip``).
JUDGED: tuple[Status, ...] = tuple(s for s in STATUSES if s != "skip")


@dataclass(frozen=True)
class RunnerInfo:
    name: str = "pi-conformance"
    version: str = __version__

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


@dataclass(frozen=True)
class CorpusIdentity:
    """Which corpus a run used: where, its version, how many cases, a digest of every case
    file, and the Pi releases that wrote its goldens."""

    root: str
    version: str
    cases: int
    sha256: str
    reference: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "version": self.version, "cases": self.cases,
                "sha256": self.sha256, "reference": list(self.reference)}

    @classmethod
    def from_json(cls, data: Any) -> CorpusIdentity:
        if not isinstance(data, dict):
            raise ModelError("field 'corpus' must be an object")
        what = "corpus: "
        return cls(root=get_field(data, "root", str, what=what),
                   version=get_field(data, "version", str, what=what),
                   cases=get_field(data, "cases", int, what=what),
                   sha256=get_field(data, "sha256", str, what=what),
                   reference=get_strings(data, "reference", what=what))


@dataclass(frozen=True)
class RunScope:
    """What the run was asked to cover (its ``Selection``; empty: everything), the
    ``--impl`` spec, and the shard (``K/N``, corpus/shards.py) when the run is one part of a
    sharded run. Written as the header's ``selection`` object."""

    selection: Selection = field(default_factory=Selection)
    impl: str = ""
    shard: str = ""
    # The seed provider responses were cut by (--split-responses), when they were.
    split_responses: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {**self.selection.to_json(), "impl": self.impl}
        if self.shard:
            data["shard"] = self.shard
        if self.split_responses is not None:
            data["split_responses"] = self.split_responses
        return data

    @classmethod
    def from_json(cls, data: Any) -> RunScope:
        if not isinstance(data, dict):
            raise ModelError("field 'selection' must be an object")
        what = "selection: "
        return cls(Selection(cases=get_strings(data, "cases", what=what),
                             features=get_strings(data, "features", what=what),
                             stages=get_strings(data, "stages", what=what),
                             apis=get_strings(data, "apis", what=what)),
                   impl=get_field(data, "impl", str, "", what=what),
                   shard=get_field(data, "shard", str, "", what=what),
                   split_responses=get_field(data, "split_responses", int, None, what=what))


@dataclass(frozen=True)
class Header:
    """The first line: who ran what on which corpus.

    ``implementation`` and ``capabilities`` are the implementation's hello, as it said them
    (a name and a version are required, the rest is its own business).
    """

    implementation: Mapping[str, Any]
    capabilities: Mapping[str, Any]
    corpus: CorpusIdentity
    selection: RunScope
    started: str
    runner: RunnerInfo = field(default_factory=RunnerInfo)

    @property
    def name(self) -> str:
        return str(self.implementation.get("name", "?"))

    @property
    def version(self) -> str:
        return str(self.implementation.get("version", "?"))

    @property
    def title(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def claimed_stages(self) -> list[str]:
        stages = self.capabilities.get("stages", [])
        return sorted((s for s in stages if isinstance(s, str)), key=stage_sort_key) \
            if isinstance(stages, list) else []

    def to_json(self) -> dict[str, Any]:
        return {"type": "header", "schema": SCHEMA, "runner": self.runner.to_json(),
                "implementation": dict(self.implementation),
                "capabilities": dict(self.capabilities), "corpus": self.corpus.to_json(),
                "selection": self.selection.to_json(), "started": self.started}

    @classmethod
    def from_json(cls, data: Any) -> Header:
        if not isinstance(data, dict) or data.get("type") != "header" \
                or data.get("schema") != SCHEMA:
            raise ModelError(f"the first line must be a {SCHEMA} header")
        runner = get_field(data, "runner", dict)
        implementation = get_field(data, "implementation", dict)
        for key in ("name", "version"):
            get_field(implementation, key, str, what="implementation: ")
        return cls(
            implementation=implementation,
            capabilities=get_field(data, "capabilities", dict),
            corpus=CorpusIdentity.from_json(get_field(data, "corpus", dict)),
            selection=RunScope.from_json(get_field(data, "selection", dict)),
            started=get_field(data, "started", str),
            runner=RunnerInfo(get_field(runner, "name", str, what="runner: "),
                              get_field(runner, "version", str, what="runner: ")),
        )


@dataclass(frozen=True)
class Footer:
    """The last line: the counts the reader checks the stream against, and the verdict."""

    results: int
    counts: Mapping[Status, int]
    known: int
    stale: int
    stale_baseline: tuple[StaleEntry, ...]
    verdict: Verdict
    finished: str

    @property
    def interrupted(self) -> bool:
        return self.verdict == "interrupted"

    def to_json(self) -> dict[str, Any]:
        return {"type": "footer", "results": self.results,
                "counts": {status: self.counts.get(status, 0) for status in STATUSES},
                "known": self.known, "stale": self.stale,
                "stale_baseline": [e.to_json() for e in self.stale_baseline],
                "verdict": self.verdict, "finished": self.finished}

    @classmethod
    def from_json(cls, data: Any) -> Footer:
        counts = get_field(data, "counts", dict)
        for status, count in counts.items():
            if status not in STATUSES:
                raise ModelError(f"counts: unknown status {status!r}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ModelError(f"counts: {status} must be a count, not {count!r}")
        stale = get_field(data, "stale_baseline", list)
        return cls(
            results=_count(data, "results"),
            counts=counts,
            known=_count(data, "known"),
            stale=_count(data, "stale"),
            stale_baseline=tuple(StaleEntry.from_json(entry) for entry in stale),
            verdict=get_choice(data, "verdict", VERDICTS),
            finished=get_field(data, "finished", str),
        )


def _count(data: Mapping[str, Any], key: str) -> int:
    value: int = get_field(data, key, int)
    if value < 0:
        raise ModelError(f"field {key!r} must not be negative")
    return value


class Tally:
    """What a footer needs, counted as results go by: the writer keeps this, not the lines."""

    def __init__(self) -> None:
        self.counts: Counter[Status] = Counter()
        self.results = 0
        self.known = 0
        self.stale = 0
        self.failing = 0

    def add(self, result: StageResult) -> None:
        self.results += 1
        self.counts[result.status] += 1
        self.known += result.baseline_state == "known"
        self.stale += result.baseline_state == "stale"
        self.failing += result.counts_as_failure

    @property
    def judged(self) -> int:
        """Results that say something about the implementation (all but skips)."""
        return sum(self.counts.get(status, 0) for status in JUDGED)

    def footer(self, stale_baseline: Iterable[StaleEntry], finished: str, *,
               interrupted: bool = False, allow_empty: bool = False) -> Footer:
        stale = tuple(stale_baseline)
        verdict: Verdict = "interrupted" if interrupted else (
            "failed" if self.failing or stale else
            "nothing-judged" if not self.judged and not allow_empty else "passed")
        return Footer(self.results, {s: self.counts.get(s, 0) for s in STATUSES}, self.known,
                      self.stale, stale, verdict, finished)


@dataclass(frozen=True)
class StatusCounts:
    """How many results have each status, under the summary's names."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    info: int = 0
    as_documented: int = 0

    @classmethod
    def of(cls, counter: Mapping[Status, int]) -> StatusCounts:
        return cls(counter.get("pass", 0), counter.get("fail", 0), counter.get("error", 0),
                   counter.get("skip", 0), counter.get("info", 0),
                   counter.get("as-documented", 0))

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Report:
    """A finished (or interrupted) run, as read back from its stream."""

    header: Header
    results: tuple[StageResult, ...]
    footer: Footer

    @property
    def implementation(self) -> Mapping[str, Any]:
        return self.header.implementation

    @property
    def interrupted(self) -> bool:
        return self.footer.interrupted

    @property
    def stale_baseline(self) -> tuple[StaleEntry, ...]:
        """Baseline entries that match nothing in the corpus (recorded in the footer)."""
        return self.footer.stale_baseline

    @property
    def verdict(self) -> Verdict:
        if self.interrupted:
            return "interrupted"
        if self.failed():
            return "failed"
        return "nothing-judged" if self.footer.verdict == "nothing-judged" else "passed"

    @property
    def nothing_judged(self) -> bool:
        """Every result is a skip (or there is none), and the run did not allow that."""
        return self.verdict == "nothing-judged"

    def skip_reasons(self) -> Counter[str]:
        """Why results were skipped, most common first (the implementation's own reasons
        are shown as one: it skipped them itself)."""
        return Counter(
            "the implementation skipped it" if r.message.startswith("the implementation ")
            else r.message for r in self.results if r.status == "skip")

    def counts(self) -> Counter[Status]:
        return Counter(r.status for r in self.results)

    def status_counts(self) -> StatusCounts:
        return StatusCounts.of(self.counts())

    def stage_counts(self) -> dict[str, StatusCounts]:
        """Per stage, in stage order."""
        per_stage: dict[str, Counter[Status]] = {}
        for result in self.results:
            per_stage.setdefault(result.stage, Counter())[result.status] += 1
        return {stage: StatusCounts.of(c) for stage, c in
                sorted(per_stage.items(), key=lambda kv: stage_sort_key(kv[0]))}

    @property
    def case_count(self) -> int:
        return len({r.case for r in self.results})

    @property
    def known_count(self) -> int:
        return sum(r.baseline_state == "known" for r in self.results)

    @property
    def stale_count(self) -> int:
        return sum(r.baseline_state == "stale" for r in self.results)

    def sorted_results(self) -> list[StageResult]:
        return sorted(self.results, key=lambda r: (r.case, stage_sort_key(r.stage)))

    def failures(self) -> list[StageResult]:
        """The results that fail the run, in case and stage order."""
        return [r for r in self.sorted_results() if r.counts_as_failure]

    def failed(self) -> bool:
        """Not a pass: a failure, a stale baseline entry, or a run cut short."""
        return self.interrupted or any(r.counts_as_failure for r in self.results) \
            or bool(self.stale_baseline)


def summary(report: Report) -> dict[str, Any]:
    """The machine summary printed by ``run --format json`` (schemas/summary.schema.json)."""
    return {
        "implementation": dict(report.implementation),
        "runner": report.header.runner.to_json(),
        "corpus": report.header.corpus.to_json(),
        "cases": report.case_count,
        "results": len(report.results),
        **report.status_counts().to_json(),
        "known": report.known_count,
        "stale": report.stale_count,
        "stages": {stage: c.to_json() for stage, c in report.stage_counts().items()},
        "stale_baseline": [e.to_json() for e in report.stale_baseline],
        "verdict": report.verdict,
    }
