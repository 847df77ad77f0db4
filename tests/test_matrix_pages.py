"""The matrix pages come from Jinja2 templates with the shared escaping: text from a session,
an implementation or an install log cannot open HTML, break a Markdown table or close a fence."""

from __future__ import annotations

import re
from pathlib import Path

from conformance.reporting import matrix

HOSTILE = "a | b <script>alert(1)</script> `x` ``` *y* [z](javascript:1)"
LINES = ["c.one [stats] fail: 1 difference(s)", "    $.text (changed)",
         "      expected: \"```\\n</pre><script>alert(2)</script>\"", "      actual:   \"````\""]


def data() -> dict:
    cell = {"pass": 0, "fail": 1, "error": 0, "skip": 0, "info": 0}
    return {
        "schema": matrix.SCHEMA, "runner": {"name": "pi-conformance", "version": "0"},
        "generated": "2026-01-01T00:00:00Z", "corpus": {"cases": 1},
        "stages": ["stats"], "features": ["timestamps"],
        "implementations": [
            {"key": "evil@1", "name": "evil", "version": "1", "language": HOSTILE,
             "summary": HOSTILE, "install_seconds": 0, "implementation": {},
             "claimed_stages": ["stats"], "partial": {}, "run_seconds": 0,
             "report": "implementations/evil@1.jsonl", "counts": cell,
             "stages": {"stats": cell}, "features": {"timestamps": cell}, "verdict": "failed",
             "failures": [{"case": "c.one", "stage": "stats", "status": "fail",
                           "lines": LINES}]},
            {"key": "gone@2", "name": "gone", "version": "2", "language": "go",
             "summary": "gone", "install_seconds": 0, "unavailable": HOSTILE},
        ],
    }


def cells(row: str) -> list[str]:
    """The cells of a Markdown table row: split on pipes that are not escaped."""
    return re.split(r"(?<!\\)\|", row)[1:-1]


def test_markdown_tables_keep_their_columns_and_open_no_html():
    text = matrix.markdown(data())
    assert "<script>" not in text
    assert not re.search(r"(?<!\\)\]\(javascript", text)  # no link: the bracket is escaped
    tables = re.findall(r"(?:^\|.*\n)+", text, re.MULTILINE)
    assert len(tables) == 3
    for table in tables:
        widths = {len(cells(row)) for row in table.splitlines()}
        assert len(widths) == 1, table
    assert len(cells(tables[0].splitlines()[2])) == len(matrix.IMPL_COLUMNS)
    assert "Not run: a \\| b &lt;script&gt;" in text


def test_a_failure_page_fences_its_diff_so_no_backtick_run_can_close_it():
    item = data()["implementations"][0]
    (stage, (_path, failures)), = matrix.failure_pages(item).items()
    page = matrix.failure_page(item, stage, failures)
    fence = re.search(r"^(`{3,})$", page, re.MULTILINE).group(1)
    assert len(fence) > max(len(run) for run in re.findall(r"`+", "\n".join(LINES)))
    body = page.split(fence + "\n", 1)[1].rsplit("\n" + fence, 1)[0]
    assert body == "\n".join(LINES)
    assert "<script>" not in page.split(fence)[0]  # the summary above the fence is escaped


def test_the_html_page_escapes_everything_it_did_not_write():
    page = matrix.html_page(data())
    assert "<script>" not in page and "</pre><script>" not in page
    assert "a | b &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<pre>") == page.count("</pre>") == 1
    assert '<td class="bad">FAIL 0/1</td>' in page


def test_no_page_needs_an_emoji_font():
    """Marks are words: CI logs and browsers without an emoji font showed empty boxes."""
    cells = [matrix.cell_text({"pass": p, "fail": f, "error": 0, "skip": 0, "info": 0}, True)
             for p, f in ((1, 0), (0, 1), (2, 1))]
    assert cells == ["pass 1/1", "FAIL 0/1", "FAIL 2/3"]
    templates = Path(matrix.__file__).parent / "templates"
    for template in templates.glob("*.jinja"):
        assert not re.search("[\U0001F000-\U0001FAFF\u2600-\u27BF]", template.read_text()), \
            template.name
