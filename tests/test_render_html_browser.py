"""Proof, in a real browser, that session content in the HTML report is inert text.

The report is rendered from content full of markup (script tags, onerror images, svg onload,
javascript: links), opened in headless Chromium, and the DOM Chromium built is inspected:
it has our one script and no injected element, the injected strings are there as text, and
our filter script ran (so scripts do run on the page; the injected ones just are not there).
A deliberately unescaped page is checked the same way, to show the check can fail.

CI installs Chromium (.ci/run) and sets PI_CONFORMANCE_REQUIRE_BROWSER=1, so this is never
skipped there; elsewhere it is skipped only when no Chromium is installed.
"""

from __future__ import annotations

import html.parser
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import report_fixtures

from conformance.reporting.render_html import html as render_html

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def browser() -> str:
    found = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    if found is None:
        if os.environ.get("PI_CONFORMANCE_REQUIRE_BROWSER"):
            pytest.fail("no Chromium found, and PI_CONFORMANCE_REQUIRE_BROWSER is set")
        pytest.skip("no Chromium installed (apt-get install chromium)")
    return found


def dump_dom(page: Path, profile: Path) -> str:
    """The DOM after load, scripts run, as Chromium serializes it."""
    command = [browser(), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--no-first-run",
               "--disable-component-update", "--disable-sync", "--disable-extensions",
               f"--user-data-dir={profile}", "--dump-dom", page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


class DomInventory(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag in self._in:
            while self._in.pop() != tag:
                pass

    def handle_data(self, data):
        self.text.append(data)

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)

    def handlers(self) -> list[tuple[str, str]]:
        return [(t, k) for t, a in self.tags for k in a if k.startswith("on")]


def inventory(dom: str) -> DomInventory:
    parsed = DomInventory()
    parsed.feed(dom)
    return parsed


def test_injected_markup_in_the_html_report_stays_text_in_chromium(tmp_path):
    report, _ = report_fixtures.build(hostile=True, known={
        ("compaction.basic", "context"): {"state": "known",
                                          "reason": "<img src=y onerror=alert(2)>",
                                          "issue": "javascript:alert(3)"}})
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    dom = inventory(dump_dom(page, tmp_path / "profile"))

    assert dom.count("script") == 1  # ours
    for tag in ("img", "svg", "b", "iframe", "object"):
        assert dom.count(tag) == 0, f"an injected <{tag}> made it into the DOM"
    assert dom.handlers() == []
    assert not [a for t, a in dom.tags if t == "a" and "javascript:" in (a.get("href") or "")]
    text = "".join(dom.text)
    assert report_fixtures.SCRIPT in text and report_fixtures.IMG in text
    assert "['<svg onload=alert(1)>']" in text
    assert "<img src=y onerror=alert(2)>" in text
    assert not [a for _, a in dom.tags if "data-pwned" in a], "an injected payload ran"
    assert "4 of 7 shown" in text  # our filter script ran: scripts do run on this page


def test_the_check_detects_an_unescaped_page(tmp_path):
    page = tmp_path / "unsafe.html"
    page.write_text("<!DOCTYPE html><html><head><title>x</title></head><body><p>"
                    + report_fixtures.IMG + "</p></body></html>", encoding="utf-8")
    dom = inventory(dump_dom(page, tmp_path / "profile"))
    assert dom.count("img") == 1 and dom.handlers() == [("img", "onerror")]
    html_tag = next(a for t, a in dom.tags if t == "html")
    assert html_tag.get("data-pwned") == "img"  # and the payload ran
