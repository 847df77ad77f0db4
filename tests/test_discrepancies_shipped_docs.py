"""Finding quotes and mentions in the docs Pi ships."""

from __future__ import annotations

from conformance.maintenance.discrepancies.shipped_docs import ShippedDocs

DOC = """# Title

Intro text that mentions the leaf.

## Tree Structure

The "leaf" is the current
position in the tree.

### Detail

Still part of the tree section.

## Other

The last entry is the leaf.
"""


def docs(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "session-format.md").write_text(DOC)
    return ShippedDocs(tmp_path, "1.2.3")


def test_a_quote_is_found_across_line_breaks(tmp_path):
    shipped = docs(tmp_path)
    assert shipped.contains("docs/session-format.md", 'The "leaf" is the current position')
    assert not shipped.contains("docs/session-format.md", "no such sentence")
    assert not shipped.contains("docs/missing.md", "anything")
    assert shipped.text("docs/missing.md") is None


def test_mentions_are_looked_for_in_the_section_and_its_subsections_only(tmp_path):
    shipped = docs(tmp_path)
    section = shipped.section_text("docs/session-format.md", "Tree Structure")
    assert "Still part of the tree section." in section
    assert "last entry" not in section
    assert not shipped.section_mentions("docs/session-format.md", "Tree Structure", "last entry")
    assert shipped.section_mentions("docs/session-format.md", "Other", "LAST ENTRY")


def test_an_unknown_section_means_the_whole_file(tmp_path):
    shipped = docs(tmp_path)
    assert shipped.section_mentions("docs/session-format.md", "Nowhere", "last entry")
