"""The renderings of a report by name: ``render --format`` and ``run --junit/--html/...``.

A registry apart from the renderers, so that none of them imports another (their shared
pieces are in text.py), and apart from formats.py, which only names them for the CLI's
``--help``: add a format by writing a ``Report -> str`` function, naming it in formats.py
and registering it here.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.reporting import render, render_html, render_junit
from conformance.reporting.formats import FORMATS
from conformance.reporting.model import Report

RENDERERS: dict[str, Callable[[Report], str]] = {
    "terminal": render.terminal_text,
    "markdown": render.markdown,
    "junit": render_junit.junit,
    "html": render_html.html,
    "json": render.json_summary,
}
assert tuple(RENDERERS) == FORMATS, "formats.FORMATS and the registry name the same formats"


def renderer(output_format: str) -> Callable[[Report], str]:
    """The function that renders a report as ``output_format`` (one of formats.FORMATS)."""
    return RENDERERS[output_format]
