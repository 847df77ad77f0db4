"""The Pi release a port answers like most often: the matrix's "closest release" column.

A port scored against the pinned release cannot tell "I am wrong" from "I follow an older
Pi". When the matrix runs several Pi releases, each port's stage answers are compared with
each release's, as the drift report compares releases (the same kind, and for outputs no
difference under the suite's rules; a partial claim on its fields alone): the release with
the most equal answers is the one the port behaves like. A port of one layer was given the
pinned release's inputs, so on its stages this is an estimate: an older release would have
fed itself its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.corpus.cases import Corpus
from conformance.corpus.normalization import input_strings
from conformance.judging.judge import project_fields
from conformance.reporting.drift import answer_differences
from conformance.reporting.matrix import PI_RELEASES, Column

Answers = Mapping[str, Mapping[str, dict[str, Any]]]  # case id -> stage -> raw answer


def _cut(answer: dict[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    if not paths or "output" not in answer:
        return answer
    return {"output": project_fields(answer["output"], tuple(paths))}


def closest_release(port: Answers, fields: Mapping[str, Sequence[str]],
                    releases: Mapping[str, Answers],
                    known: Mapping[str, frozenset[str]]) -> dict[str, Any] | None:
    """Among ``releases`` (newest first), the one whose answers ``port`` gives most often
    (a tie goes to the newest), with the counts for each; None when nothing was compared."""
    by_release: dict[str, list[int]] = {}
    for release, answers in releases.items():
        equal = compared = 0
        for case, stages in port.items():
            for stage, mine in stages.items():
                theirs = answers.get(case, {}).get(stage)
                if theirs is None or "output" not in mine or "output" not in theirs:
                    continue
                compared += 1
                cut = fields.get(stage, ())
                if answer_differences(_cut(theirs, cut), mine, known.get(case, frozenset())) \
                        is None:
                    equal += 1
        by_release[release] = [equal, compared]
    if not any(compared for _, compared in by_release.values()):
        return None
    best = max(by_release, key=lambda r: (by_release[r][0], -list(by_release).index(r)))
    return {"release": best, "equal": by_release[best][0], "compared": by_release[best][1],
            "by_release": by_release}


def closest_releases(corpus: Corpus, columns: Sequence[Column]) -> dict[str, dict[str, Any]]:
    """For every column that is not a Pi release, its closest release (when the matrix ran
    at least two releases and the port answered something comparable)."""
    releases = [c for c in columns if c.name in PI_RELEASES and c.answers]
    if len(releases) < 2:
        return {}
    releases.sort(key=lambda c: tuple(int(p) for p in c.version.split(".") if p.isdigit()),
                  reverse=True)
    known = {case.id: input_strings(case.session_bytes()) for case in corpus.cases}
    found = {}
    for column in columns:
        if column.name in PI_RELEASES or not column.answers or column.report is None:
            continue
        fields = column.report.header.capabilities.get("fields", {})
        closest = closest_release(column.answers, fields, {c.key: c.answers for c in releases},
                                  known)
        if closest is not None:
            found[column.key] = closest
    return found


__all__ = ["closest_release", "closest_releases"]
