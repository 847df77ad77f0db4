"""The command line's shape: commands grouped for users and for corpus maintainers, one
definition per shared option, and a cheap import so ``--help`` is instant."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from conformance.cli import options
from conformance.cli.corpus import corpus
from conformance.cli.lazy import LazyCommands
from conformance.cli.main import main
from conformance.reporting.formats import FORMATS, RUN_STDOUT_FORMATS

MAINTAINERS = ["capture", "check", "coverage", "discrepancies", "promote", "regenerate"]
# Corpus commands added after the grouping have no deprecated top-level alias.
NEW_MAINTAINERS = ["block-matrix", "bump", "history", "responses"]
USERS = ["run", "compare", "smoke", "fuzz", "render", "diff", "baseline", "report", "matrix",
         "reference", "adapters"]


def every_command(group: click.Group = main, prefix: str = ""):
    """(path, command) for every visible command, however deep."""
    for name, command in group.commands.items():
        if command.hidden:
            continue
        yield f"{prefix}{name}", command
        if isinstance(command, click.Group):
            yield from every_command(command, f"{prefix}{name} ")


def option(command: click.Command, name: str) -> click.Option | None:
    return next((p for p in command.params if isinstance(p, click.Option) and name in p.opts),
                None)


def test_help_groups_the_users_commands_apart_from_the_corpus_group():
    text = CliRunner().invoke(main, ["--help"]).output
    headings = ["Score an implementation:", "Reports:", "Set up:", "Maintain the corpus:"]
    assert [text.index(h) for h in headings] == sorted(text.index(h) for h in headings)
    listed = [line.split()[0] for line in text.split("Score an implementation:")[1].splitlines()
              if line.startswith("  ")]
    assert sorted(listed) == sorted([*USERS, "corpus"])
    assert sorted(corpus.commands) == sorted(MAINTAINERS + NEW_MAINTAINERS)


@pytest.mark.parametrize("name", MAINTAINERS)
def test_the_old_top_level_names_are_hidden_deprecated_aliases(name):
    alias = main.commands[name]
    assert alias.hidden and alias.deprecated
    assert alias.callback is corpus.commands[name].callback


def test_an_old_name_still_works_and_says_what_replaces_it(corpus_dir):
    old = CliRunner().invoke(main, ["coverage", "--format", "json", "--corpus", str(corpus_dir)])
    new = CliRunner().invoke(main, ["corpus", "coverage", "--format", "json", "--corpus",
                                    str(corpus_dir)])
    assert old.exit_code == new.exit_code == 0, old.output
    assert old.stdout == new.stdout and '"clauses"' in new.stdout
    assert "Use 'pi-conformance corpus coverage'" in old.stderr
    assert "deprecated" not in new.stderr


@pytest.mark.parametrize(("flag", "shared"), [
    ("--timeout", options.TIMEOUT), ("--corpus", options.CORPUS), ("-k", options.CASES),
    ("--stage", options.STAGES), ("-o", options.OUTPUT)])
def test_a_shared_option_means_the_same_everywhere(flag, shared):
    reference = option(shared(click.command()(lambda **_: None)), flag)
    assert reference is not None
    users = [(path, option(command, flag)) for path, command in every_command()]
    users = [(path, found) for path, found in users if found is not None]
    assert len(users) >= 2, f"{flag} is offered by one command only: {users}"
    for path, found in users:
        assert (found.help, found.default, found.name) == (
            reference.help, reference.default, reference.name), path


def test_every_command_that_runs_an_implementation_for_a_case_has_the_same_timeout():
    timeouts = {path: option(command, "--timeout") for path, command in every_command()}
    assert {path for path, found in timeouts.items() if found is not None} == {
        "run", "compare", "smoke", "fuzz", "matrix", "corpus discrepancies", "corpus history",
        "corpus bump"}
    assert options.DEFAULT_TIMEOUT == 30.0  # docs/protocol.md documents this default


def test_every_single_implementation_option_is_the_shared_one():
    for path in ("run", "smoke", "fuzz"):
        command = main.commands[path]
        assert option(command, "--impl").help == f"The implementation: {options.IMPL_SPECS}."


def test_the_pytest_plugin_shares_the_defaults(tmp_path):
    text = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert "--pi-timeout" in text and f"(default {options.DEFAULT_TIMEOUT:g})" in text


def test_every_format_name_has_a_renderer():
    from conformance.reporting.renderers import renderer

    assert all(callable(renderer(name)) for name in FORMATS)
    assert set(RUN_STDOUT_FORMATS) <= set(FORMATS)


def test_importing_the_cli_imports_no_heavy_library():
    heavy = ("jsonschema", "deepdiff", "rich", "hypothesis", "jinja2", "orjson",
             "conformance.corpus.cases", "conformance.execution.runner")
    probe = ("import sys, conformance.cli.main; "
             f"print(' '.join(m for m in {heavy!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True).stdout.split()
    assert found == []


def modules_after(arguments: list[str]) -> list[str]:
    """The modules a fresh interpreter holds after running the CLI with ``arguments``."""
    probe = ("import sys; from conformance.cli.main import main\n"
             f"try:\n    main({arguments!r})\nexcept SystemExit:\n    pass\n"
             "print(' '.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return out.splitlines()[-1].split()


def test_help_works_without_importing_them_either():
    loaded = modules_after(["--help"])
    assert "jsonschema" not in loaded and "deepdiff" not in loaded


def test_help_imports_no_command_module():
    """The listing comes from listing.SECTIONS: --help imports click and the group, nothing else
    of ours (a command's module is imported when that command is looked up)."""
    ours = sorted(m for m in modules_after(["--help"]) if m.startswith("conformance"))
    assert ours == ["conformance", "conformance.cli", "conformance.cli.lazy",
                    "conformance.cli.listing", "conformance.cli.main"]


def test_looking_a_command_up_imports_its_module_only():
    loaded = modules_after(["render", "--help"])
    assert "conformance.cli.reports" in loaded
    assert not {"conformance.cli.run", "conformance.cli.fuzz", "conformance.cli.corpus",
                "conformance.cli.compare"} & set(loaded)


@pytest.mark.parametrize("limit", [12, 30, 45, 74, 200])
def test_the_listed_short_help_is_each_commands_own(limit):
    from conformance.cli.main import SECTIONS

    assert isinstance(main.commands, LazyCommands)
    for rows in SECTIONS.values():
        for name, _, _ in rows:
            command = main.commands[name]
            assert command.name == name and not command.hidden
            assert main.commands.table[name].short_help(limit) == \
                command.get_short_help_str(limit), name


def test_the_listing_names_every_visible_command_and_the_aliases_every_hidden_one():
    from conformance.cli.corpus import COMMANDS
    from conformance.cli.main import DEPRECATED_ALIASES, SECTIONS

    listed = [name for rows in SECTIONS.values() for name, _, _ in rows]
    visible = [name for name, command in main.commands.items() if not command.hidden]
    assert sorted(listed) == sorted(visible) == sorted([*USERS, "corpus"])
    hidden = [name for name, command in main.commands.items() if command.hidden]
    assert sorted(hidden) == sorted(DEPRECATED_ALIASES) == sorted(c.name for c in COMMANDS)


def test_an_unknown_command_is_still_refused_with_suggestions():
    result = CliRunner().invoke(main, ["rnu"])
    assert result.exit_code == 2
    assert "No such command 'rnu'" in result.output and "run" in result.output
