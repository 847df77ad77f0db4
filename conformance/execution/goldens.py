"""Where a run's goldens come from: the corpus's files, or the real Pi asked now.

A ``GoldenSource`` gives, per case, the goldens the runner judges answers against and the
inputs it sends to stages claimed given their input. The runner does not know which source
it has: ``run``, ``matrix``, ``smoke`` and the pytest plugin judge against the corpus's
golden files (``CorpusGoldens``); ``compare``, ``fuzz``, shrinking and draft verification
judge sessions no golden file exists for, against Pi's answers obtained the way ``corpus
regenerate`` obtains them (``reference_goldens.ReferenceGoldens``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.corpus.cases import Case
from conformance.corpus.goldens import Golden, Goldens


class CaseGoldens(ABC):
    """Pi's goldens for one case, as the runner asks for them (possibly still coming)."""

    @abstractmethod
    def golden(self, stage: str) -> Golden:
        """The golden of ``stage``; a ConformanceError (naming what) when there is none."""


class GoldenSource(ABC):
    """Goldens for the cases of a run."""

    def check(self, wanted: Iterable[tuple[Case, str]]) -> None:  # noqa: B027 (optional)
        """Before the run: make sure every golden in ``wanted`` can be had, so that a broken
        corpus is an input problem (exit 2), never an error in the middle of a run."""

    def unavailable(self, stage: str) -> str | None:
        """Why this source has no golden for ``stage`` at all (a Pi release that cannot
        answer it), or None: the stage is then skipped, saying so."""
        return None

    @abstractmethod
    def open(self, case: Case, stages: Sequence[str], session: bytes,
             options: Mapping[str, Any]) -> CaseGoldens:
        """The goldens of ``stages`` (judged, or fed to a stage as its input) for ``case``,
        whose session is ``session`` and run options ``options`` (the very bytes and options
        the implementation is given)."""

    def has(self, case: Case, stage: str) -> bool:
        """Whether ``case`` has a golden for ``stage`` (a stage's input may be missing)."""
        return stage in case.stages

    def close(self) -> None:  # noqa: B027 (an optional hook)
        """Release whatever the source started."""


class _CorpusCase(CaseGoldens):
    def __init__(self, goldens: Goldens, case: Case):
        self.goldens = goldens
        self.case = case

    def golden(self, stage: str) -> Golden:
        return self.goldens[(self.case.id, stage)]


class CorpusGoldens(GoldenSource):
    """The corpus's golden files, each checked once before the run (``Goldens.check``) and
    parsed when judged."""

    def __init__(self, root: Path):
        self.root = root
        self.goldens = Goldens()

    def check(self, wanted: Iterable[tuple[Case, str]]) -> None:
        self.goldens.check(wanted, self.root)

    def open(self, case: Case, stages: Sequence[str], session: bytes,
             options: Mapping[str, Any]) -> CaseGoldens:
        return _CorpusCase(self.goldens, case)
