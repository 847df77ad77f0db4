"""The console every command prints to people through: it shows control characters as
visible escapes (``controls.printable``) and never reads text as Rich markup or emoji codes.

Paths, case ids, sessions and implementations' words reach the terminal, and any of them may
hold ``\\x1b]0;...\\x07`` (which retitles the window), ``\\x1b[2J`` (which clears it), ``[/x]``
(which Rich's markup parser refuses with an exception) or ``:smile:``. Styles are given as
``style=`` or as ``rich.text.Text`` spans, never as markup in a string.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from conformance.controls import printable


class SafeConsole(Console):
    """A rich Console with markup, emoji codes and highlighting off for good, and every
    character of text it renders made printable."""

    def __init__(self, **settings: Any):
        super().__init__(**{**settings, "markup": False, "emoji": False, "highlight": False})

    def render_str(self, text: str, **settings: Any) -> Text:
        """A string as plain text (Console.print, table cells, progress columns), printable
        before it is measured, so that tables and wrapping count what is shown."""
        settings.update(markup=False, emoji=False)
        return super().render_str(printable(text), **settings)

    def render(self, renderable: RenderableType,
               options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """Every segment of text, whatever made it (a ``Text`` given whole, a title): control
        segments are this console's own cursor moves and stay as they are."""
        for segment in super().render(renderable, options):
            yield segment if segment.control else Segment(
                printable(segment.text), segment.style, segment.control)


__all__ = ["SafeConsole"]
