"""How Pi's own releases differ on the same cases: the drift report.

The matrix keeps every stage answer of each Pi release it ran (1.6.0, the reference; 1.0.3;
the upstream 0.73.1). For each case and stage, releases whose answers are equal (the same
kind, and for outputs no difference under the suite's comparison rules) form one group; the
report lists the groups, newest release first, and the differences between the newest
group and each other, the way a failure is shown. Stages a release does not have are named
as such, never counted as disagreement. Written as Markdown and JSON
(schemas/drift.schema.json).
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from conformance import __version__, jsonio
from conformance.corpus.cases import Corpus
from conformance.corpus.normalization import input_strings
from conformance.corpus.stages import stage_sort_key
from conformance.files import replace_text
from conformance.judging.comparison import differences
from conformance.reporting import stream as reports
from conformance.reporting.matrix import PI_RELEASES, Column
from conformance.reporting.text import short

SCHEMA = "pi-conformance/drift/1"
MAX_DIFFERENCES = 8


def _release_key(column: Column) -> tuple[int, ...]:
    return tuple(int(part) for part in column.version.split(".") if part.isdigit())


def answer_differences(a: dict[str, Any], b: dict[str, Any],
                       known: frozenset[str]) -> list[Any] | None:
    """None when the answers agree, else the differences (empty list: different kinds)."""
    kind_a, kind_b = next(iter(a)), next(iter(b))
    if kind_a != kind_b:
        return []
    if kind_a == "output":
        found = differences(a["output"], b["output"], known)
        return found or None
    return None  # both rejected (or both skipped/errored): they agree on the verdict


def _describe(answer: dict[str, Any]) -> str:
    kind = next(iter(answer))
    if kind == "output":
        return "output"
    value = answer[kind]
    message = value.get("message", "") if isinstance(value, dict) else str(value)
    return f"{kind}: {message}"[:160]


def difference_lines(head: str, found: list[Any], newer: str, older: str) -> list[str]:
    """Like a failure's diff (text.failure_lines), labelled with the two releases."""
    width = max(len(newer), len(older)) + 1
    lines = [head]
    for diff in found[:MAX_DIFFERENCES]:
        lines.append(f"    {diff.path} ({diff.kind})")
        lines.append(f"      {newer + ':':<{width}} {short(diff.expected)}")
        lines.append(f"      {older + ':':<{width}} {short(diff.actual)}")
    if len(found) > MAX_DIFFERENCES:
        lines.append(f"    … and {len(found) - MAX_DIFFERENCES} more difference(s)")
    return lines


def drift_data(corpus: Corpus, columns: list[Column]) -> dict[str, Any]:
    """Per case and stage, which Pi releases agree with which (newest release first)."""
    releases = sorted((c for c in columns if c.name in PI_RELEASES and c.report),
                      key=_release_key, reverse=True)
    names = [c.key for c in releases]
    items = []
    agreement: Counter[tuple[str, str]] = Counter()
    compared: Counter[tuple[str, str]] = Counter()
    per_stage: dict[str, Counter[str]] = {}
    for case in corpus.cases:
        known = input_strings(case.session_bytes())
        for stage in sorted(case.stages, key=stage_sort_key):
            answers = {c.key: c.answers.get(case.id, {}).get(stage) for c in releases}
            absent = [key for key, answer in answers.items()
                      if answer is None or next(iter(answer)) in ("skipped", "error")]
            present = [key for key in names if key not in absent]
            if len(present) < 2:
                continue
            groups: list[list[str]] = []
            diffs: dict[str, Any] = {}
            for key in present:
                for group in groups:
                    first, answer = answers[group[0]], answers[key]
                    if answer_differences(first, answer, known) is None:  # type: ignore[arg-type]
                        group.append(key)
                        break
                else:
                    groups.append([key])
            for i, a in enumerate(present):
                for b in present[i + 1:]:
                    compared[(a, b)] += 1
                    if any(a in g and b in g for g in groups):
                        agreement[(a, b)] += 1
            newest = answers[groups[0][0]]
            for group in groups[1:]:
                other = answers[group[0]]
                found = answer_differences(newest, other, known) or []  # type: ignore[arg-type]
                head = f"{case.id} [{stage}] {' = '.join(groups[0])} vs {' = '.join(group)}"
                if not found:
                    head += f": {_describe(newest)} vs {_describe(other)}"  # type: ignore[arg-type]
                diffs[" = ".join(group)] = {
                    "lines": difference_lines(head, found, groups[0][0], group[0]),
                    "differences": len(found),
                    "paths": [d.path for d in found[:MAX_DIFFERENCES]]}
            verdict = "agree" if len(groups) == 1 else "drift"
            per_stage.setdefault(stage, Counter())[verdict] += 1
            items.append({"case": case.id, "stage": stage, "groups": groups,
                          "not_available": absent, "verdict": verdict,
                          "against_newest": diffs})
    return {
        "schema": SCHEMA,
        "runner": {"name": "pi-conformance", "version": __version__},
        "generated": reports.now(),
        "releases": [{"key": c.key, "implementation": dict(c.report.implementation)
                      if c.report else {}, "claimed_stages": c.claimed} for c in releases],
        "stages": {stage: {"agree": c.get("agree", 0), "drift": c.get("drift", 0)}
                   for stage, c in sorted(per_stage.items(),
                                          key=lambda kv: stage_sort_key(kv[0]))},
        "pairs": [{"a": a, "b": b, "compared": compared[(a, b)], "agree": agreement[(a, b)]}
                  for (a, b) in sorted(compared)],
        "items": items,
    }


