"""The names of the report renderings, apart from the renderers themselves, so the CLI can
offer them as choices without importing rich, Jinja2 and the report model to say ``--help``."""

from __future__ import annotations

#: Every rendering of a finished report (``render --format``, renderers.renderer).
FORMATS = ("terminal", "markdown", "junit", "html", "json")
#: What ``run`` can print on stdout at the end; the others are files (``--junit``, ``--html``).
RUN_STDOUT_FORMATS = ("terminal", "json", "markdown")
