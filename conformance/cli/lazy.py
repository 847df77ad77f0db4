"""Commands imported only when used, so ``pi-conformance --help`` imports click and no command.

A command module imports what its command needs (the corpus, the runner, the renderers); the
top-level group lists every command's name and short help from a table instead, and imports
a module the first time one of its commands is looked up (to run it, or for its own --help).
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

import click


@dataclass(frozen=True)
class LazyCommand:
    """Where a command is defined (``module:attribute``) and its help's first paragraph, from
    which the listing's short help is made exactly as click makes it from the command."""

    target: str
    summary: str = ""
    alias_of: str | None = None  # a deprecated, hidden old name: the new command's full name

    def load(self) -> click.Command:
        module, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        if self.alias_of is None:
            return command
        alias = copy.copy(command)
        alias.hidden = True
        alias.deprecated = f"Use 'pi-conformance {self.alias_of}'."
        return alias

    def short_help(self, limit: int) -> str:
        # What the command itself would show, without importing it: click's public way
        # (click.utils.make_default_short_help is deprecated since click 8.5).
        return click.Command(None, help=self.summary).get_short_help_str(limit)


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's ``commands``: the names are known up front, each command is imported the
    first time it is looked up. Commands added directly are kept as given."""

    def __init__(self, table: dict[str, LazyCommand]) -> None:
        self.table = dict(table)
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded:
            self.loaded[name] = self.table[name].load()
        return self.loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self.loaded[name] = command
        self.table.pop(name, None)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self.loaded.pop(name, None)
        self.table.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self.table, *self.loaded]))

    def __len__(self) -> int:
        return len(self.table.keys() | self.loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self.table or name in self.loaded
