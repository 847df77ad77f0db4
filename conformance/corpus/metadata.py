"""A case's ``case.toml``, typed: read from a parsed table, written as TOML that the case schema
accepts (checked before anything is written, so no command writes a case the loader refuses).

Every writer of a case (block-matrix, fuzz and compare candidates, promotion, anonymized
promotion) builds one of these instead of a dict of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import tomli_w

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.errors import CorpusError
from conformance.files import replace_file

FILE = "case.toml"


@cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(jsonio.read_json(SCHEMA_DIR / "case.schema.json"))


@dataclass(frozen=True)
class CaseMetadata:
    """The keys of ``case.toml`` (``schemas/case.schema.json`` says what each means)."""

    id: str
    title: str
    features: tuple[str, ...]
    description: str = ""
    clauses: tuple[str, ...] = ()
    outcome: str = "required"
    reason: str = ""
    discrepancy: str = ""
    scope: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    stages: tuple[str, ...] | None = None
    withheld_inputs: tuple[str, ...] = ()
    generate: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    anonymized: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> CaseMetadata:
        """From a parsed ``case.toml`` (keys the schema does not know are refused when written,
        and by the loader)."""
        stages = table.get("stages")
        return cls(
            id=str(table.get("id", "")), title=str(table.get("title", "")),
            features=tuple(table.get("features", ())),
            description=str(table.get("description", "")),
            clauses=tuple(table.get("clauses", ())),
            outcome=str(table.get("outcome", "required")),
            reason=str(table.get("reason", "")), discrepancy=str(table.get("discrepancy", "")),
            scope={stage: tuple(paths) for stage, paths in table.get("scope", {}).items()},
            stages=tuple(stages) if stages is not None else None,
            withheld_inputs=tuple(table.get("withheld_inputs", ())),
            generate=dict(table.get("generate", {})), source=str(table.get("source", "")),
            anonymized=bool(table.get("anonymized", False)),
            options=dict(table.get("options", {})))

    def with_id(self, case_id: str) -> CaseMetadata:
        return replace(self, id=case_id)

    def to_table(self) -> dict[str, Any]:
        """The table, in the schema's key order, without the keys left at their default."""
        table: dict[str, Any] = {"id": self.id, "title": self.title}
        optional: list[tuple[str, Any]] = [
            ("description", self.description), ("features", list(self.features)),
            ("clauses", list(self.clauses)),
            ("outcome", self.outcome if self.outcome != "required" else ""),
            ("reason", self.reason), ("discrepancy", self.discrepancy),
            ("stages", list(self.stages) if self.stages is not None else None),
            ("withheld_inputs", list(self.withheld_inputs)), ("source", self.source),
            ("anonymized", self.anonymized),
            ("options", dict(self.options)), ("generate", dict(self.generate)),
            ("scope", {stage: list(paths) for stage, paths in self.scope.items()}),
        ]
        for key, value in optional:
            if key == "features" or value not in ("", None, [], {}, False):
                table[key] = value
        return table

    def problems(self) -> list[str]:
        """What the case schema finds wrong, as ``where: what``."""
        errors = sorted(_validator().iter_errors(self.to_table()), key=lambda e: list(e.path))
        return [f"{'.'.join(map(str, e.path)) or '(top level)'}: {e.message}" for e in errors]

    def to_toml(self) -> str:
        problems = self.problems()
        if problems:
            raise CorpusError(f"case {self.id!r} would not load: {problems[0]}")
        return tomli_w.dumps(self.to_table())

    def write(self, directory: Path) -> Path:
        """``directory/case.toml``, replaced whole (never left half-written)."""
        text = self.to_toml()
        path = directory / FILE
        replace_file(path, text.encode("utf-8"))
        return path


__all__ = ["FILE", "CaseMetadata"]
