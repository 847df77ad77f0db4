"""The ``pi-conformance`` command line: the commands users run, and ``corpus`` for maintainers.

Exit codes: 0 success; 1 the run or check found failures, errors or stale goldens; 2 the
command could not do its job (bad input, missing reference, bad implementation spec).

This module imports click and no command: each command's module is imported when the command
is looked up (cli/lazy.py), and the listing of ``--help`` comes from cli/listing.py's table,
whose short help a test keeps equal to each command's own. So a command imports only what it
needs. The installed command starts in cli/entry.py, which writes the top-level help from the
same table without importing click at all, and hands every other command line to ``main``.
"""

from __future__ import annotations

import click

from conformance import __version__
from conformance.cli.lazy import LazyCommand, LazyCommands
from conformance.cli.listing import DESCRIPTION, SECTIONS

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
    from that table: listing them imports none of them. Every command runs inside
    ``friendly_errors``: the one place an expected problem becomes one line and exit 2, and
    Ctrl-C or SIGTERM "interrupted" and exit 130 or 143."""

    def invoke(self, ctx: click.Context) -> object:
        from conformance.cli.support import friendly_errors  # only once a command runs

        with friendly_errors():
            return super().invoke(ctx)

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


@click.group(cls=SectionedGroup, commands=_commands(), help=DESCRIPTION,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pi-conformance")
def main() -> None:
    """The top-level group (its help is listing.DESCRIPTION)."""


if __name__ == "__main__":
    main()
