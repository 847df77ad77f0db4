"""Which values of a reference answer Pi invents: found by comparing runs, never assumed.

``corpus regenerate`` asks the reference the same case in several runs that differ in
randomness, clock and temporary paths (``VARIATIONS``); a JSON path whose value is not the same
in every run is volatile. Paths whose values were equal to each other in each run form one
group: Pi generated one value and reused it there (an entry's id and its child's parentId), so
an implementation must reuse one value in those places too. The result is ``Golden.volatile``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import golden_paths, read_golden
from conformance.corpus.jsonpath import generalize, get, json_path, parse
from conformance.corpus.stages import stage_sort_key

DAY_MS = 24 * 60 * 60 * 1000

# The runs of ``corpus regenerate``: the first as users run the reference (the golden is its
# answer), the others with a seeded randomness, a shifted clock and renamed temporary
# directories (harness.mjs reads these variables). Offsets are not whole days or seconds, so a
# shifted date, time of day and millisecond all differ.
VARIATIONS: tuple[Mapping[str, str], ...] = (
    {},
    {"PI_CONFORMANCE_SEED": "regenerate-1",
     "PI_CONFORMANCE_CLOCK_OFFSET": str(37 * DAY_MS + 3_723_417),
     "PI_CONFORMANCE_SCRATCH_TAG": "variation-1"},
    {"PI_CONFORMANCE_SEED": "regenerate-2",
     "PI_CONFORMANCE_CLOCK_OFFSET": str(401 * DAY_MS + 45_296_789),
     "PI_CONFORMANCE_SCRATCH_TAG": "variation-2"},
)
# ``corpus check`` compares a plain run with a variation regenerate never used.
CHECK_VARIATION: Mapping[str, str] = {
    "PI_CONFORMANCE_SEED": "check",
    "PI_CONFORMANCE_CLOCK_OFFSET": str(1009 * DAY_MS + 11_111_111),
    "PI_CONFORMANCE_SCRATCH_TAG": "check",
}


def _canonical(value: Any) -> bytes:
    """Equality as JSON sees it: ``true`` is not ``1``, key order does not matter."""
    return jsonio.canonical(value)  # lone surrogates (which Pi keeps in sessions) included


def _walk(values: Sequence[Any], steps: list[str | int]) -> Iterator[list[str | int]]:
    first = values[0]
    if all(isinstance(v, dict) for v in values) and all(v.keys() == first.keys()
                                                        for v in values):
        for key in first:
            yield from _walk([v[key] for v in values], [*steps, key])
    elif all(isinstance(v, list) for v in values) and all(len(v) == len(first) for v in values):
        for index in range(len(first)):
            yield from _walk([v[index] for v in values], [*steps, index])
    elif any(_canonical(v) != _canonical(first) for v in values[1:]):
        yield steps  # a leaf that differs, or a container whose shape does


def varying_paths(values: Sequence[Any]) -> list[str]:
    """The JSON paths, in document order, where ``values`` are not all the same.

    Where the shape itself differs (other keys, another list length, another type) the path
    of that object or list is the one named, not its members.
    """
    if len(values) < 2:
        return []
    return [json_path(steps) for steps in _walk(values, [])]


def volatile_groups(runs: Sequence[Any]) -> dict[str, str]:
    """``{path: group}`` for every path that varies between ``runs`` (one answer each).

    Paths belong to one group when their values were equal to each other in every run; a
    group is named after the last key of its first path and its number (``id-1``).
    """
    groups: dict[bytes, str] = {}
    found: dict[str, str] = {}
    for path in varying_paths(runs):
        signature = _canonical([get(run, path) for run in runs])
        if signature not in groups:
            key = next((s for s in reversed(parse(path)) if isinstance(s, str)), "value")
            groups[signature] = f"{key}-{len(groups) + 1}"
        found[path] = groups[signature]
    return found


def partition(volatile: Mapping[str, str]) -> frozenset[frozenset[str]]:
    """The groups as sets of paths: what two recordings must agree on, whatever the names."""
    members: dict[str, set[str]] = {}
    for path, group in volatile.items():
        members.setdefault(group, set()).add(path)
    return frozenset(frozenset(paths) for paths in members.values())


def within(path: str, volatile: Collection[str]) -> bool:
    """Whether ``path`` is a volatile path or lies inside one."""
    steps = parse(path)
    return any(steps[:len(parse(v))] == parse(v) for v in volatile)


def stable_differences(expected: Any, actual: Any, volatile: Collection[str]) -> list[str]:
    """Paths where ``actual`` differs from ``expected`` outside the volatile ones."""
    return [path for path in varying_paths([expected, actual]) if not within(path, volatile)]


def describe_change(recorded: Mapping[str, str], found: Mapping[str, str]) -> list[str]:
    """Why a golden's recorded volatile paths are not what a new variation finds."""
    problems = []
    unrecorded = sorted(found.keys() - recorded.keys())
    gone = sorted(recorded.keys() - found.keys())
    if unrecorded:
        problems.append("varies between runs but is not recorded as volatile: "
                        + ", ".join(unrecorded))
    if gone:
        problems.append("recorded as volatile but no longer varies: " + ", ".join(gone))
    if not problems and partition(recorded) != partition(found):
        problems.append("the volatile paths are grouped differently: a generated value is "
                        "reused in other places than recorded")
    return problems


def paths_by_stage(corpus: Corpus) -> dict[str, list[str]]:
    """Every volatile path recorded in the corpus's goldens, list positions as ``[*]``,
    per stage in stage order: the table docs/normalization.md shows."""
    found: dict[str, set[str]] = {}
    for case in corpus.cases:
        for path in golden_paths(case):
            stage = path.stem
            volatile = read_golden(case, stage).volatile
            if volatile:
                found.setdefault(stage, set()).update(generalize(p) for p in volatile)
    return {stage: sorted(found[stage]) for stage in sorted(found, key=stage_sort_key)}


def markdown_rows(table: Mapping[str, list[str]]) -> str:
    """``| stage | paths |`` rows, one per stage."""
    return "\n".join(f"| `{stage}` | " + ", ".join(f"`{p}`" for p in paths) + " |"
                     for stage, paths in table.items())


if __name__ == "__main__":  # python -m conformance.judging.volatility: the table's rows
    print(markdown_rows(paths_by_stage(Corpus())))
