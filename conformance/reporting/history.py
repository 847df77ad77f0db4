"""Pi's behaviour history: for each behaviour of the newest release, the release it first
appeared in, and the changes grouped by what changed, in words.

Read from a drift report (``drift.py``: per case and stage, the releases grouped by equal
answers, and the paths where each group differs from the newest). A behaviour of the newest
release appeared in the oldest release of the unbroken run of releases, newest first, that
answer as it does (releases that cannot answer the stage are passed over). The change is what
differs from the next older release that answers: its paths. Changes are grouped by release,
stage and paths, so "since 1.5.2, ``$.betas`` in ``request.anthropic-messages``" is one line
for every case that shows it, not 341 cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.files import replace_text

SCHEMA = "pi-conformance/history/1"
SHOWN_CASES = 5


def history_data(drift: dict[str, Any]) -> dict[str, Any]:
    """The history of the newest release's behaviours, from a drift report's data."""
    order = [release["key"] for release in drift["releases"]]
    newest = order[0]
    grouped: dict[tuple[str, str, str, tuple[str, ...]], list[str]] = {}
    for item in drift["items"]:
        groups = item["groups"]
        current = next((group for group in groups if newest in group), None)
        if current is None or len(groups) < 2:
            continue
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
        paths = next((tuple(found["paths"]) for against, found in item["against_newest"].items()
                      if before in against.split(" = ")), ())
        grouped.setdefault((since, before, item["stage"], paths), []).append(item["case"])
    changes = [{"since": since, "before": before, "stage": stage, "paths": list(paths),
                "cases": sorted(cases)}
               for (since, before, stage, paths), cases in grouped.items()]
    changes.sort(key=lambda c: (order.index(c["since"]), -len(c["cases"]), c["stage"]))
    return {"schema": SCHEMA, "releases": order, "changes": changes}


def markdown(data: dict[str, Any]) -> str:
    """The history for people: per release, newest first, what it changed and where."""
    lines = ["# pi-conformance: Pi's behaviour history", "",
             f"Releases, newest first: {', '.join(f'`{r}`' for r in data['releases'])}. "
             f"Each line is a behaviour of `{data['releases'][0]}` that first appeared in the "
             "release it is listed under: what differs from the release before it, on which "
             "stage, and in which cases. Made from [drift.json](drift.json).", ""]
    for release in data["releases"]:
        changes = [c for c in data["changes"] if c["since"] == release]
        if not changes:
            continue
        count = sum(len(c["cases"]) for c in changes)
        lines += [f"## Since {release} ({count} case-stage behaviours)", ""]
        for change in changes:
            what = ", ".join(f"`{p}`" for p in change["paths"]) or "the kind of answer"
            cases = change["cases"]
            shown = ", ".join(f"`{c}`" for c in cases[:SHOWN_CASES])
            more = f" and {len(cases) - SHOWN_CASES} more" if len(cases) > SHOWN_CASES else ""
            lines.append(f"- `{change['stage']}`: {what} changed ({change['before']} answered "
                         f"otherwise), in {len(cases)} case(s): {shown}{more}")
        lines.append("")
    return "\n".join(lines)


def write_history(data: dict[str, Any], out_dir: Path) -> list[Path]:
    """``history.json`` (schemas/history.schema.json) and ``history.md`` in ``out_dir``."""
    written = [out_dir / "history.json", out_dir / "history.md"]
    replace_text(written[0], jsonio.dumps_pretty(data))
    replace_text(written[1], markdown(data))
    return written


__all__ = ["SCHEMA", "history_data", "markdown", "write_history"]
