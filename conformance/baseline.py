"""Known failures: a baseline file of (case, stage) pairs with a reason and an issue link.

Like MCP conformance's expected-failures list and wpt's expectation files: a failure listed
here does not fail the run, a failure not listed does, and an entry that now passes fails
the run as stale, so the baseline shrinks as implementations improve.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from conformance.corpus import read_toml
from conformance.errors import ConformanceError

FAILING = ("fail", "error")


@dataclass(frozen=True)
class KnownFailure:
    case: str
    stage: str
    reason: str
    issue: str = ""

    def matches(self, case: str, stage: str) -> bool:
        return fnmatchcase(case, self.case) and fnmatchcase(stage, self.stage)


class Baseline:
    def __init__(self, entries: Iterable[KnownFailure] = ()):
        self.entries = list(entries)

    @classmethod
    def load(cls, path: Path) -> Baseline:
        """Read a baseline file; every problem names the file and the entry's line."""
        data = read_toml(path)
        known = data.get("known", [])
        if not isinstance(known, list):
            raise ConformanceError("'known' must be an array of tables: [[known]]", path=path)
        lines = _entry_lines(path)
        entries = []
        for number, item in enumerate(known, start=1):
            line = lines[number - 1] if number <= len(lines) else None
            if not isinstance(item, dict):
                raise ConformanceError(f"[[known]] entry {number} is not a table", path=path,
                                       line=line)
            missing = {"case", "stage", "reason"} - set(item)
            if missing:
                raise ConformanceError(
                    f"[[known]] entry {number} lacks {', '.join(sorted(missing))}", path=path,
                    line=line)
            wrong = [key for key in ("case", "stage", "reason", "issue")
                     if key in item and not isinstance(item[key], str)]
            if wrong:
                raise ConformanceError(
                    f"[[known]] entry {number}: {', '.join(wrong)} must be a string",
                    path=path, line=line)
            entries.append(KnownFailure(item["case"], item["stage"], item["reason"],
                                        item.get("issue", "")))
        return cls(entries)

    def find(self, case: str, stage: str) -> KnownFailure | None:
        return next((e for e in self.entries if e.matches(case, stage)), None)

    def judge(self, line: dict[str, Any]) -> None:
        """Annotate one report line with its baseline state, in place."""
        entry = self.find(line["case"], line["stage"])
        if entry is None:
            return
        state = "known" if line["status"] in FAILING else (
            "stale" if line["status"] == "pass" else None)
        if state:
            line["baseline"] = {"state": state, "reason": entry.reason, "issue": entry.issue}


def _entry_lines(path: Path) -> list[int]:
    """The line of each ``[[known]]`` header, in order, so errors can point at the entry."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [number for number, line in enumerate(text.splitlines(), start=1)
            if line.strip().replace(" ", "") == "[[known]]"]


def counts_as_failure(line: dict[str, Any]) -> bool:
    state = line.get("baseline", {}).get("state")
    if state == "stale":
        return True
    return line["status"] in FAILING and state != "known"


def render(lines: Iterable[dict[str, Any]]) -> str:
    """A baseline listing every failing result of a report (``baseline --write``)."""
    out = ["# Known failures for pi-conformance run --baseline.",
           "# Each entry: why it fails, and where that is tracked.", ""]
    for line in lines:
        if line["status"] not in FAILING:
            continue
        reason = (line.get("message") or "").splitlines()[0] if line.get("message") else ""
        out += ["[[known]]", f"case = {_q(line['case'])}", f"stage = {_q(line['stage'])}",
                f"reason = {_q(reason or 'TODO: explain')}", 'issue = ""', ""]
    return "\n".join(out)


def _q(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)
