"""The docs Pi ships in its npm package: the text a discrepancy record quotes.

Records quote ``docs/<file>.md`` as shipped in ``@earendil-works/pi-coding-agent``; a quote is
found when it occurs with runs of whitespace collapsed, so re-wrapped prose still matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DOCS_PACKAGE = "@earendil-works/pi-coding-agent"


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class ShippedDocs:
    """``docs/`` of one installed package: ``root`` is the package directory."""

    root: Path
    version: str

    @classmethod
    def of_reference(cls) -> ShippedDocs:
        from conformance.implementations import reference as ref

        installation = ref.require_installation()
        return cls(installation.prefix / "node_modules" / DOCS_PACKAGE,
                   installation.versions()[DOCS_PACKAGE])

    def text(self, file: str) -> str | None:
        """The collapsed text of ``file`` (``docs/message-types.md``), or None if not shipped."""
        return _read(self.root / file)

    def contains(self, file: str, quote: str) -> bool:
        text = self.text(file)
        return text is not None and _collapse(quote) in text

    def section_text(self, file: str, section: str) -> str | None:
        """The collapsed text under the heading ``section`` up to the next heading of the same
        or a higher level; the whole file when no heading has that title."""
        raw = _read_raw(self.root / file)
        if raw is None:
            return None
        lines = raw.splitlines()
        for start, line in enumerate(lines):
            match = _HEADING.match(line)
            if match and match.group(2).strip().strip("`").lower() == section.strip("`").lower():
                level = len(match.group(1))
                end = next((i for i in range(start + 1, len(lines))
                            if (h := _HEADING.match(lines[i])) and len(h.group(1)) <= level),
                           len(lines))
                return _collapse("\n".join(lines[start:end]))
        return _collapse(raw)

    def section_mentions(self, file: str, section: str, phrase: str) -> bool:
        text = self.section_text(file, section)
        return text is not None and _collapse(phrase).lower() in text.lower()


_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


@cache
def _read_raw(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _read(path: Path) -> str | None:
    raw = _read_raw(path)
    return None if raw is None else _collapse(raw)
