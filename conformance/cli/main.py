"""The ``pi-conformance`` command line: the commands users run, and ``corpus`` for maintainers.

Exit codes: 0 success; 1 the run or check found failures, errors or stale goldens; 2 the
command could not do its job (bad input, missing reference, bad implementation spec).

Every command module imports only click and the standard library at the top; the work, and
the libraries it needs, load when a command runs, so ``--help`` is instant.
"""

from __future__ import annotations

import copy

import click

from conformance import __version__
from conformance.cli.compare import compare
from conformance.cli.corpus import COMMANDS as CORPUS_COMMANDS
from conformance.cli.corpus import corpus
from conformance.cli.fuzz import fuzz
from conformance.cli.matrix import adapters, matrix
from conformance.cli.reference import reference
from conformance.cli.report import report
from conformance.cli.reports import baseline, diff, render
from conformance.cli.run import run
from conformance.cli.smoke import smoke


class SectionedGroup(click.Group):
    """A group whose ``--help`` lists its commands under headings, in the order added."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sections: dict[str, list[str]] = {}

    def add_section(self, heading: str, *commands: click.Command) -> None:
        for command in commands:
            self.add_command(command)
            assert command.name is not None
            self.sections.setdefault(heading, []).append(command.name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(n) for names in self.sections.values()
                                           for n in names)
        for heading, names in self.sections.items():
            rows = [(name, self.commands[name].get_short_help_str(limit)) for name in names]
            with formatter.section(heading):
                formatter.write_dl(rows)


@click.group(cls=SectionedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pi-conformance")
def main() -> None:
    """Score implementations of Pi's session and message formats against the real Pi."""


assert isinstance(main, SectionedGroup)
main.add_section("Score an implementation", run, compare, smoke, fuzz)
main.add_section("Reports", render, diff, baseline, report, matrix)
main.add_section("Set up", reference, adapters)
main.add_section("Maintain the corpus", corpus)

# The maintainers' commands were top-level before ``corpus`` grouped them: the old names
# still work, hidden from --help, with a deprecation warning naming the new one.
for _command in CORPUS_COMMANDS:
    _alias = copy.copy(_command)
    _alias.hidden = True
    _alias.deprecated = f"Use 'pi-conformance corpus {_command.name}'."
    main.add_command(_alias)


if __name__ == "__main__":
    main()
