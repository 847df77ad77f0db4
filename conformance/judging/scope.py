"""Where an outcome class applies: the stages and JSON paths a case's class concerns.

A case whose class is not ``required`` names them in ``[scope]`` (case.toml): the record of a
discrepancy concerns one stage and path and what follows from it, never the whole case. A
difference outside the scope is judged as for any required case, so a wrong ``max_tokens`` or
a dropped message on an unrelated stage of such a case still fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conformance.corpus.jsonpath import generalize
from conformance.judging.comparison import Difference

WHOLE = "$"


def covers(paths: Iterable[str], path: str) -> bool:
    """Whether ``path`` (a difference's, in Pi's answer) lies at or under one of ``paths``
    (``[*]`` matches any list index; ``$`` covers everything)."""
    shape = generalize(path)
    for scoped in paths:
        pattern = generalize(scoped)
        if pattern == WHOLE or shape == pattern or shape.startswith((pattern + ".",
                                                                     pattern + "[")):
            return True
    return False


def outside(paths: Sequence[str] | None, found: Sequence[Difference]) -> list[Difference]:
    """The differences ``paths`` (a stage's scope; None: the stage is not scoped) leave out.
    With no difference (the answer is another kind: a rejection against an output), the
    whole stage must be in scope."""
    if paths is None:
        return list(found)
    return [d for d in found if not covers(paths, d.path)]


def in_scope(paths: Sequence[str] | None, found: Sequence[Difference]) -> bool:
    """Whether the class applies to this stage's departure from Pi: every difference lies in
    scope, or, when the kinds differ, the whole stage is."""
    if paths is None:
        return False
    if not found:
        return WHOLE in paths
    return not outside(paths, found)


__all__ = ["WHOLE", "covers", "in_scope", "outside"]
