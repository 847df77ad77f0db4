"""Golden files: what the reference answered for one case and stage, and where that came from.

A golden is ``{"stage", "result", "provenance"}`` and, optionally, ``"volatile"``: the JSON
paths (in ``result``) whose values changed between reference runs with different randomness,
clock and temporary paths, each mapped to a group name; paths in one group held one and the
same generated value, which an implementation must reuse in the same places. ``result`` is
the reference's protocol answer for the stage, verbatim: ``{"output": ...}`` or
``{"rejected": {"message": ...}}``, or, for a stage on which Pi itself hangs or crashes,
``{"misbehaved": {...}}``. Nothing in a golden is computed by our code: regeneration writes
what the harness returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Case
from conformance.errors import CorpusError

RESULT_KINDS = ("output", "rejected", "misbehaved")


@dataclass(frozen=True)
class Golden:
    stage: str
    result: dict[str, Any]
    provenance: dict[str, Any]
    volatile: Mapping[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return next(iter(self.result))

    def to_json(self) -> dict[str, Any]:
        data = {"stage": self.stage, "result": self.result, "provenance": self.provenance}
        if self.volatile:
            data["volatile"] = dict(sorted(self.volatile.items()))
        return data


def read_golden(case: Case, stage: str) -> Golden:
    path = case.expected_path(stage)
    if not path.is_file():
        raise CorpusError(
            f"missing golden for stage {stage}; run: pi-conformance corpus regenerate {case.id}",
            path=path)
    data = jsonio.read_json(path, CorpusError)
    if not isinstance(data, dict) or not {"stage", "result", "provenance"} <= data.keys():
        raise CorpusError("not a golden: needs the keys stage, result, provenance", path=path)
    result = data["result"]
    if not isinstance(result, dict) or len(result) != 1 or next(iter(result)) not in RESULT_KINDS:
        raise CorpusError(
            f"golden result must have exactly one of {', '.join(RESULT_KINDS)}", path=path)
    if data["stage"] != stage:
        raise CorpusError(f"golden is for stage {data['stage']!r}, not {stage!r}", path=path)
    volatile = data.get("volatile", {})
    if not isinstance(volatile, dict) or not all(
            isinstance(k, str) and k.startswith("$") and isinstance(v, str)
            for k, v in volatile.items()):
        raise CorpusError("golden volatile must map JSON paths to group names", path=path)
    return Golden(stage=stage, result=result, provenance=data["provenance"], volatile=volatile)


def read_goldens(wanted: Iterable[tuple[Case, str]]) -> dict[tuple[str, str], Golden]:
    """Every golden a run needs, read before the run starts: a missing or broken golden is
    a CorpusError naming its file (exit code 2), not an error result in the middle of a run."""
    return {(case.id, stage): read_golden(case, stage) for case, stage in wanted}


def write_golden(case: Case, golden: Golden) -> Path:
    path = case.expected_path(golden.stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(jsonio.dumps_pretty(golden.to_json()), encoding="utf-8")
    return path


def golden_paths(case: Case) -> list[Path]:
    expected = case.directory / "expected"
    return sorted(expected.glob("*.json")) if expected.is_dir() else []
