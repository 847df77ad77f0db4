"""Markdown for CI step summaries: readable, and session text can neither inject HTML nor
break out of its code block."""

from __future__ import annotations

import re

import report_fixtures

from conformance.reporting.render import markdown, md_fence, md_text

KNOWN = {("compaction.basic", "context"): {"state": "known", "reason": "we drop the user turn",
                                           "issue": "https://example.org/issues/7"}}


def test_markdown_snapshot(snapshot):
    report, _ = report_fixtures.build(known=KNOWN)
    assert markdown(report) == snapshot


def test_hostile_markdown_snapshot(snapshot):
    report, _ = report_fixtures.build(hostile=True)
    assert markdown(report) == snapshot


def outside_fences(text: str) -> str:
    """The text with every fenced block removed (fences of 3 or more backticks, matched)."""
    out, fence = [], None
    for line in text.splitlines():
        match = re.match(r"^(`{3,})", line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line == fence:
            fence = None
        elif fence is None:
            out.append(line)
    assert fence is None, "a fence was left open"
    return "\n".join(out)


def test_session_text_stays_inside_its_fence_or_is_escaped():
    report, _ = report_fixtures.build(hostile=True)
    text = outside_fences(markdown(report))
    assert "<script" not in text and "<img" not in text and "<b>" not in text
    assert "demo&lt;script&gt;" in text
    assert text.count("<details>") == text.count("</details>") == 3  # one per failure


def test_a_fence_is_longer_than_any_backtick_run_inside():
    assert md_fence(["a ``` b", "````"])[0] == "`````text"
    assert md_fence(["plain"])[0] == "```text"


def test_inline_text_escapes_markdown_and_html():
    assert md_text("a|b *c* <x> & [l](u)") == r"a\|b \*c\* &lt;x&gt; &amp; \[l\](u)"
    assert md_text("two\nlines") == "two lines"


def test_stale_entries_and_known_failures_have_their_sections():
    missing = [{"case": "gone", "stage": "llm", "reason": "r", "issue": "",
                "problem": "no such case in the corpus"}]
    report, _ = report_fixtures.build(known=KNOWN, stale_baseline=missing)
    text = markdown(report)
    assert "### Stale baseline entries\n\n- stale baseline entry: gone llm: no such case" in text
    assert "| compaction.basic | context | we drop the user turn | " \
           "https://example.org/issues/7 |" in text
    assert text.startswith("## pi-conformance: demo-port 2.1.0\n\n**FAILED**")


def test_a_huge_run_is_cut_to_fit_a_step_summary():
    from conformance.judging.results import StageResult

    many = [StageResult(f"case.{i:03}", "context", "fail", "1 difference(s)")
            for i in range(120)]
    report, _ = report_fixtures.build(many)
    text = markdown(report)
    assert text.count("<details>") == 50
    assert "… and 70 more: see the full report." in text


def test_control_characters_never_reach_markdown_raw():
    from conformance.judging.comparison import Difference
    from conformance.judging.results import StageResult

    control = "\x1b[31mred\x00\x9b"
    report, _ = report_fixtures.build([
        StageResult("a.case", "context", "error", "boom " + control, error_kind="crash"),
        StageResult("a.case", "llm", "fail", control, [Difference("$.x", "changed", 1, control)]),
    ], implementation={"name": "port" + control, "version": "1"})
    text = markdown(report)
    assert not any(ch in text for ch in "\x1b\x00\x9b")
    assert "boom \\x1b[31mred\\x00\\x9b" in text  # inside the code fence, as written
    assert md_text(control) == r"\\x1b\[31mred\\x00\\x9b"


def test_interrupted_and_as_documented_in_markdown():
    from conformance.judging.results import StageResult

    report, _ = report_fixtures.build([StageResult("a.case", "context", "as-documented")],
                                      interrupted=True)
    text = markdown(report)
    assert "**INTERRUPTED**" in text and "PASSED" not in text
    assert "| stage | passed | failed | errored | skipped | info | as documented |" in text
    assert "| context | 0 | 0 | 0 | 0 | 0 | 1 |" in text
