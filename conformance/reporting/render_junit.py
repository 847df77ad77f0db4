"""JUnit XML from a report, for CI systems that show test results (GitLab, Jenkins, Azure).

One ``testsuite`` per case, one ``testcase`` per stage (classname the case id, name the stage
id), the way pytest's junitxml lays out a module. ``fail`` is a ``<failure>`` whose text is
the readable diff; ``error`` an ``<error>``; ``skip`` and known failures ``<skipped>``
(pytest does the same for xfail); a stale baseline entry is a failure. ElementTree escapes
text and attributes; characters XML 1.0 cannot hold at all are replaced first.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import Any

from conformance.judging.results import StageResult
from conformance.reporting.model import Report
from conformance.reporting.text import INTERRUPTED_NOTE, baseline_note, failure_lines

# Characters that are not allowed anywhere in an XML 1.0 document, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: Any) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def _testcase(suite: ET.Element, result: StageResult) -> str:
    """Append one testcase; returns which counter it adds to."""
    case = ET.SubElement(suite, "testcase", classname=xml_safe(result.case),
                         name=xml_safe(result.stage), time=f"{result.duration:.6f}")
    status, state = result.status, result.baseline_state
    message = xml_safe(result.message)
    if state == "known":
        ET.SubElement(case, "skipped", type="known-failure",
                      message=xml_safe(baseline_note(result)))
        return "skipped"
    if state == "stale":
        element = ET.SubElement(case, "failure", type="stale-baseline",
                                message=xml_safe(baseline_note(result)))
        element.text = xml_safe(baseline_note(result))
        return "failures"
    if status == "fail":
        element = ET.SubElement(case, "failure", type="mismatch", message=message)
        element.text = xml_safe("\n".join(failure_lines(result, limit=None)))
        return "failures"
    if status == "error":
        element = ET.SubElement(case, "error", type="error", message=message)
        element.text = message
        return "errors"
    if status == "skip":
        ET.SubElement(case, "skipped", message=message)
        return "skipped"
    if status in ("info", "as-documented"):
        out = ET.SubElement(case, "system-out")
        out.text = xml_safe("\n".join(failure_lines(result, limit=None)))
    return "passed"


def junit(report: Report) -> str:
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    root = ET.Element("testsuites", name=xml_safe(f"pi-conformance: {report.header.title}"))
    for case_id, results in groupby(report.sorted_results(), key=lambda r: r.case):
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        suite = ET.SubElement(root, "testsuite", name=xml_safe(case_id))
        duration = 0.0
        for result in results:
            counts["tests"] += 1
            kind = _testcase(suite, result)
            if kind in counts:
                counts[kind] += 1
            duration += result.duration
        suite.attrib.update({k: str(v) for k, v in counts.items()})
        suite.set("time", f"{duration:.6f}")
        for key in totals:
            totals[key] += counts[key]
    if report.stale_baseline:
        counts = {"tests": len(report.stale_baseline), "failures": len(report.stale_baseline),
                  "errors": 0, "skipped": 0}
        suite = ET.SubElement(root, "testsuite", {k: str(v) for k, v in counts.items()},
                              name="baseline")
        for entry in report.stale_baseline:
            case = ET.SubElement(suite, "testcase", classname="baseline",
                                 name=xml_safe(f"{entry.case} {entry.stage}"))
            failure = ET.SubElement(case, "failure", type="stale-baseline",
                                    message=xml_safe(entry.problem))
            failure.text = xml_safe(f"stale baseline entry: {entry.problem} "
                                    f"(reason given: {entry.reason})")
        for key in totals:
            totals[key] += counts[key]
    if report.interrupted:  # a run cut short is an error, never a quiet pass
        suite = ET.SubElement(root, "testsuite", name="pi-conformance", tests="1",
                              failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="pi-conformance", name="run")
        ET.SubElement(case, "error", type="interrupted", message=INTERRUPTED_NOTE)
        totals["tests"] += 1
        totals["errors"] += 1
    root.attrib.update({k: str(v) for k, v in totals.items()})
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
