"""The Jinja2 templates that published pages are written from (``reporting/templates/``).

HTML templates autoescape every ``{{ }}``; Markdown templates escape with the same helpers as
the Markdown report (render.md_text as the ``md`` filter, render.md_fence as ``fence``), so
text from a session or an implementation cannot open HTML or break a table or a fence.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from conformance._paths import PACKAGE_DIR
from conformance.reporting.render import md_fence, md_text


def _fence(lines: list[str], info: str = "") -> str:
    return "\n".join(md_fence(lines, info))


@cache
def _environment(html: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(PACKAGE_DIR / "reporting" / "templates"),
        autoescape=html,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_text
    env.filters["fence"] = _fence
    return env


def page(template: str, **context: Any) -> str:
    """``template`` (``*.html.jinja`` or ``*.md.jinja``) rendered with ``context``."""
    return _environment(template.endswith(".html.jinja")).get_template(template).render(
        **context)