def markdown(data: dict[str, Any]) -> str:
    releases = [r["key"] for r in data["releases"]]
    out = ["# pi-conformance: drift between Pi releases", "",
           f"Generated {data['generated']}. Releases, newest first: "
           + ", ".join(f"`{r}`" for r in releases) + ". For each case and stage that at least "
           "two releases answer, releases with equal answers form a group (`=`); "
           "differences are shown from the newest group to each other one. A release that does "
           "not have a stage is listed as not available, never as disagreeing. "
           "Matrix: [matrix.md](matrix.md).", "",
           "## By stage", "", "| stage | all agree | drift | cases that drift |",
           "|---|---:|---:|---|"]
    for stage, c in data["stages"].items():
        link = f"[drift/{stage}.md](drift/{stage}.md)" if c["drift"] else ""
        out.append(f"| `{stage}` | {c['agree']} | {c['drift']} | {link} |")
    out += ["", "## Pairs of releases", "", "| release | release | compared | agree |",
            "|---|---|---:|---:|"]
    for pair in data["pairs"]:
        out.append(f"| {pair['a']} | {pair['b']} | {pair['compared']} | {pair['agree']} |")
    return "\n".join(out) + "\n"


def stage_page(data: dict[str, Any], stage: str) -> str:
    """The cases where releases disagree on one stage: their groups and the differences."""
    items = [i for i in data["items"] if i["stage"] == stage and i["verdict"] == "drift"]
    out = [f"# Drift between Pi releases: `{stage}`", "",
           f"{len(items)} case(s) where the releases disagree. Back to [drift.md](../drift.md).",
           "", "| case | groups | not available |", "|---|---|---|"]
    for item in items:
        groups = " ≠ ".join(" = ".join(g) for g in item["groups"])
        out.append(f"| {item['case']} | {groups} | {', '.join(item['not_available'])} |")
    out += ["", "## Differences", "", "```"]
    for item in items:
        for diff in item["against_newest"].values():
            out += diff["lines"]
    out += ["```"]
    return "\n".join(out) + "\n"


def without_lines(data: dict[str, Any]) -> dict[str, Any]:
    """The JSON keeps counts and paths; the readable diffs live in the per-stage pages."""
    items = [{**item, "against_newest": {
        group: {k: v for k, v in diff.items() if k != "lines"}
        for group, diff in item["against_newest"].items()}} for item in data["items"]]
    return {**data, "items": items}


def write_drift(data: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "drift.json", out_dir / "drift.md"]
    replace_text(written[0], jsonio.dumps_pretty(without_lines(data)))
    replace_text(written[1], markdown(data))
    pages = out_dir / "drift"
    if pages.is_dir():
        shutil.rmtree(pages)
    for stage, counts in data["stages"].items():
        if counts["drift"]:
            pages.mkdir(exist_ok=True)
            page = pages / f"{stage}.md"
            replace_text(page, stage_page(data, stage))
            written.append(page)
    return written
