"""The ``pi-conformance`` command line: the commands users run, and ``corpus`` for maintainers.

Exit codes: 0 success; 1 the run or check found failures, errors or stale goldens; 2 the
command could not do its job (bad input, missing reference, bad implementation spec).

This module imports click and no command: each command's module is imported when the command
is looked up (cli/lazy.py), and the listing of ``--help`` comes from the table below, whose
short help a test keeps equal to each command's own. So ``--help`` is instant, and a command
imports only what it needs.
"""

from __future__ import annotations

import click

from conformance import __version__
from conformance.cli.lazy import LazyCommand, LazyCommands

# The listing of --help: heading, then (name, where the command is, its help's first
# sentence). tests/test_cli_layout.py checks each against the command it names.
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Score an implementation": [
        ("run", "conformance.cli.run:run", "Score an implementation against the corpus."),
        ("compare", "conformance.cli.compare:compare",
         "Run session files through IMPL and the real Pi; Pi's answers are the goldens."),
        ("smoke", "conformance.cli.smoke:smoke",
         "Check an adapter's wiring: hello, one or two tiny cases, bye."),
        ("fuzz", "conformance.cli.fuzz:fuzz", "Fuzz IMPL against Pi with generated sessions."),
    ],
    "Reports": [
        ("render", "conformance.cli.reports:render",
         "Render a run's report: text, Markdown, JUnit, HTML or JSON."),
        ("diff", "conformance.cli.reports:diff",
         "What changed from run A to run B; exit 1 on new failures."),
        ("baseline", "conformance.cli.reports:baseline",
         "Write a known-failures file from a report's failures."),
        ("report", "conformance.cli.report:report",
         "Work on report streams: merge the shards of a run."),
        ("matrix", "conformance.cli.matrix:matrix",
         "Score every known implementation; write the matrix and drift."),
    ],
    "Set up": [
        ("reference", "conformance.cli.reference:reference",
         "Install the pinned, real Pi (the reference), show where, or ask it about files."),
        ("adapters", "conformance.cli.matrix:adapters",
         "List or install the known implementations."),
    ],
    "Maintain the corpus": [
        ("corpus", "conformance.cli.corpus:corpus",
         "Goldens, captures, fuzzer finds, coverage, discrepancies."),
    ],
}
# The maintainers' commands were top-level before ``corpus`` grouped them: the old names
# still work, hidden from --help, with a deprecation warning naming the new one.
DEPRECATED_ALIASES = ("regenerate", "check", "capture", "promote", "coverage", "discrepancies")


def _commands() -> LazyCommands:
    table = {name: LazyCommand(target, summary)
             for rows in SECTIONS.values() for name, target, summary in rows}
    for name in DEPRECATED_ALIASES:
        table[name] = LazyCommand(f"conformance.cli.corpus:{name}", alias_of=f"corpus {name}")
    return LazyCommands(table)


class SectionedGroup(click.Group):
    """A group whose ``--help`` lists its commands under headings, in the order of SECTIONS,
    from that table: listing them imports none of them."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        assert isinstance(self.commands, LazyCommands)
        table = self.commands.table
        limit = formatter.width - 6 - max(len(name) for rows in SECTIONS.values()
                                           for name, _, _ in rows)
        for heading, rows in SECTIONS.items():
            with formatter.section(heading):
                formatter.write_dl([
                    (name, table[name].short_help(limit) if name in table
                     else self.commands[name].get_short_help_str(limit))
                    for name, _, _ in rows])


@click.group(cls=SectionedGroup, commands=_commands(),
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pi-conformance")
def main() -> None:
    """Score implementations of Pi's session and message formats against the real Pi."""


if __name__ == "__main__":
    main()
