"""The terminal rendering: failures with their diffs, the stage table, the verdict."""

from __future__ import annotations

import report_fixtures

from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.reporting.render import terminal_text
from conformance.reporting.text import failure_lines

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
    result = StageResult("c", "s", "fail", "", [Difference(f"$.a[{i}]", "changed", i, i + 1)
                                                for i in range(12)])
    assert failure_lines(result)[-1] == "    … and 4 more difference(s)"
    assert len(failure_lines(result, limit=None)) == 1 + 3 * 12


CONTROL = "\x1b[2J\x1b]0;owned\x07\x00\x9b1m"


def control_report() -> object:
    return report_fixtures.build([
        StageResult("a.case", "context", "error", "crashed: " + CONTROL, error_kind="crash"),
        StageResult("a.case", "llm", "fail", "1 difference(s)",
                    [Difference("$.x", "changed", "<" + CONTROL, "plain" + CONTROL)]),
    ], implementation={"name": "port" + CONTROL, "version": "1"})[0]


def test_control_characters_from_an_implementation_never_reach_the_terminal_raw():
    text = terminal_text(control_report(), width=400)  # type: ignore[arg-type]
    for raw in ("\x1b", "\x00", "\x07", "\x9b"):
        assert raw not in text
    assert "crashed: \\x1b[2J\\x1b]0;owned\\x07\\x00\\x9b1m" in text
    assert "port\\x1b[2J" in text


def test_an_interrupted_run_is_shown_as_interrupted_never_as_passed():
    report, _ = report_fixtures.build([StageResult("a.case", "context", "pass")],
                                      interrupted=True)
    text = terminal_text(report)
    assert "INTERRUPTED 1 cases, 1 results: 1 passed" in text
    assert "PASSED" not in text and "the run was interrupted" in text
    assert report.failed()


def test_as_documented_results_are_counted_and_shown_but_never_fail_the_run():
    report, _ = report_fixtures.build([StageResult("a.case", "context", "pass"),
                                       StageResult("a.case", "llm", "as-documented",
                                                   "Pi throws here; the docs call it valid")])
    text = terminal_text(report)
    assert "PASSED 1 cases, 2 results: 1 passed, 0 failed, 0 errored, 0 skipped, 0 info, " \
           "1 as documented" in text
    assert "as documented" in text.splitlines()[1] + text  # the stage table has its column
    assert not report.failed()


def test_the_statuses_that_never_fail_are_explained_under_the_table():
    results = [r for r in report_fixtures.results() if r.status in ("pass", "skip")]
    text = terminal_text(report_fixtures.build(results)[0])
    assert "skipped: a stage or feature the implementation does not claim. None fails a run " \
        "(docs/reports.md)." in text
    assert "info:" not in text and "as documented:" not in text
    passing = terminal_text(report_fixtures.build(
        [r for r in results if r.status == "pass"])[0])
    assert "None fails a run" not in passing
    every = terminal_text(report_fixtures.build()[0])
    assert "info: no behaviour is required there" in every
