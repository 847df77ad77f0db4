"""Merge the reports of a sharded run (``run/compare --shard K/N``) into one report.

The shards must be one run cut in N: the same corpus (its digest), the same implementation
(name, version, the ``--impl`` spec), the same selection apart from the shard, every shard
from 1 to N exactly once and no result in two shards. Anything else is refused with a
MergeError naming the files, because a merged report that silently mixed two corpora or
missed a shard would pass a CI gate it should fail. The merged report is the one an unsharded
run writes: results in case and stage order, the footer recounted, no shard in its header.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from conformance.corpus.shards import Shard
from conformance.corpus.stages import stage_sort_key
from conformance.errors import ConformanceError
from conformance.judging.results import StageResult
from conformance.reporting import stream as reports
from conformance.reporting.model import Header, Report


class MergeError(ConformanceError):
    """Reports that are not the shards of one run."""


def _shard(report: Report, path: Path) -> Shard:
    text = report.header.selection.shard
    if not text:
        raise MergeError("not a shard: its header records no --shard K/N", path=path)
    try:
        return Shard.parse(text)
    except ConformanceError as exc:  # a header edited, or written by a runner without bounds
        raise MergeError(str(exc), path=path) from None


def _identity(header: Header) -> tuple[object, ...]:
    """Everything the shards of one run share (the shard and the clock aside)."""
    selection = dataclasses.replace(header.selection, shard="")
    return (header.corpus.sha256, header.corpus.cases, header.corpus.version,
            header.name, header.version, selection, header.runner)


def _describe(header: Header) -> str:
    return (f"corpus {header.corpus.sha256[:12]} ({header.corpus.cases} cases), "
            f"{header.title}, --impl {header.selection.impl or '?'}")


def _stages(header: Header) -> str:
    return ", ".join(header.claimed_stages) or "none"


def check_shards(reports_by_path: Sequence[tuple[Path, Report]]) -> int:
    """The number of shards, once every check passes; a MergeError otherwise."""
    if not reports_by_path:
        raise MergeError("no report to merge")
    first_path, first = reports_by_path[0]
    count = _shard(first, first_path).count
    seen: dict[int, Path] = {}
    for path, report in reports_by_path:
        shard = _shard(report, path)
        if _identity(report.header) != _identity(first.header):
            raise MergeError(f"not the same run as {first_path}: "
                             f"{_describe(report.header)} vs {_describe(first.header)}",
                             path=path)
        if report.header.capabilities != first.header.capabilities:
            raise MergeError(
                "its implementation claimed other capabilities than in "
                f"{first_path} (stages {_stages(report.header)} vs {_stages(first.header)}): "
                "the shards did not judge the same stages, so their merge is no run",
                path=path)
        if shard.count != count:
            raise MergeError(f"shard {shard} of a {shard.count}-way split, but {first_path} "
                             f"is one of {count}", path=path)
        if shard.index in seen:
            raise MergeError(f"shard {shard} overlaps {seen[shard.index]}, which is the same "
                             "shard", path=path)
        seen[shard.index] = path
    missing = [str(k) for k in range(1, count + 1) if k not in seen]
    if missing:
        raise MergeError(f"missing shard(s) {', '.join(f'{k}/{count}' for k in missing)} "
                         f"(given: {', '.join(str(p) for _, p in sorted(seen.items()))})")
    owner: dict[tuple[str, str], Path] = {}
    for path, report in reports_by_path:
        for result in report.results:
            key = (result.case, result.stage)
            if key in owner:
                raise MergeError(f"{result.case} {result.stage} is also in {owner[key]}: the "
                                 "shards overlap", path=path)
            owner[key] = path
    return count


def load_shards(paths: Sequence[Path]) -> list[tuple[Path, Report]]:
    """Read and check the shards' reports, before anything is written."""
    loaded = [(path, reports.read_report(path)) for path in paths]
    check_shards(loaded)
    return loaded


def merge(loaded: Sequence[tuple[Path, Report]], stream: IO[bytes],
          out: Path | None = None) -> Report:
    """Write the merged report of checked shards (``load_shards``) on ``stream``."""
    ordered = sorted(loaded, key=lambda item: _shard(item[1], item[0]).index)
    first = ordered[0][1].header
    header = dataclasses.replace(
        first, selection=dataclasses.replace(first.selection, shard=""),
        started=min(report.header.started for _, report in ordered))
    writer = reports.ReportWriter(stream, header, out)
    results = sorted((r for _, report in ordered for r in report.results),
                     key=_order_key)
    for result in results:
        writer.add(result)
    stale = {entry: None for _, report in ordered for entry in report.stale_baseline}
    interrupted = any(report.interrupted for _, report in ordered)
    footer = writer.close(list(stale), interrupted=interrupted)
    writer.raise_failure()
    return Report(header, tuple(results), footer)


def _order_key(result: StageResult) -> tuple[str, int]:
    return (result.case, stage_sort_key(result.stage))
