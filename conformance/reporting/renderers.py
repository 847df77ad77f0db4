"""The renderings of a report by name: ``render --format`` and ``run --junit/--html/...``.

A registry apart from the renderers, so that none of them imports another (their shared
pieces are in text.py), and apart from formats.py, which only names them for the CLI's
``--help``: add a format by writing a ``Report -> str`` function, naming it in formats.py
and registering it here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping

from conformance.reporting.formats import FORMATS
from conformance.reporting.model import Report

# Where each renderer is (module in conformance.reporting, function): imported when a format
# is asked for, so a run that writes JSON does not import jinja2 for HTML.
_WHERE = {
    "terminal": ("render", "terminal_text"),
    "markdown": ("render", "markdown"),
    "junit": ("render_junit", "junit"),
    "html": ("render_html", "html"),
    "json": ("render", "json_summary"),
}
assert tuple(_WHERE) == FORMATS, "formats.FORMATS and the registry name the same formats"


def renderer(output_format: str) -> Callable[[Report], str]:
    """The function that renders a report as ``output_format`` (one of formats.FORMATS)."""
    module, function = _WHERE[output_format]
    found: Callable[[Report], str] = getattr(
        importlib.import_module(f"conformance.reporting.{module}"), function)
    return found


class _Renderers(Mapping[str, Callable[[Report], str]]):
    """Every renderer by format name, each imported when looked up."""

    def __getitem__(self, output_format: str) -> Callable[[Report], str]:
        return renderer(output_format)

    def __iter__(self) -> Iterator[str]:
        return iter(_WHERE)

    def __len__(self) -> int:
        return len(_WHERE)


RENDERERS: Mapping[str, Callable[[Report], str]] = _Renderers()
