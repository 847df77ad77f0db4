"""``pi-conformance corpus coverage``: the clause catalogue and the corpus, side by side.

Terminal output is a set of rich tables for people; ``--format json`` is one object that
follows ``schemas/coverage.schema.json``. ``--fail-uncovered`` turns any uncovered clause into
exit code 1, for CI.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from conformance.cli import options
from conformance.cli.support import console, load_corpus, styled

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from conformance.maintenance.coverage import Coverage


def _table(title: str, label: str, counts: dict[str, list[str]], total: int) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column(label)
    table.add_column("cases", justify="right")
    table.add_column("share", justify="right")
    for name, cases in counts.items():
        share = f"{100 * len(cases) / total:.0f}%" if total else "-"
        style = "red" if not cases else None
        table.add_row(name, str(len(cases)), share, style=style)
    return table


def _matrix_table(coverage: Coverage) -> Table:
    """Rows variant x API, columns stop reasons: filled cells of (replay x reasoning)."""
    from rich.table import Table

    from conformance.maintenance.block_axes import API_SHORT, NOT_APPLICABLE, STOP_REASONS

    cells = coverage.matrix.cells
    stops = [*STOP_REASONS, NOT_APPLICABLE]
    table = Table(title="Content blocks x provider APIs: filled cells of same/other model x "
                        "reasoning off/on, by stop reason of the turn", title_justify="left")
    table.add_column("block variant", no_wrap=True)
    table.add_column("api", no_wrap=True)
    for stop in stops:
        table.add_column(stop, justify="right")
    rows: dict[tuple[str, str], dict[str, list[bool]]] = {}
    for cell, cases in cells.items():
        row = rows.setdefault((cell.variant, cell.api), {})
        row.setdefault(cell.stop, []).append(bool(cases))
    for (variant, api), row in rows.items():
        texts = [f"{sum(row[stop])}/{len(row[stop])}" if stop in row else "" for stop in stops]
        full = all(all(filled) for filled in row.values())
        table.add_row(variant, API_SHORT.get(api, api), *texts, style=None if full else "red")
    return table


def _responses_table(coverage: Coverage) -> Table:
    """Rows content kind x API, columns endings: the response cells filled (a count of cases),
    '-' where Pi cannot produce the cell."""
    from rich.table import Table

    from conformance.maintenance.block_axes import API_SHORT
    from conformance.maintenance.response_matrix import CONTENT_KINDS, ENDINGS

    matrix = coverage.responses
    table = Table(title="Provider responses: content x ending, cases per cell "
                        f"({sum(matrix.responses.values())} responses)", title_justify="left")
    table.add_column("content", no_wrap=True)
    table.add_column("api", no_wrap=True)
    for end in ENDINGS:
        table.add_column(end, justify="right")
    by_key = {(cell.content, cell.api, cell.ending): cases for cell, cases in matrix.cells.items()}
    for kind in CONTENT_KINDS:
        for api in matrix.responses:
            row = [by_key.get((kind, api, end)) for end in ENDINGS]
            if all(cases is None for cases in row):
                continue
            texts = ["-" if cases is None else str(len(cases)) for cases in row]
            full = all(cases is None or cases for cases in row)
            table.add_row(kind, API_SHORT.get(api, api), *texts, style=None if full else "red")
    return table


def render_terminal(coverage: Coverage, console: Console) -> None:
    """Readable tables: clause files, stages, APIs, features, then what is missing."""
    from rich.table import Table
    from rich.text import Text

    total = len(coverage.cases)
    console.print(Text.assemble(
        (f"{coverage.clauses_covered}/{len(coverage.clauses)}", "bold"), " clauses covered by ",
        (str(total), "bold"), f" case(s); {len(coverage.excluded)} documented rule(s) excluded "
        "from the catalogue; outcomes: "
        + ", ".join(f"{name} {count}" for name, count in coverage.outcomes.items())))
    files = Table(title="Clauses by catalogue file", title_justify="left")
    for column in ("file", "clauses", "covered", "uncovered", "excluded"):
        files.add_column(column, justify="left" if column == "file" else "right")
    for item in coverage.files:
        missing = item.total - item.covered
        files.add_row(item.name, str(item.total), str(item.covered), str(missing),
                      str(item.excluded), style="red" if missing else None)
    console.print(files)
    console.print(_table("Stages by cases", "stage", coverage.stages, total))
    console.print(_table("APIs by cases", "api", coverage.apis, total))
    console.print(_table("Features by cases", "feature", coverage.features, total))
    console.print(_matrix_table(coverage))
    if any(coverage.responses.responses.values()):
        console.print(_responses_table(coverage))
        empty_responses = coverage.responses.empty
        if empty_responses:
            console.print(f"{len(empty_responses)} empty response cell(s) Pi can produce",
                          style="bold red")
    empty = coverage.matrix.empty
    if empty:
        console.print(f"{len(empty)} empty matrix cell(s) Pi can produce:", style="bold red")
        for cell in empty:
            console.print(f"  {cell.key}", highlight=False)
    else:
        console.print(f"all {len(coverage.matrix.cells)} matrix cells Pi can produce are "
                      "filled", style="green")
    if coverage.uncovered:
        console.print(f"{len(coverage.uncovered)} uncovered clause(s):", style="bold red")
        for clause in coverage.uncovered:
            console.print(f"  {clause}", highlight=False)
    else:
        console.print("every clause is cited by at least one case", style="green")
    for clause, cases in coverage.unknown_clauses.items():
        console.print(styled("red", "unknown clause"), f"{clause} cited by {', '.join(cases)}")


@click.command()
@click.option("--format", "output_format", default="terminal", show_default=True,
              type=click.Choice(["terminal", "json"]), help="Tables for people, or JSON.")
@click.option("--fail-uncovered", is_flag=True,
              help="Exit with 1 when a clause is not cited by any case.")
@options.CORPUS
def coverage(output_format: str, fail_uncovered: bool, corpus_path: Path | None) -> None:
    """Clauses, stages, features, APIs and the block matrix, by the cases."""
    from conformance import jsonio
    from conformance.maintenance.coverage import compute

    result = compute(load_corpus(corpus_path))
    if output_format == "json":
        click.echo(jsonio.dumps_pretty(result.to_json()), nl=False)
    else:
        render_terminal(result, console())
    sys.exit(1 if fail_uncovered and (result.uncovered or result.unknown_clauses) else 0)
