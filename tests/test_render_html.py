"""The HTML report: self-contained, filterable, every string escaped, only http(s) links."""

from __future__ import annotations

import html.parser

import report_fixtures

from conformance.reporting.render_html import html as render_html
from conformance.reporting.render_html import web_link


class Elements(html.parser.HTMLParser):
    """Every start tag with its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(text)
    return parser.tags


def test_the_page_is_self_contained():
    report, _ = report_fixtures.build()
    tags = parse(render_html(report))
    assert not [t for t, a in tags if t in ("link", "img", "iframe", "object")]
    assert [a for t, a in tags if t == "script"] == [{}]  # one inline script, no src
    csp = next(a["content"] for t, a in tags
               if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp


def test_one_row_per_result_with_status_and_diffs():
    report, _ = report_fixtures.build()
    text = render_html(report)
    rows = [a for t, a in parse(text) if t == "tbody" and a.get("class", "").startswith("result")]
    assert len(rows) == 7
    assert sorted(r["data-status"] for r in rows) == ["error", "fail", "fail", "info", "pass",
                                                      "pass", "skip"]
    assert "$.messages[1].timestamp" in text and "1733234401000" in text
    assert 'value="fail" checked' in text and 'value="pass">' in text


def test_hostile_content_is_escaped_everywhere():
    report, _ = report_fixtures.build(hostile=True, known={
        ("compaction.basic", "context"): {"state": "known", "reason": "<b>r</b>",
                                          "issue": "javascript:alert(1)"}})
    text = render_html(report)
    tags = parse(text)
    assert [t for t, _ in tags].count("script") == 1
    assert not [t for t, _ in tags if t in ("img", "svg", "b")]
    assert not [a for _, a in tags if any(k.startswith("on") for k in a)]
    assert not [a for _, a in tags if "javascript:" in (a.get("href") or "")]
    assert "&lt;script&gt;document.documentElement" in text
    assert "&lt;img src=x onerror=" in text


def test_links_are_made_only_from_web_urls():
    assert web_link("https://example.org/x") == "https://example.org/x"
    assert web_link(" JavaScript:alert(1)") == ""
    assert web_link("data:text/html,x") == ""
    assert web_link(None) == ""


def test_a_run_with_only_passes_shows_them_by_default():
    from conformance.judging.results import StageResult

    report, _ = report_fixtures.build([StageResult("a.b", "context", "pass")])
    assert 'value="pass" checked' in render_html(report)


def test_an_interrupted_run_shows_as_interrupted_in_html():
    from conformance.judging.results import StageResult

    report, _ = report_fixtures.build([StageResult("a.case", "context", "pass"),
                                       StageResult("a.case", "llm", "as-documented")],
                                      interrupted=True)
    page = render_html(report)
    assert 'class="verdict interrupted" id="verdict">INTERRUPTED<' in page
    assert 'id="interrupted"' in page and "PASSED" not in page
    assert '<th>as documented</th>' in page and 'value="as-documented"' in page
