"""The terminal rendering: failures with their diffs, the stage table, the verdict."""

from __future__ import annotations

import report_fixtures

from conformance.reporting.render import failure_lines, terminal_text

KNOWN = {("compaction.basic", "context"): {"state": "known", "reason": "we drop the user turn",
                                           "issue": "https://example.org/issues/7"}}


def test_terminal_snapshot(snapshot):
    report, _ = report_fixtures.build(known=KNOWN)
    assert terminal_text(report) == snapshot


def test_known_failures_are_not_listed_as_failures_and_the_run_fails_on_the_rest():
    report, _ = report_fixtures.build(known=KNOWN)
    text = terminal_text(report)
    assert "compaction.basic [context]" not in text
    assert "traps.two-timestamps [context] fail: 2 difference(s)" in text
    assert text.rstrip().endswith("baseline: 1 known, 0 stale")
    assert "FAILED 3 cases, 7 results" in text


def test_a_clean_run_says_passed():
    report, _ = report_fixtures.build([r for r in report_fixtures.results()
                                       if r.status in ("pass", "skip")])
    text = terminal_text(report)
    assert "PASSED 2 cases, 3 results: 2 passed, 0 failed, 0 errored, 1 skipped" in text


def test_stale_entries_are_shown_and_fail_the_run():
    stale = {("traps.two-timestamps", "entries"): {"state": "stale", "reason": "old",
                                                   "issue": ""}}
    missing = [{"case": "gone.case", "stage": "llm", "reason": "r", "issue": "",
                "problem": "no such case in the corpus"}]
    report, _ = report_fixtures.build(known=stale, stale_baseline=missing)
    text = terminal_text(report)
    assert "traps.two-timestamps [entries] pass" in text
    assert "stale baseline entry: it passes now" in text
    assert "stale baseline entry: gone.case llm: no such case in the corpus" in text


def test_rich_markup_in_session_content_is_printed_literally():
    report, _ = report_fixtures.build(hostile=True)
    text = terminal_text(report, width=300)
    assert report_fixtures.SCRIPT + report_fixtures.IMG in text
    report, _ = report_fixtures.build(implementation={"name": "[bold red]x[/]", "version": "1"})
    assert "[bold red]x[/] 1" in terminal_text(report)


def test_failure_lines_cut_long_diffs_unless_asked_for_all():
    result = {"case": "c", "stage": "s", "status": "fail", "message": "",
              "differences": [{"path": f"$.a[{i}]", "kind": "changed", "expected": i,
                               "actual": i + 1} for i in range(12)]}
    assert failure_lines(result)[-1] == "    … and 4 more difference(s)"
    assert len(failure_lines(result, limit=None)) == 1 + 3 * 12
