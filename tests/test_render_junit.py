"""JUnit XML: one suite per case, one testcase per stage, failures carrying the diff."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import report_fixtures

from conformance.judging.results import StageResult
from conformance.reporting.render_junit import junit, xml_safe

KNOWN = {("compaction.basic", "context"): {"state": "known", "reason": "we drop the user turn",
                                           "issue": "https://example.org/issues/7"}}


def test_junit_snapshot(snapshot):
    report, _ = report_fixtures.build(known=KNOWN)
    assert junit(report) == snapshot


def test_counts_and_layout():
    report, _ = report_fixtures.build(known=KNOWN)
    root = ET.fromstring(junit(report))
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "7", "failures": "1", "errors": "1", "skipped": "2"}
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["compaction.basic", "migrations.v1", "traps.two-timestamps"]
    cases = [(c.get("classname"), c.get("name")) for c in suites["traps.two-timestamps"]]
    assert cases == [("traps.two-timestamps", "entries"), ("traps.two-timestamps", "context"),
                     ("traps.two-timestamps", "stats"),
                     ("traps.two-timestamps", "request.openai-responses")]
    failure = suites["traps.two-timestamps"].find("testcase[@name='context']/failure")
    assert failure is not None and failure.get("message") == "2 difference(s)"
    assert '$.messages[1].timestamp (type changed)' in failure.text
    known = suites["compaction.basic"].find("testcase[@name='context']/skipped")
    assert known is not None and known.get("type") == "known-failure"
    assert "we drop the user turn (https://example.org/issues/7)" in known.get("message")


def test_hostile_text_round_trips_as_text():
    report, _ = report_fixtures.build(hostile=True)
    root = ET.fromstring(junit(report))
    error = root.find(".//testcase[@name='stats']/error")
    assert error is not None
    assert error.get("message") == report_fixtures.IMG + report_fixtures.FENCE
    assert not list(root.iter("script")) and not list(root.iter("img"))


def test_characters_xml_cannot_hold_are_replaced_so_the_file_still_parses():
    bad = "nul\x00 bell\x07 esc\x1b tab\t ok"
    report, _ = report_fixtures.build([StageResult("c.x", "context", "error", bad)])
    root = ET.fromstring(junit(report))
    assert root.find(".//error").get("message") == r"nul\x00 bell\x07 esc\x1b tab	 ok"
    assert xml_safe("\ufffe") == r"\xfffe"


def test_stale_entries_are_failures_in_their_own_suite():
    stale = {("traps.two-timestamps", "entries"): {"state": "stale", "reason": "old",
                                                   "issue": ""}}
    missing = [{"case": "gone", "stage": "llm", "reason": "r", "issue": "",
                "problem": "no such case in the corpus"}]
    report, _ = report_fixtures.build(known=stale, stale_baseline=missing)
    root = ET.fromstring(junit(report))
    entries = root.find(".//testsuite[@name='traps.two-timestamps']/testcase[@name='entries']")
    assert entries.find("failure").get("type") == "stale-baseline"
    baseline = root.find("testsuite[@name='baseline']")
    assert baseline.get("failures") == "1"
    assert baseline.find("testcase/failure").get("message") == "no such case in the corpus"
    assert root.get("failures") == "4"


def test_an_interrupted_run_is_an_error_in_junit():
    report, _ = report_fixtures.build([StageResult("a.case", "context", "pass")],
                                      interrupted=True)
    root = ET.fromstring(junit(report))
    assert root.get("errors") == "1"
    error = root.find("testsuite[@name='pi-conformance']/testcase/error")
    assert error is not None and error.get("type") == "interrupted"


def test_as_documented_is_not_a_failure_in_junit():
    report, _ = report_fixtures.build([StageResult("a.case", "context", "as-documented",
                                                   "follows the docs")])
    root = ET.fromstring(junit(report))
    assert (root.get("failures"), root.get("errors"), root.get("skipped")) == ("0", "0", "0")
