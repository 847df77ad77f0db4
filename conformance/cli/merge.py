"""``pi-conformance report merge``: the reports of a sharded run (``--shard K/N``) as one."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from conformance.cli import options
from conformance.cli.support import stderr, verdict_exit_code


@click.group("report")
def report() -> None:
    """Work on report streams: merge the shards of a run."""


@report.command("merge")
@click.argument("paths", nargs=-1, required=True, metavar="SHARD.jsonl...",
                type=options.REPORT_FILE)
@options.OUTPUT
def merge(paths: tuple[Path, ...], output: Path | None) -> None:
    """Merge the reports of run/compare --shard K/N into one report.

    Refused (exit 2, naming the file) unless the reports are shards 1 to N of one run:
    the same corpus and implementation, no shard twice, none missing, no result in two.
    Exit 1 when the merged run failed, as run would have.
    """
    from conformance.reporting.merge import load_shards
    from conformance.reporting.merge import merge as merge_reports
    from conformance.reporting.stream import close_report, report_file

    shards = load_shards(paths)
    with report_file(output) as (path, stream):
        merged = merge_reports(shards, stream, path)
        close_report(stream, path)
        if output is None:
            sys.stdout.buffer.write(path.read_bytes())
    stderr().print(f"merged {len(paths)} shard(s): {len(merged.results)} result(s)"
                   + (f" -> {output}" if output else ""))
    sys.exit(verdict_exit_code(merged))
