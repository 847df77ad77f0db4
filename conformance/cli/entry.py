"""The installed ``pi-conformance`` command: the top-level help without importing click.

Importing click costs 25-30 ms, a third of the budget for ``pi-conformance --help`` (issue 17:
under 100 ms), yet that page is only cli/listing.py's table laid out. So this entry point
writes it itself, laid out as click lays it out, for exactly ``--help``, ``-h`` and no
argument (which click answers with the same page, on stderr, exit 2). Any other command line,
a subcommand's help included, goes to the click group in cli/main.py unchanged.
tests/test_cli_entry.py holds the page byte for byte equal to click's, at many widths.
"""

from __future__ import annotations

import os
import sys

from conformance.cli.listing import DESCRIPTION, SECTIONS

HELP_ARGUMENTS = (["--help"], ["-h"])
USAGE_ARGUMENTS = "[OPTIONS] COMMAND [ARGS]..."
OPTIONS = [("--version", "Show the version and exit."),
           ("-h, --help", "Show this message and exit.")]


def main() -> None:
    """Write the top-level help if that is all the command line asks for, else run click."""
    arguments = sys.argv[1:]
    prog = os.path.basename(sys.argv[0])
    if (arguments in ([], *HELP_ARGUMENTS) and run_as_a_file()
            and completion_variable(prog) not in os.environ):
        stream = sys.stdout if arguments else sys.stderr
        try:
            if stream is not None:  # None when the descriptor is closed: click writes nothing
                stream.write(top_level_help(prog, help_width()))
                stream.flush()
        except BrokenPipeError:  # as click: exit 1, and no second error at exit's flush
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
            sys.exit(1)
        sys.exit(0 if arguments else 2)
    from conformance.cli.main import main as group

    group()


def run_as_a_file() -> bool:
    """click names the program ``python -m ...`` when run with ``-m``: leave that to click."""
    return getattr(sys.modules["__main__"], "__package__", None) in (None, "")


def completion_variable(prog: str) -> str:
    """The variable that makes click answer shell completion instead of the command line."""
    return f"_{prog}_COMPLETE".replace("-", "_").upper()


def help_width() -> int:
    """click's width for help: the terminal's less 2, at most 78, at least 50."""
    import shutil

    return max(min(shutil.get_terminal_size().columns, 80) - 2, 50)


def top_level_help(prog: str, width: int) -> str:
    """The page click writes for ``prog --help`` at ``width``, newline included."""
    lines = [usage(prog, width), "", wrapped(DESCRIPTION, width, "  "), "", "Options:",
             definition_list(OPTIONS, width)]
    limit = width - 6 - max(len(name) for rows in SECTIONS.values() for name, _, _ in rows)
    for heading, rows in SECTIONS.items():
        lines += ["", f"{heading}:", definition_list(
            [(name, short_help(summary, limit)) for name, _, summary in rows], width)]
    return "\n".join(lines) + "\n"


def usage(prog: str, width: int) -> str:
    prefix = f"Usage: {prog} "
    if width >= len(prefix) + 20:
        return wrapped(USAGE_ARGUMENTS, width, prefix, " " * len(prefix))
    return prefix + "\n" + wrapped(USAGE_ARGUMENTS, width, " " * 11)


def definition_list(rows: list[tuple[str, str]], width: int, indent: int = 2) -> str:
    """click's ``HelpFormatter.write_dl`` at one level of indentation."""
    first_column = min(max(len(term) for term, _ in rows), 30) + 2
    lines = []
    for term, text in rows:
        head = " " * indent + term
        if not text:
            lines.append(head)
            continue
        if len(term) <= first_column - 2:
            head += " " * (first_column - len(term))
        else:
            lines.append(head)
            head = " " * (first_column + indent)
        body = wrapped(text, max(width - first_column - 2, 10)).splitlines() or [""]
        lines.append(head + body[0])
        lines += [" " * (first_column + indent) + line for line in body[1:]]
    return "\n".join(lines)


def wrapped(text: str, width: int, indent: str = "", subsequent: str | None = None) -> str:
    import textwrap

    return textwrap.TextWrapper(width, initial_indent=indent, replace_whitespace=False,
                                subsequent_indent=indent if subsequent is None
                                else subsequent).fill(text)


def short_help(summary: str, limit: int) -> str:
    """click's ``make_default_short_help`` for one sentence: whole if it fits, else cut at a
    word with "..." (or at a full stop, without)."""
    words = summary.split()
    length = 0
    for index, word in enumerate(words):
        length += len(word) + (index > 0)
        if length > limit:
            break
        if word.endswith("."):
            return " ".join(words[:index + 1])
        if length == limit and index != len(words) - 1:
            break
    else:
        return " ".join(words)
    length += 3
    while index > 0:
        length -= len(words[index]) + 1
        if length <= limit:
            break
        index -= 1
    return " ".join(words[:index]) + "..."
