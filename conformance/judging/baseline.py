"""Known failures: a baseline file of (case, stage) pairs with a reason and an issue link.

Like MCP conformance's expected-failures list and wpt's expectation files: a failure listed
here does not fail the run, a failure not listed does, and an entry that now passes fails
the run as stale, so the baseline shrinks as implementations improve. An entry that names a
case or stage the corpus does not have is stale too: it would otherwise hide nothing forever.

The file is TOML (schemas/baseline.schema.json describes it once parsed; ``load`` checks
the same rules and names the line of the offending entry)::

    [[known]]
    case = "traps.two-timestamps"     # a case id, or a glob over ids
    stage = "context"                 # a stage id, or a glob over stage ids
    reason = "we sort by the entry timestamp"
    issue = "https://example.org/issues/12"
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

import tomli_w

from conformance.corpus.cases import read_toml
from conformance.errors import ConformanceError
from conformance.judging.results import BaselineMark, StageResult, StaleEntry

if TYPE_CHECKING:
    from conformance.corpus.cases import Case

_GLOB = "*?["


class BaselineError(ConformanceError):
    """A baseline file that cannot be used."""


@dataclass(frozen=True)
class KnownFailure:
    case: str
    stage: str
    reason: str
    issue: str = ""

    def matches(self, case: str, stage: str) -> bool:
        return fnmatchcase(case, self.case) and fnmatchcase(stage, self.stage)

    @property
    def is_glob(self) -> bool:
        return any(ch in self.case + self.stage for ch in _GLOB)

    def to_json(self) -> dict[str, str]:
        return {"case": self.case, "stage": self.stage, "reason": self.reason,
                "issue": self.issue}


class Baseline:
    def __init__(self, entries: Iterable[KnownFailure] = ()):
        self.entries = list(entries)

    @classmethod
    def load(cls, path: Path) -> Baseline:
        """Read and check a baseline file; every problem names the file and the entry's line."""
        data = read_toml(path)
        unknown = sorted(set(data) - {"known"})
        if unknown:
            raise BaselineError(f"unknown key(s) {', '.join(unknown)}: only [[known]] entries",
                                path=path)
        known = data.get("known", [])
        if not isinstance(known, list):
            raise BaselineError("'known' must be an array of tables: [[known]]", path=path)
        lines = _entry_lines(path)
        entries: list[KnownFailure] = []
        seen: dict[tuple[str, str], int] = {}
        for number, item in enumerate(known, start=1):
            line = lines[number - 1] if number <= len(lines) else None
            if not isinstance(item, dict):
                raise BaselineError(f"[[known]] entry {number} is not a table", path=path,
                                    line=line)
            missing = {"case", "stage", "reason"} - set(item)
            if missing:
                raise BaselineError(
                    f"[[known]] entry {number} lacks {', '.join(sorted(missing))}", path=path,
                    line=line)
            wrong = [key for key in ("case", "stage", "reason", "issue")
                     if key in item and not isinstance(item[key], str)]
            if wrong:
                raise BaselineError(
                    f"[[known]] entry {number}: {', '.join(wrong)} must be a string",
                    path=path, line=line)
            extra = sorted(set(item) - {"case", "stage", "reason", "issue"})
            if extra:
                raise BaselineError(
                    f"[[known]] entry {number}: unknown key(s) {', '.join(extra)} (allowed: "
                    "case, stage, reason, issue)", path=path, line=line)
            empty = [key for key in ("case", "stage", "reason") if not item[key].strip()]
            if empty:
                raise BaselineError(
                    f"[[known]] entry {number}: {', '.join(empty)} must not be empty",
                    path=path, line=line)
            key = (item["case"], item["stage"])
            if key in seen:
                raise BaselineError(f"[[known]] entry {number} repeats entry {seen[key]} "
                                    f"({key[0]} {key[1]})", path=path, line=line)
            seen[key] = number
            entries.append(KnownFailure(item["case"], item["stage"], item["reason"],
                                        item.get("issue", "")))
        return cls(entries)

    def find(self, case: str, stage: str) -> KnownFailure | None:
        return next((e for e in self.entries if e.matches(case, stage)), None)

    def judge(self, result: StageResult) -> StageResult:
        """``result`` with its baseline state, when an entry matches it.

        ``known``: it fails and is listed, so it does not fail the run. ``stale``: it is listed
        but passes now, so it fails the run until the entry is removed. Other statuses
        (skip, info, as-documented) leave an entry neither known nor stale.
        """
        entry = self.find(result.case, result.stage)
        if entry is None:
            return result
        if result.failing:
            return result.with_baseline(BaselineMark("known", entry.reason, entry.issue))
        if result.status == "pass":
            return result.with_baseline(BaselineMark("stale", entry.reason, entry.issue))
        return result

    def unmatched(self, cases: Iterable[Case]) -> list[StaleEntry]:
        """Entries that name no (case, stage) pair of ``cases`` (the corpus's, or every file a
        ``compare`` was given, every shard's): stale whatever the run does."""
        pairs = [(case.id, stage) for case in cases for stage in case.stages]
        ids = {case for case, _ in pairs}
        stale = []
        for entry in self.entries:
            if any(entry.matches(case, stage) for case, stage in pairs):
                continue
            if entry.is_glob:
                problem = "matches no case and stage"
            elif entry.case not in ids:
                problem = "no such case"
            else:
                problem = f"the case has no stage {entry.stage}"
            stale.append(StaleEntry(entry.case, entry.stage, entry.reason, entry.issue, problem))
        return stale


def _entry_lines(path: Path) -> list[int]:
    """The line of each ``[[known]]`` header, in order, so errors can point at the entry."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [number for number, line in enumerate(text.splitlines(), start=1)
            if line.strip().replace(" ", "") == "[[known]]"]


def _reason(result: StageResult) -> str:
    """A first draft of the reason, from what the report says; people should improve it."""
    message = result.message.strip()
    first = message.splitlines()[0] if message else ""
    diffs = result.differences
    if diffs:
        where = ", ".join(f"{d.path} {d.kind}" for d in diffs[:2])
        return f"{first}: {where}" + (", ..." if len(diffs) > 2 else "") if first else where
    return first or "TODO: explain why this fails"


def render(results: Iterable[StageResult], previous: Baseline | None = None) -> str:
    """A baseline listing every failing result of a report (``baseline --write``).

    Entries of ``previous`` that still match a failure keep their reason and issue, so
    rewriting a baseline after a run only adds and removes what changed.
    """
    known = []
    for result in results:
        if not result.failing:
            continue
        kept = previous.find(result.case, result.stage) if previous else None
        if kept is not None:
            reason, issue = kept.reason, kept.issue
        else:
            reason, issue = _reason(result), ""
        known.append({"case": result.case, "stage": result.stage, "reason": reason,
                      "issue": issue})
    head = ("# Known failures for pi-conformance run --baseline (and pytest --pi-baseline).\n"
            "# Each entry: why it fails, and where that is tracked. An entry that passes\n"
            "# again fails the run as stale: delete it then.\n\n")
    return head + (tomli_w.dumps({"known": known}) if known else "known = []\n")
