"""The corpus on disk: cases, their metadata, the feature vocabulary and the clause catalogue.

A case is a directory ``corpus/cases/<area>/<slug>/`` holding ``case.toml`` (metadata),
``session.jsonl`` (the input, byte for byte what an implementation is given) and
``expected/<stage>.json`` (goldens written by the reference). Loading validates the
metadata against ``schemas/case.schema.json``; every problem names its file.
"""

from __future__ import annotations

import copy
import hashlib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path
from typing import Any

import jsonschema

from conformance import jsonio
from conformance._paths import SCHEMA_DIR, corpus_root
from conformance.corpus.stages import ALL_STAGES, DEFAULT_STAGES, api_of
from conformance.errors import CorpusError

OUTCOMES = ("required", "implementation-defined", "reference-misbehaves")
_TOML_POSITION = re.compile(r"\(at line (\d+), column \d+\)")


def read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", path=path) from None
    except UnicodeDecodeError as exc:
        raise CorpusError(f"not UTF-8: {exc.reason}", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_POSITION.search(str(exc))
        line = int(match.group(1)) if match else None
        raise CorpusError(f"not valid TOML: {exc}", path=path, line=line) from None


def _key_line(path: Path, key: str | None) -> int | None:
    """The line that defines a top-level ``key`` in a TOML file (for error messages)."""
    if key is None:
        return None
    pattern = re.compile(rf"^\s*(\[+\s*{re.escape(key)}\b|\"?{re.escape(key)}\"?\s*=)")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    directory: Path
    features: tuple[str, ...]
    clauses: tuple[str, ...] = ()
    description: str = ""
    outcome: str = "required"
    declared_stages: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    source: str = ""

    @property
    def session_path(self) -> Path:
        return self.directory / "session.jsonl"

    @property
    def metadata_path(self) -> Path:
        return self.directory / "case.toml"

    @property
    def stages(self) -> tuple[str, ...]:
        return self.declared_stages if self.declared_stages is not None else DEFAULT_STAGES

    @property
    def apis(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(api for api in map(api_of, self.stages) if api is not None))

    @property
    def events_path(self) -> Path:
        """The recorded RPC event stream, input of the ``events`` stage (captured cases)."""
        return self.directory / "events.jsonl"

    def expected_path(self, stage: str) -> Path:
        return self.directory / "expected" / f"{stage}.json"

    def session_bytes(self) -> bytes:
        return self.session_path.read_bytes()

    def input_sha256(self) -> str:
        """Hash of everything that determines the goldens: the session and the options."""
        digest = hashlib.sha256(self.session_bytes())
        digest.update(jsonio.dumps(self.options))
        return digest.hexdigest()


def _load_schema() -> dict[str, Any]:
    return jsonio.read_json(SCHEMA_DIR / "case.schema.json")


class Corpus:
    """A corpus directory; everything is read lazily and cached."""

    def __init__(self, root: Path | None = None):
        self.root = (root or corpus_root()).resolve()
        if not (self.root / "cases").is_dir():
            raise CorpusError("not a corpus: it has no cases/ directory", path=self.root)

    def _tables(self, directory: str, table: str) -> dict[str, dict[str, Any]]:
        """Merge ``<directory>/*.toml``; an id defined twice is an error naming both files."""
        merged: dict[str, dict[str, Any]] = {}
        origin: dict[str, Path] = {}
        for path in sorted((self.root / directory).glob("*.toml")):
            for name, spec in read_toml(path).get(table, {}).items():
                if name in merged:
                    raise CorpusError(f"{table[:-1]} {name!r} is also defined in {origin[name]}",
                                      path=path)
                merged[name], origin[name] = {**spec, "file": path.name}, path
        return merged

    @cached_property
    def features(self) -> dict[str, dict[str, Any]]:
        """The closed feature vocabulary, from ``features/*.toml``."""
        return self._tables("features", "features")

    @cached_property
    def clauses(self) -> dict[str, dict[str, Any]]:
        """The clause catalogue, from ``clauses/*.toml``."""
        return self._tables("clauses", "clauses")

    @cached_property
    def excluded_clauses(self) -> dict[str, dict[str, Any]]:
        """Documented rules deliberately left out of the catalogue, each with its reason.

        They come from ``[excluded."<id>"]`` tables in ``clauses/*.toml``: rules that no stage
        can observe (where sessions are stored, live-run settings), so no case can cite them.
        """
        return self._tables("clauses", "excluded")

    def lint_catalogue(self) -> list[CorpusError]:
        """Problems in the clause catalogue itself: ids, required fields, overlaps."""
        problems = []
        for table, fields in ((self.clauses, ("doc", "section", "text")),
                              (self.excluded_clauses, ("doc", "section", "reason"))):
            for name, spec in table.items():
                path = self.root / "clauses" / spec["file"]
                stem = Path(spec["file"]).stem
                if not name.startswith(f"{stem}/") or name == f"{stem}/":
                    problems.append(CorpusError(
                        f"clause id {name!r} must be {stem}/<slug> in this file", path=path))
                for key in fields:
                    if not isinstance(spec.get(key), str) or not spec[key].strip():
                        problems.append(CorpusError(
                            f"clause {name!r} needs a non-empty {key}", path=path))
        for name in sorted(self.clauses.keys() & self.excluded_clauses.keys()):
            problems.append(CorpusError(
                f"{name!r} is both a clause and excluded",
                path=self.root / "clauses" / self.excluded_clauses[name]["file"]))
        return problems

    @cached_property
    def models(self) -> dict[str, Any]:
        """Model objects per API for the ``request.<api>`` stages (see reference/models.mjs)."""
        return jsonio.read_json(self.root / "models.json", CorpusError)["models"]

    @cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        return jsonschema.Draft202012Validator(_load_schema())

    def case_directories(self) -> list[Path]:
        return sorted(p.parent for p in (self.root / "cases").rglob("case.toml"))

    def load_case(self, directory: Path) -> Case:
        meta_path = directory / "case.toml"
        meta = read_toml(meta_path)
        errors = sorted(self._validator.iter_errors(meta), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = ".".join(str(p) for p in first.path) or "(top level)"
            key = str(first.path[0]) if first.path else None
            raise CorpusError(f"invalid metadata at {where}: {first.message}", path=meta_path,
                              line=_key_line(meta_path, key))
        if not (directory / "session.jsonl").is_file():
            raise CorpusError("the case has no session.jsonl", path=directory)
        stages = meta.get("stages")
        return Case(
            id=meta["id"],
            title=meta["title"],
            directory=directory,
            features=tuple(meta["features"]),
            clauses=tuple(meta.get("clauses", ())),
            description=meta.get("description", ""),
            outcome=meta.get("outcome", "required"),
            declared_stages=tuple(stages) if stages is not None else None,
            options=meta.get("options", {}),
            source=meta.get("source", ""),
        )

    @cached_property
    def cases(self) -> list[Case]:
        """Every case, sorted by id. Raises on the first malformed case."""
        return sorted((self.load_case(d) for d in self.case_directories()), key=lambda c: c.id)

    def load_all(self) -> tuple[list[Case], list[CorpusError]]:
        """Every loadable case and every problem, for a lint that reports them all."""
        cases, problems = [], []
        for directory in self.case_directories():
            try:
                cases.append(self.load_case(directory))
            except CorpusError as exc:
                problems.append(exc)
        return sorted(cases, key=lambda c: c.id), problems

    def select(self, patterns: Iterable[str] = (), features: Iterable[str] = ()) -> list[Case]:
        """Cases whose id matches any glob in ``patterns`` and that have every feature given."""
        patterns, features = list(patterns), set(features)
        return [
            case for case in self.cases
            if (not patterns or any(fnmatchcase(case.id, p) for p in patterns))
            and features <= set(case.features)
        ]

    def request_options(self, case: Case) -> dict[str, Any]:
        """The run request's ``options``: the case's own, with full model objects merged in."""
        options = copy.deepcopy(case.options)
        request = options.setdefault("request", {})
        overrides = request.get("models", {})
        # catalog = false: the case's models are complete (a captured run's own model).
        use_catalog = request.pop("catalog", True)
        request["models"] = {
            api: {**(self.models[api] if use_catalog else {}), **overrides.get(api, {})}
            for api in case.apis
        }
        options.setdefault("cwd", "/pi-conformance/cwd")
        return options

    def lint(self) -> list[CorpusError]:
        """Every structural problem: metadata, vocabulary, ids, missing and orphan goldens."""
        cases, problems = self.load_all()
        try:
            problems.extend(self.lint_catalogue())
        except CorpusError as exc:
            problems.append(exc)
        seen: dict[str, Path] = {}
        for case in cases:
            if case.id in seen:
                problems.append(CorpusError(
                    f"duplicate case id {case.id!r} (also in {seen[case.id]})",
                    path=case.metadata_path))
            seen.setdefault(case.id, case.metadata_path)
            for feature in case.features:
                if feature not in self.features:
                    problems.append(CorpusError(
                        f"unknown feature {feature!r} (not in features.toml)",
                        path=case.metadata_path))
            for clause in case.clauses:
                if clause in self.excluded_clauses:
                    problems.append(CorpusError(
                        f"clause {clause!r} is excluded from the catalogue "
                        f"({self.excluded_clauses[clause]['reason']}); cite a clause instead",
                        path=case.metadata_path))
                elif clause not in self.clauses:
                    problems.append(CorpusError(
                        f"unknown clause {clause!r} (not in clauses/*.toml)",
                        path=case.metadata_path))
            if "events" in case.stages and not case.events_path.is_file():
                problems.append(CorpusError(
                    "the case has the events stage but no events.jsonl", path=case.directory))
            for stage in case.stages:
                if stage not in ALL_STAGES:
                    problems.append(CorpusError(
                        f"unknown stage {stage!r}", path=case.metadata_path))
                elif not case.expected_path(stage).is_file():
                    problems.append(CorpusError(
                        f"missing golden for stage {stage}; run: pi-conformance corpus "
                        f"regenerate {case.id}", path=case.expected_path(stage)))
            expected_dir = case.directory / "expected"
            if expected_dir.is_dir():
                for golden in sorted(expected_dir.iterdir()):
                    if golden.suffix != ".json" or golden.stem not in case.stages:
                        problems.append(CorpusError(
                            "orphan golden: the case does not have this stage", path=golden))
        return problems

