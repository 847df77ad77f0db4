"""The versions of a Pi release's own packages it was published with, to pin them.

Releases before 1.x ask for their siblings (``pi-ai``, ``pi-agent-core``, ``pi-tui``...) by
caret ranges (``^0.79.3``), so a plain install of pi-coding-agent 0.79.3 runs pi-ai 0.79.10,
whatever came last on that line: the answers would be another release's, and some releases
(0.80.2 to 0.80.7) do not even start against a newer pi-ai. The line publishes its packages
together, so each sibling is pinned (npm ``overrides``) to its newest version, not after the
release's own, that the release's range admits; a sibling no such version exists for is
left to npm (the install then fails or floats as published, saying so in npm's words).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from conformance.implementations.known.install import AdapterInstallError

#: Written into an install's marker: an install made under another rule is resolved again.
RESOLUTION = "siblings-pinned/1"


def npm_view(npm: str, spec: str, field: str) -> Any:
    """``npm view SPEC FIELD --json``, parsed; an install error naming what failed."""
    try:
        done = subprocess.run([npm, "view", spec, field, "--json"], capture_output=True,
                              text=True, timeout=120, check=True)
        return json.loads(done.stdout) if done.stdout.strip() else None
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise AdapterInstallError(f"cannot read {field} of {spec} from the npm registry: "
                                  f"{exc}") from None


def version_key(version: str) -> tuple[int, ...] | None:
    """``0.79.3`` -> (0, 79, 3); None for a pre-release or anything else."""
    parts = version.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def admits(spec: str, version: str) -> bool:
    """Whether an npm range of the forms the line uses (``1.2.3``, ``^1.2.3``, ``~1.2.3``,
    ``>=1.2.3``) admits ``version``; False for any other form."""
    have = version_key(version)
    operator = next((op for op in (">=", "^", "~") if spec.startswith(op)), "")
    base = version_key(spec[len(operator):].strip())
    if have is None or base is None:
        return False
    if operator == "":
        return have == base
    if operator == ">=":
        return have >= base
    if operator == "~":
        return have[:2] == base[:2] and have >= base
    fixed = next((i for i, part in enumerate(base) if part != 0), 2)  # caret: up to it fixed
    return have[:fixed + 1] == base[:fixed + 1] and have >= base


def pinned_siblings(npm: str, scope: str, version: str) -> dict[str, str]:
    """For each package of ``scope`` that ``{scope}/pi-coding-agent@version`` depends on by
    a range: its newest version not after ``version`` that the range admits."""
    dependencies = npm_view(npm, f"{scope}/pi-coding-agent@{version}", "dependencies") or {}
    ceiling = version_key(version)
    assert ceiling is not None
    pins = {}
    for name, spec in sorted(dependencies.items()):
        if not name.startswith(scope + "/") or version_key(spec) is not None:
            continue  # another scope's package, or already exact
        published = npm_view(npm, name, "versions") or []
        fitting = [v for v in published if (key := version_key(v)) is not None
                   and key <= ceiling and admits(spec, v)]
        if fitting:
            pins[name] = max(fitting, key=lambda v: version_key(v) or ())
    return pins


__all__ = ["RESOLUTION", "admits", "npm_view", "pinned_siblings", "version_key"]
