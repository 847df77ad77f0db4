"""What the corpus covers: clauses, stages, features and APIs, each by the cases exercising it.

The clause catalogue is the list of rules Pi's docs state (plus behaviours only its code
has); a clause no case cites is a rule nobody checks. ``coverage`` says which those are, and
how the cases spread over stages, features and provider APIs, and which cells of the
content-block x provider matrix, and of the content x ending matrix of provider responses, are
filled, so gaps are visible before an implementer finds
them. Computed from the corpus on disk (metadata, sessions and goldens); no reference.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from conformance.corpus.cases import OUTCOMES, Case, Corpus
from conformance.corpus.stages import ALL_STAGES, APIS
from conformance.maintenance.matrix_coverage import BlockMatrix, compute_matrix
from conformance.maintenance.response_matrix import ResponseMatrix, compute_response_matrix


@dataclass(frozen=True)
class ClauseFile:
    """One catalogue file's share: how many of its clauses some case cites."""

    name: str
    total: int
    covered: int
    excluded: int

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "covered": self.covered, "excluded": self.excluded}


@dataclass
class Coverage:
    cases: list[str]
    clauses: dict[str, list[str]]
    stages: dict[str, list[str]]
    features: dict[str, list[str]]
    apis: dict[str, list[str]]
    outcomes: dict[str, int]
    files: list[ClauseFile]
    matrix: BlockMatrix
    responses: ResponseMatrix
    excluded: dict[str, str] = field(default_factory=dict)
    unknown_clauses: dict[str, list[str]] = field(default_factory=dict)

    @property
    def uncovered(self) -> list[str]:
        return [clause for clause, cases in self.clauses.items() if not cases]

    @property
    def clauses_covered(self) -> int:
        return len(self.clauses) - len(self.uncovered)

    @property
    def unused_features(self) -> list[str]:
        return [feature for feature, cases in self.features.items() if not cases]

    def to_json(self) -> dict[str, Any]:
        """The machine-readable form (schemas/coverage.schema.json)."""
        return {
            "cases": len(self.cases),
            "clauses_total": len(self.clauses),
            "clauses_covered": self.clauses_covered,
            "clauses_uncovered": self.uncovered,
            "clauses_excluded": len(self.excluded),
            "clause_files": {f.name: f.to_json() for f in self.files},
            "stages": {stage: len(cases) for stage, cases in self.stages.items()},
            "features": {name: len(cases) for name, cases in self.features.items()},
            "features_unused": self.unused_features,
            "apis": {api: len(cases) for api, cases in self.apis.items()},
            "outcomes": self.outcomes,
            "unknown_clauses": self.unknown_clauses,
            "clauses": self.clauses,
            "matrix": self.matrix.to_json(),
            "responses": self.responses.to_json(),
        }


def _index(cases: list[Case], keys: list[str], of: Any) -> dict[str, list[str]]:
    """``{key: [case ids]}`` for every key, in the order given (keys no case has included)."""
    index: dict[str, list[str]] = {key: [] for key in keys}
    for case in cases:
        for key in of(case):
            index.setdefault(key, []).append(case.id)
    return index


def compute(corpus: Corpus) -> Coverage:
    """Coverage of ``corpus``; raises CorpusError when a case cannot be loaded."""
    cases = corpus.cases
    catalogue = corpus.clauses
    excluded = corpus.excluded_clauses
    cited = _index(cases, [], lambda case: case.clauses)
    clauses = {name: cited.get(name, []) for name in sorted(catalogue)}
    unknown = {name: ids for name, ids in sorted(cited.items()) if name not in catalogue}
    stages = _index(cases, list(ALL_STAGES), lambda case: case.stages)
    apis = _index(cases, list(APIS),
                  lambda case: list(case.apis))
    features = _index(cases, sorted(corpus.features), lambda case: case.features)
    outcome_counts = Counter(case.outcome for case in cases)
    names = sorted({spec["file"] for spec in catalogue.values()}
                   | {spec["file"] for spec in excluded.values()})
    files = [
        ClauseFile(
            name=name,
            total=sum(1 for spec in catalogue.values() if spec["file"] == name),
            covered=sum(1 for clause, spec in catalogue.items()
                        if spec["file"] == name and clauses[clause]),
            excluded=sum(1 for spec in excluded.values() if spec["file"] == name),
        )
        for name in names
    ]
    return Coverage(
        cases=[case.id for case in cases],
        clauses=clauses,
        stages=stages,
        features=features,
        apis=apis,
        outcomes={outcome: outcome_counts.get(outcome, 0) for outcome in OUTCOMES},
        files=files,
        matrix=compute_matrix(corpus, cases),
        responses=compute_response_matrix(cases),
        excluded={name: spec["reason"] for name, spec in sorted(excluded.items())},
        unknown_clauses=unknown,
    )
