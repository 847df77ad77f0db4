"""What changed between two runs: ``pi-conformance diff A.jsonl B.jsonl``.

Like web-platform-tests' run diffs: results are keyed by (case, stage); a result is failing
when its status is ``fail`` or ``error``, whatever a baseline said (the diff compares
behaviour, not bookkeeping). New failures include results that exist only in B and fail
there: a new case that fails is news. The JSON form follows schemas/diff.schema.json.
"""

from __future__ import annotations

from typing import Any

from conformance.controls import printable
from conformance.corpus.stages import stage_sort_key
from conformance.judging.results import StageResult
from conformance.reporting.model import Report

Key = tuple[str, str]


def _key(result: StageResult) -> Key:
    return result.case, result.stage


def _sort(keys: set[Key]) -> list[Key]:
    return sorted(keys, key=lambda k: (k[0], stage_sort_key(k[1]), k[1]))


def _side(report: Report) -> dict[str, Any]:
    corpus = report.header.corpus
    return {"implementation": dict(report.implementation),
            "runner": report.header.runner.to_json(),
            "corpus": {"version": corpus.version, "sha256": corpus.sha256,
                       "cases": corpus.cases},
            "started": report.header.started,
            "interrupted": report.interrupted}


def _entry(key: Key, before: StageResult | None, after: StageResult | None,
           ) -> dict[str, Any]:
    entry: dict[str, Any] = {"case": key[0], "stage": key[1],
                             "before": before.status if before else None,
                             "after": after.status if after else None}
    shown = after if after is not None and after.failing else before
    if shown is not None and shown.message:
        entry["message"] = shown.message
    return entry


def _signature(result: StageResult) -> Any:
    return (result.status, result.message, [(d.path, d.kind) for d in result.differences])


def compare(a: Report, b: Report) -> dict[str, Any]:
    """The differences between run ``a`` (before) and run ``b`` (after)."""
    before = {_key(r): r for r in a.results}
    after = {_key(r): r for r in b.results}
    common = before.keys() & after.keys()

    def failing(result: StageResult | None) -> bool:
        return result is not None and result.failing

    new_failures = {k for k in after if failing(after[k]) and not failing(before.get(k))}
    fixed = {k for k in common if failing(before[k]) and after[k].status in ("pass",
                                                                             "as-documented")}
    changed_failures = {k for k in common if failing(before[k]) and failing(after[k])
                        and _signature(before[k]) != _signature(after[k])}
    other = {k for k in common if before[k].status != after[k].status
             and k not in new_failures | fixed | changed_failures}
    cases_a = {k[0] for k in before}
    cases_b = {k[0] for k in after}
    added_cases, removed_cases = cases_b - cases_a, cases_a - cases_b
    added_stages = {k for k in after.keys() - before.keys() if k[0] not in added_cases}
    removed_stages = {k for k in before.keys() - after.keys() if k[0] not in removed_cases}

    def entries(keys: set[Key]) -> list[dict[str, Any]]:
        return [_entry(k, before.get(k), after.get(k)) for k in _sort(keys)]

    return {
        "a": _side(a),
        "b": _side(b),
        "new_failures": entries(new_failures),
        "fixed": entries(fixed),
        "changed_failures": entries(changed_failures),
        "other_changes": entries(other),
        "cases_added": sorted(added_cases),
        "cases_removed": sorted(removed_cases),
        "stages_added": entries(added_stages),
        "stages_removed": entries(removed_stages),
        "counts": {
            "a": {"results": len(before), "failing": sum(map(failing, before.values()))},
            "b": {"results": len(after), "failing": sum(map(failing, after.values()))},
        },
        "verdict": "regressed" if new_failures else "no new failures",
    }


def _describe(side: dict[str, Any]) -> str:
    impl, corpus = side["implementation"], side["corpus"]
    text = (f"{impl.get('name', '?')} {impl.get('version', '?')}, corpus "
            f"{corpus['version']} ({corpus['sha256'][:12]}, {corpus['cases']} cases), "
            f"started {side['started']}")
    return printable(text) + (" (INTERRUPTED: the run did not finish)"
                              if side["interrupted"] else "")


def _line(entry: dict[str, Any]) -> str:
    text = f"{entry['case']} [{entry['stage']}] {entry['before'] or '-'} -> {entry['after'] or '-'}"
    message = (entry.get("message") or "").splitlines()
    return printable(text + (f": {message[0]}" if message else ""))


def text(result: dict[str, Any]) -> str:
    """The diff for people: one section per kind of change, empty sections left out."""
    out = [f"A: {_describe(result['a'])}", f"B: {_describe(result['b'])}", ""]
    sections = [
        ("new failures", result["new_failures"]),
        ("fixed", result["fixed"]),
        ("still failing, differently", result["changed_failures"]),
        ("other status changes", result["other_changes"]),
        ("stages added", result["stages_added"]),
        ("stages removed", result["stages_removed"]),
    ]
    for heading, items in sections:
        if items:
            out.append(f"{heading} ({len(items)}):")
            out += [f"  {_line(e)}" for e in items]
            out.append("")
    for heading, cases in (("cases added", result["cases_added"]),
                           ("cases removed", result["cases_removed"])):
        if cases:
            out.append(f"{heading} ({len(cases)}):")
            out += [f"  {printable(case)}" for case in cases]
            out.append("")
    counts = result["counts"]
    out.append(f"{len(result['new_failures'])} new failure(s), {len(result['fixed'])} fixed; "
               f"failing {counts['a']['failing']}/{counts['a']['results']} -> "
               f"{counts['b']['failing']}/{counts['b']['results']}")
    return "\n".join(out) + "\n"
