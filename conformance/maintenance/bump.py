"""``corpus bump --to X``: what moving the pin to release X changes, for review, and the move.

The review: X is run on the corpus like any implementation (the one executor, judged against
the goldens the pinned release wrote). Each failing (case, stage) is a behaviour X has and the
pinned release has not; grouped by root cause (``history_causes``), each with its before and
after (the first case's diff: the pinned release's value, then X's), they are the behaviour
changelog a maintainer reads before moving the pin. A stage X cannot answer is listed apart.

The move (``--apply``): the reference's ``package.json`` names X for its three packages, the
packages of X's own line pinned as X was published (``siblings.py``), and npm resolves the
new ``package-lock.json``; then the reference is installed and every golden regenerated, and
``corpus check`` holds as it did.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.files import replace_text
from conformance.judging.results import StageResult
from conformance.reporting.history_causes import in_words, root_causes
from conformance.reporting.model import Report
from conformance.reporting.text import failure_lines

SCHEMA = "pi-conformance/bump/1"
SHOWN_CASES = 8


def changelog(report: Report, pinned: str, target: str) -> dict[str, Any]:
    """The behaviour changes of ``target`` against the pinned release's goldens, by cause."""
    failing = [r for r in report.results if r.status in ("fail", "error")]
    changes = [{"since": target, "before": pinned, "stage": r.stage,
                "paths": sorted({d.path for d in r.differences}), "cases": [r.case]}
               for r in failing]
    first: dict[tuple[str, str], StageResult] = {(r.case, r.stage): r for r in failing}
    causes = root_causes(changes)
    for cause in causes:
        example = next(first[(case, stage)] for case in cause["cases"]
                       for stage in cause["stages"] if (case, stage) in first)
        cause["example"] = failure_lines(example, limit=6)
    unavailable = sorted({r.stage for r in report.results if r.status == "skip"
                          and r.message.startswith("not available")})
    counts = report.counts()
    return {"schema": SCHEMA, "from": pinned, "to": target,
            "judged": counts.get("pass", 0) + len(failing), "unchanged": counts.get("pass", 0),
            "changed": len(failing), "not_available": unavailable, "causes": causes}


def markdown(data: dict[str, Any]) -> str:
    lines = [f"# Moving the pin: {data['from']} -> {data['to']}", "",
             f"{data['changed']} of {data['judged']} judged (case, stage) results change "
             f"({data['unchanged']} stay as they are), in {len(data['causes'])} change(s) by "
             f"root cause, as far as answers tell. Each shows where it shows, in how many "
             f"cases, and one case's diff: `expected` is {data['from']}'s golden, `actual` "
             f"{data['to']}'s answer."]
    if data["not_available"]:
        lines += ["", f"Stages {data['to']} cannot answer (their goldens would be lost): "
                  + ", ".join(f"`{s}`" for s in data["not_available"]) + "."]
    for number, cause in enumerate(data["causes"], 1):
        cases = cause["cases"]
        shown = ", ".join(f"`{c}`" for c in cases[:SHOWN_CASES])
        more = f" and {len(cases) - SHOWN_CASES} more" if len(cases) > SHOWN_CASES else ""
        lines += ["", f"## {number}. {in_words(cause)}", "",
                  f"In {len(cases)} case(s): {shown}{more}.", "", "```",
                  *cause["example"], "```"]
    return "\n".join(lines) + "\n"


def write_changelog(data: dict[str, Any], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"bump-{data['to'].replace('/', '_')}"
    written = [out_dir / f"{stem}.json", out_dir / f"{stem}.md"]
    replace_text(written[0], jsonio.dumps_pretty(data))
    replace_text(written[1], markdown(data))
    return written


def new_manifest(manifest: dict[str, Any], packages: tuple[str, ...], version: str,
                 siblings: dict[str, str]) -> dict[str, Any]:
    """The reference's ``package.json`` with ``packages`` at ``version`` and the rest of the
    line pinned as that release was published."""
    updated = dict(manifest)
    updated["version"] = version
    updated["dependencies"] = {**manifest["dependencies"],
                               **dict.fromkeys(packages, version)}
    others = {name: pin for name, pin in siblings.items() if name not in packages}
    if others:
        updated["overrides"] = others
    else:
        updated.pop("overrides", None)
    return updated


def write_pin(version: str, manifest_path: Path, lock_path: Path) -> None:
    """Move the pin: ``manifest_path`` names ``version``, and npm resolves ``lock_path``."""
    from conformance.implementations.known.install import find_npm, run_npm
    from conformance.implementations.known.siblings import pinned_siblings
    from conformance.implementations.reference import PI_PACKAGES

    npm = find_npm("the reference")
    manifest = new_manifest(json.loads(manifest_path.read_text()), PI_PACKAGES, version,
                            pinned_siblings(npm, "@earendil-works", version))
    with tempfile.TemporaryDirectory(prefix="pi-conformance-bump-") as work:
        folder = Path(work)
        (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
        run_npm(npm, folder, ["install", "--package-lock-only"],
                f"npm install --package-lock-only for the reference at {version}", None)
        shutil.copy2(folder / "package-lock.json", lock_path)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


__all__ = ["SCHEMA", "changelog", "markdown", "new_manifest", "write_changelog", "write_pin"]
