"""A run's plan: what every judging command decided from its options, made once.

The CLI (or the pytest plugin) turns its options into a ``RunPlan`` where it parses them;
every command that judges (``run``, ``compare``, ``matrix``, the plugin, ``smoke``; and
``fuzz``, shrinking and draft verification through ``sessions.SessionJudge``) hands it to the
one executor. Nothing downstream re-reads an option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.corpus.selection import Selection
from conformance.corpus.shards import Shard
from conformance.execution.rechunking import ResponseCutter
from conformance.execution.runner import Limits


@dataclass(frozen=True)
class RunPlan:
    """One run: which implementation, which cases and stages, with which limits, judged
    against which known failures, reported where."""

    implementation: str  # the --impl spec (implementations/specs.py)
    selection: Selection = field(default_factory=Selection)
    limits: Limits = field(default_factory=Limits)
    shard: Shard | None = None
    baseline: Path | None = None  # known failures (judging/baseline.py)
    report: Path | None = None  # the canonical JSON-lines report; None: a temporary file
    allow_empty: bool = False  # a run in which nothing is judged passes (else it fails)
    # The Pi release judged against (pi@1.3.0; "reference": the pinned one, the corpus's
    # goldens); None: the release the implementation's hello targets, if any (against.py).
    against: str | None = None
    # Provider responses cut elsewhere than in their own chunks (rechunking.py); None: not.
    rechunking: ResponseCutter | None = None

    @property
    def hint(self) -> tuple[str, ...] | None:
        """The stages the run may ask, for every implementation process it starts."""
        return self.selection.hint


__all__ = ["Limits", "RunPlan"]
