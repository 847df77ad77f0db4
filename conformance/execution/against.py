"""Which Pi release a run judges with, and that release's goldens.

By default a run judges against the corpus's goldens, written by the pinned release. A port
that follows an older release says so (``run --against pi@1.3.0``, the pytest plugin's
``--pi-against``, or its hello's ``targets``), so that it can tell "I am wrong" from "Pi
changed since the release I follow". That release's goldens are built on first use the way
``corpus regenerate`` builds the corpus's (``ReferenceGoldens``: its plain answer, and varied
runs where an answer differs), kept by release, harness, session, stages and options
(``AnswerCache``), and reused by every later run.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from conformance.errors import ConformanceError
from conformance.execution.answer_cache import AnswerCache
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.implementations import known
from conformance.implementations.known.releases import LINES

if TYPE_CHECKING:
    from conformance.corpus.cases import Corpus
    from conformance.execution.plan import RunPlan
    from conformance.implementations.protocol import Hello
    from conformance.reporting.model import CorpusIdentity

#: ``--against`` values that mean the pinned release: the corpus's own goldens.
PINNED_NAMES = ("reference", "pinned")


def _release(spec: str) -> known.Entry | None:
    """The release ``spec`` names (None: the pinned one); a usage error for anything else."""
    if spec in PINNED_NAMES:
        return None
    entry = None
    with contextlib.suppress(ConformanceError):
        entry = known.lookup(spec)
        if entry is None and "@" in spec:
            entry = known.lookup(known.release_spec(spec))
    if entry is None or entry.name not in LINES:
        raise ConformanceError(f"{spec!r} is not a release of Pi to judge against: name "
                               f"one, e.g. pi@1.3.0 or mariozechner@0.73.1 (or reference: "
                               f"the pinned {known.KNOWN[0].spec})")
    return None if entry.installer is None else entry


def judged_release(against: str | None, hello: Hello | None) -> str | None:
    """The release to judge with: ``against`` when given, else the one the hello targets;
    None for the pinned release (the corpus's goldens)."""
    spec = against if against is not None else (hello.targets if hello else None)
    if spec is None:
        return None
    entry = _release(spec)
    return None if entry is None else entry.spec


def targeted_note(against: str | None, hello: Hello | None, release: str | None) -> str | None:
    """Said on stderr when the hello, not the command line, chose the release."""
    if against is not None or release is None or hello is None:
        return None
    return (f"judging against {release}, the release the implementation targets (its hello); "
            f"--against reference judges against the pinned {known.KNOWN[0].spec}")


@dataclass
class ReleaseJudging:
    """A release started as the golden source of a run, and the corpus identity naming it."""

    spec: str
    goldens: ReferenceGoldens
    identity: CorpusIdentity

    def summary(self) -> str:
        """Whether its goldens were all cached, or how long building the rest took."""
        cache = self.goldens.cache
        assert cache is not None
        if cache.misses == 0:
            return (f"goldens for {self.spec}: cached ({cache.hits} answers, "
                    f"{cache.directory})")
        rejected = (f", {cache.rejected} kept answer(s) failed their provenance check"
                    if cache.rejected else "")
        return (f"goldens for {self.spec}: built in {self.goldens.built_seconds:.2f} s "
                f"({cache.misses} asked now{rejected}, {cache.hits} from the cache; kept in "
                f"{cache.directory})")

    def close(self) -> None:
        self.goldens.close()


def release_goldens(spec: str, corpus: Corpus, plan: RunPlan) -> ReleaseJudging:
    """Start ``spec`` (installed on first use) as the golden source; the caller closes it.
    It says in its hello which stages it answers: the others are skipped, saying so."""
    from conformance.implementations.specs import known_implementation
    from conformance.reporting.stream import corpus_identity

    entry = _release(spec)
    assert entry is not None, "the pinned release judges with the corpus's goldens"
    goldens = ReferenceGoldens(stage_timeout=plan.limits.timeout, hint=plan.hint,
                               release=lambda variation: known_implementation(entry, variation))
    try:
        goldens.start()
    except BaseException:
        goldens.close()
        raise
    versions = " ".join(f"{k}@{v}" for k, v in sorted(goldens.versions.items()))
    # Kept by what the release runs with too: a reinstall that pins other packages asks anew.
    goldens.cache = AnswerCache(entry.spec, installed=versions)
    identity = replace(corpus_identity(corpus),
                       reference=(f"judged against {entry.spec}: {versions}",))
    return ReleaseJudging(entry.spec, goldens, identity)


__all__ = ["PINNED_NAMES", "ReleaseJudging", "judged_release", "release_goldens",
           "targeted_note"]
