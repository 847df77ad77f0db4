"""Pi's behaviour history: for each behaviour of the newest release, the release it first
appeared in, and the changes grouped by what changed, in words.

Read from a drift report (``drift.py``: per case and stage, the releases grouped by equal
answers, and the paths where each group differs from the newest). A behaviour of the newest
release appeared in the oldest release of the unbroken run of releases, newest first, that
answer as it does (releases that cannot answer the stage are passed over). The change is what
differs from the next older release that answers: its paths. Changes are grouped by release,
stage and paths, so "since 1.5.2, ``$.betas`` in ``request.anthropic-messages``" is one line
for every case that shows it, not 341 cells; and the changes by root cause
(``history_causes.py``: one line for a change however many stages and providers show it),
which is what ``history.md`` says. Per case and stage, the releases grouped by equal answers
are kept too (``behaviours``: release indices, and the release its newest behaviour dates
from).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.files import replace_text
from conformance.reporting.history_causes import in_words, root_causes

SCHEMA = "pi-conformance/history/2"
SHOWN_CASES = 5


def history_data(drift: dict[str, Any]) -> dict[str, Any]:
    """The history of the newest release's behaviours, from a drift report's data."""
    order = [release["key"] for release in drift["releases"]]
    newest = order[0]
    index = {key: number for number, key in enumerate(order)}
    grouped: dict[tuple[str, str, str, tuple[str, ...]], list[str]] = {}
    behaviours = []
    for item in drift["items"]:
        groups = item["groups"]
        current = next((group for group in groups if newest in group), None)
        if current is None or len(groups) < 2:
            continue
        behaviour: dict[str, Any] = {"case": item["case"], "stage": item["stage"],
                                     "groups": [[index[key] for key in group]
                                                for group in groups], "since": None}
        behaviours.append(behaviour)
        answering = [key for key in order if any(key in group for group in groups)]
        since, before = newest, None
        for key in answering[1:]:
            if key in current:
                since = key
            else:
                before = key
                break
        if before is None:
            continue
        behaviour["since"] = index[since]
        paths = next((tuple(found["paths"]) for against, found in item["against_newest"].items()
                      if before in against.split(" = ")), ())
        grouped.setdefault((since, before, item["stage"], paths), []).append(item["case"])
    changes = [{"since": since, "before": before, "stage": stage, "paths": list(paths),
                "cases": sorted(cases)}
               for (since, before, stage, paths), cases in grouped.items()]
    changes.sort(key=lambda c: (order.index(c["since"]), -len(c["cases"]), c["stage"]))
    return {"schema": SCHEMA, "releases": order, "causes": root_causes(changes),
            "changes": changes, "behaviours": behaviours}


def markdown(data: dict[str, Any]) -> str:
    """The history for people: per release, newest first, what it changed, by cause."""
    releases = data["releases"]
    newest = releases[0]
    lines = ["# pi-conformance: Pi's behaviour history", "",
             f"{len(releases)} releases, newest first: "
             f"{', '.join(f'`{r}`' for r in releases)}. Each line is a change of Pi: a "
             f"behaviour of `{newest}` that first appeared in the release it is listed under "
             "(the one before it answered otherwise), where it shows (stages, providers, "
             "fields; positions in a list written `[*]`) and in how many cases. Changes "
             "that show on several stages or providers in mostly the same cases are one line "
             "(a root cause, as far as answers tell). Per case and stage, the releases grouped "
             "by equal answers are in [history.json](history.json) (`behaviours`); the "
             "differences themselves in [drift.md](drift.md).", "",
             "| release | changes since | case-stage behaviours of the newest that date from "
             "it |", "|---|---:|---:|"]
    for release in releases:
        causes = [c for c in data["causes"] if c["since"] == release]
        dated = sum(1 for b in data["behaviours"] if b["since"] is not None
                    and releases[b["since"]] == release)
        lines.append(f"| `{release}` | {len(causes)} | {dated} |")
    lines.append("")
    for release in releases:
        causes = [c for c in data["causes"] if c["since"] == release]
        if not causes:
            continue
        before = causes[0]["before"]
        lines += [f"## Since {release} ({len(causes)} change(s); {before} answered "
                  "otherwise)", ""]
        for cause in causes:
            cases = cause["cases"]
            shown = ", ".join(f"`{c}`" for c in cases[:SHOWN_CASES])
            more = f" and {len(cases) - SHOWN_CASES} more" if len(cases) > SHOWN_CASES else ""
            other = (f" ({cause['before']} answered otherwise)"
                     if cause["before"] != before else "")
            lines.append(f"- {in_words(cause)}{other}: in {len(cases)} case(s), e.g. "
                         f"{shown}{more}")
        lines.append("")
    return "\n".join(lines)


def json_text(data: dict[str, Any]) -> str:
    """The JSON with one item of each list per line: a history of 40 releases has thousands
    of behaviours, each with 40 release numbers; indented, that was 6 MB, and a diff of two
    histories was unreadable."""
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            items = ",\n    ".join(jsonio.dumps_text(item) for item in value)
            parts.append(f"  {jsonio.dumps_text(key)}: [\n    {items}\n  ]")
        else:
            parts.append(f"  {jsonio.dumps_text(key)}: {jsonio.dumps_text(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_history(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """``history.json`` (schemas/history.schema.json) and ``history.md`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "history.json", out_dir / "history.md"]
    replace_text(written[0], json_text(data))
    replace_text(written[1], markdown(data))
    return written


__all__ = ["SCHEMA", "history_data", "json_text", "markdown", "write_history"]
