"""``pi-conformance matrix``'s runs: every known implementation on the same corpus, in turn.

For each registry entry (conformance/implementations/known) it installs the implementation
if need be and runs the cases through the one executor, with that implementation's canonical
report in ``implementations/``. It keeps every stage answer of Pi's own releases on the side,
so the drift report can say which releases agree with which. ``reporting/matrix.py`` renders
what it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from conformance.corpus.cases import Case, Corpus
from conformance.errors import ConformanceError
from conformance.execution.executor import execute
from conformance.execution.plan import RunPlan
from conformance.implementations.early import EarlyStart
from conformance.implementations.known import KNOWN, Entry, lookup
from conformance.implementations.specs import known_implementation
from conformance.reporting.matrix import PI_RELEASES, Column, portable_corpus_identity, report_name
from conformance.reporting.model import CorpusIdentity


def column_of(entry: Entry) -> Column:
    return Column(key=entry.spec, name=entry.name, version=entry.version,
                  summary=entry.summary, language=entry.language)


def run_one(entry: Entry, corpus: Corpus, cases: list[Case], out_dir: Path, plan: RunPlan,
            keep_answers: bool, identity: CorpusIdentity | None = None) -> Column:
    """Install (if need be) and run one implementation; failures become ``unavailable``."""
    column = column_of(entry)
    try:
        column.install_seconds = entry.install().seconds
        impl = known_implementation(entry)
    except ConformanceError as exc:
        column.unavailable = f"could not install: {exc.describe()}"
        return column
    path = out_dir / "implementations" / f"{report_name(entry.spec)}.jsonl"
    answers: dict[str, dict[str, Any]] = {}

    def keep(case: Case, results: dict[str, dict[str, Any]]) -> None:
        answers.setdefault(case.id, {}).update(results)

    started = time.perf_counter()
    early = EarlyStart.started(impl)
    try:
        early.hello()
    except ConformanceError as exc:
        early.discard()
        column.unavailable = f"could not start: {exc.describe()}"
        return column
    outcome = execute(replace(plan, implementation=entry.spec, report=path), corpus,
                      cases=cases, identity=identity or portable_corpus_identity(corpus),
                      early=early, keep_answers=keep if keep_answers else None)
    column.report = outcome.report
    column.run_seconds = time.perf_counter() - started
    column.answers = answers
    return column


def run_matrix(corpus: Corpus, entries: Iterable[Entry], out_dir: Path, plan: RunPlan, *,
               cases: list[Case] | None = None,
               on_start: Callable[[Entry], None] | None = None) -> list[Column]:
    """Run ``cases`` (default: the whole corpus) through each entry in turn."""
    cases = list(corpus.cases) if cases is None else cases
    identity = portable_corpus_identity(corpus)
    entries = list(entries)
    # Pi's releases' answers feed the drift report; with two releases or more, every port's
    # answers are kept too, to find the release each answers like (closest_release.py).
    keep_all = sum(1 for entry in entries if entry.name in PI_RELEASES) >= 2
    columns = []
    for entry in entries:
        if on_start is not None:
            on_start(entry)
        columns.append(run_one(entry, corpus, cases, out_dir, plan,
                               keep_answers=keep_all or entry.name in PI_RELEASES,
                               identity=identity))
    return columns


def select_entries(specs: Iterable[str]) -> list[Entry]:
    """The registry entries named by ``--impl`` values (all when none), in registry order,
    then any other Pi release named (``pi@1.3.0``), in the order given."""
    specs = list(specs)
    if not specs:
        return list(KNOWN)
    chosen = []
    for spec in specs:
        entry = lookup("pi@1.6.0" if spec == "reference" else spec)
        if entry is None:
            raise ConformanceError(f"{spec!r} is not a known implementation; known: "
                                   + ", ".join(e.spec for e in KNOWN))
        chosen.append(entry)
    return [e for e in KNOWN if e in chosen] + [e for e in chosen if e not in KNOWN]


__all__ = ["column_of", "run_matrix", "run_one", "select_entries"]
