"""The corpus on disk: cases, their metadata, the feature vocabulary and the clause catalogue.

A case is a directory ``corpus/cases/<area>/<slug>/`` holding ``case.toml`` (metadata),
``session.jsonl`` (the input, byte for byte what an implementation is given) and
``expected/<stage>.json`` (goldens written by the reference). Loading validates the
metadata against ``schemas/case.schema.json``; every problem names its file.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
import re
import stat
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance import jsonio
from conformance._paths import SCHEMA_DIR, corpus_root
from conformance.corpus.generated import GeneratedSession
from conformance.corpus.metadata import CaseMetadata
from conformance.corpus.metadata_cache import MetadataCache, digest
from conformance.corpus.stages import (
    ALL_STAGES,
    DEFAULT_STAGES,
    RESPONSE_PREFIX,
    api_of,
    inputs_of,
    is_response,
)
from conformance.errors import CorpusError

if TYPE_CHECKING:
    import jsonschema

    from conformance.corpus.http_responses import HttpResponse

# What Pi does on a case, and so what an answer that differs from Pi's means
# (docs/corpus.md, "Outcome classes"): required (it is wrong), implementation-defined (an
# accident nobody need copy), reference-misbehaves (Pi hangs or crashes), pi-throws-on-valid-
# input (Pi rejects what its docs call valid), pi-contradicts-docs (Pi does not do what its docs
# say; a record under corpus/discrepancies/ says how).
OUTCOMES = ("required", "implementation-defined", "reference-misbehaves",
            "pi-throws-on-valid-input", "pi-contradicts-docs")
# The classes where an answer that follows Pi's docs instead of Pi is ``as-documented``.
DOCUMENTED_OUTCOMES = ("pi-throws-on-valid-input", "pi-contradicts-docs")
_TOML_POSITION = re.compile(r"\(at line (\d+), column \d+\)")


def read_toml(path: Path, data: bytes | None = None) -> dict[str, Any]:
    """``path`` parsed; ``data``, when given, is its content already read."""
    try:
        if data is None:
            text = path.read_text(encoding="utf-8")
        else:  # decoded exactly as read_text decodes (newlines included)
            text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
        return tomllib.loads(text)
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
    reason: str = ""
    discrepancy: str = ""
    declared_stages: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    source: str = ""
    generated: GeneratedSession | None = None
    # Feeding stages whose golden the case does not commit (too large): see the schema.
    withheld_inputs: tuple[str, ...] = ()
    # What the outcome class concerns: stage -> JSON paths (judging/scope.py); required
    # everywhere else. Empty for a required case.
    scope: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)
    # The session, when it lives outside the case directory: a user's file (compare), a
    # generated session (fuzz), a shrink candidate. Read, never written.
    input_file: Path | None = None

    @property
    def session_path(self) -> Path:
        """The input; for a ``[generate]`` case, the cached build (made on first use)."""
        if self.input_file is not None:
            return self.input_file
        if self.generated is not None:
            return self.generated.ensure()
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

    def response_path(self, api: str) -> Path:
        """The provider's HTTP response, input of ``response.<api>``
        (``conformance/corpus/http_responses.py`` says its form)."""
        return self.directory / "responses" / f"{api}.json"

    def response_stages(self) -> tuple[str, ...]:
        return tuple(stage for stage in self.stages if is_response(stage))

    def responses_for(self, stages: Iterable[str]) -> dict[str, HttpResponse]:
        """The HTTP response of each ``response.<api>`` among ``stages``, by API: what a run
        request gives the implementation (and Pi) for those stages."""
        from conformance.corpus import http_responses

        apis = [stage.removeprefix(RESPONSE_PREFIX) for stage in stages if is_response(stage)]
        return {api: http_responses.load(self.response_path(api)) for api in apis}

    def expected_path(self, stage: str) -> Path:
        return self.directory / "expected" / f"{stage}.json"

    def session_bytes(self) -> bytes:
        return self.session_path.read_bytes()

    def input_sha256(self) -> str:
        """Hash of everything that determines the goldens: the session and the options, and
        the provider responses of a case that has response stages."""
        digest = hashlib.sha256(self.session_bytes())
        digest.update(jsonio.dumps(self.options))
        for stage in self.response_stages():
            path = self.response_path(stage.removeprefix(RESPONSE_PREFIX))
            if path.is_file():
                digest.update(path.read_bytes())
        return digest.hexdigest()


def _load_schema() -> dict[str, Any]:
    schema: dict[str, Any] = jsonio.read_json(SCHEMA_DIR / "case.schema.json")
    return schema


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
               (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
               (stat.S_ISBLK, "a device"))
_CASE_FILES = ("case.toml", "session.jsonl", "events.jsonl")


def _not_a_case_file(entry: os.DirEntry[str]) -> str | None:
    """Why ``entry`` cannot be a case file, or None: each must be a regular file inside the
    corpus. A link would hand an implementation (and the reference) whatever it points at,
    /etc/passwd as well as another case's golden; a FIFO would block whoever opens it.
    (Its directory is inside the corpus: case directories are found without following
    links, and ``expected/`` is checked not to be one.) A directory entry answers from its
    type alone, with no system call, so checking the whole corpus costs next to nothing."""
    if entry.is_symlink():
        return "a symbolic link; case files must be regular files inside the corpus"
    if entry.is_file(follow_symlinks=False):
        return None
    mode = entry.stat(follow_symlinks=False).st_mode
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a file")
    return f"not a regular file ({kind}); case files must be regular files"


def _check_case_files(directory: Path) -> None:
    """Every file of a case is a regular file inside the corpus (see _not_a_case_file)."""
    try:
        with os.scandir(directory) as scan:
            entries = {entry.name: entry for entry in scan}
        checked = [entries[name] for name in _CASE_FILES if name in entries]
        for folder in ("expected", "responses"):
            found = entries.get(folder)
            if found is not None and found.is_dir(follow_symlinks=False):
                with os.scandir(found.path) as scan:
                    checked += sorted(scan, key=lambda entry: entry.name)
            elif found is not None:
                checked.append(found)
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", path=directory) from None
    for entry in checked:
        problem = _not_a_case_file(entry)
        if problem is not None:
            raise CorpusError(problem, path=entry.path)


def duplicate_ids(cases: Iterable[Case]) -> list[CorpusError]:
    """One problem per case whose id an earlier case already has, naming both directories."""
    seen: dict[str, Path] = {}
    problems = []
    for case in cases:
        if case.id in seen:
            problems.append(CorpusError(
                f"duplicate case id {case.id!r}: {seen[case.id]} and {case.directory}",
                path=case.metadata_path))
        seen.setdefault(case.id, case.directory)
    return problems


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
        models: dict[str, Any] = jsonio.read_json(self.root / "models.json",
                                                  CorpusError)["models"]
        return models

    @cached_property
    def _validator(self) -> jsonschema.protocols.Validator:
        import jsonschema  # only when a case.toml is not in the metadata cache

        return jsonschema.Draft202012Validator(_load_schema())

    @cached_property
    def _metadata_cache(self) -> MetadataCache:
        return MetadataCache(self.root)

    @cached_property
    def _id_pattern(self) -> str:
        return str(_load_schema()["properties"]["id"]["pattern"])

    def case_directories(self) -> list[Path]:
        """Every directory under ``cases/`` holding a ``case.toml``, at any depth (os.walk:
        pathlib's rglob took a tenth of a second on the shipped corpus, on every command)."""
        return sorted(Path(top) for top, _, files in os.walk(self.root / "cases")
                      if "case.toml" in files)

    def load_case(self, directory: Path) -> Case:
        meta_path = directory / "case.toml"
        _check_case_files(directory)
        meta = CaseMetadata.from_table(self._metadata(meta_path))
        generated = (GeneratedSession.from_table(dict(meta.generate), meta_path)
                     if meta.generate else None)
        if generated is None and not (directory / "session.jsonl").is_file():
            raise CorpusError("the case has no session.jsonl", path=directory)
        if generated is not None and (directory / "session.jsonl").is_file():
            raise CorpusError("a [generate] case has no session.jsonl: its session is built "
                              "from the seed", path=directory / "session.jsonl")
        return Case(
            id=meta.id,
            title=meta.title,
            directory=directory,
            features=meta.features,
            clauses=meta.clauses,
            description=meta.description,
            outcome=meta.outcome,
            reason=meta.reason,
            discrepancy=meta.discrepancy,
            declared_stages=meta.stages,
            options=dict(meta.options),
            source=meta.source,
            generated=generated,
            withheld_inputs=meta.withheld_inputs,
            scope=dict(meta.scope),
        )

    def _metadata(self, meta_path: Path) -> dict[str, Any]:
        """``case.toml`` read and checked against the schema; from the metadata cache when
        this exact content passed before (corpus/metadata_cache.py)."""
        try:
            data = meta_path.read_bytes()
        except OSError as exc:
            raise CorpusError(f"cannot read: {exc.strerror}", path=meta_path) from None
        name, content = os.path.relpath(meta_path, self.root), digest(data)
        cached = self._metadata_cache.get(name, content)
        if cached is not None:
            return cached
        meta = read_toml(meta_path, data)
        errors = sorted(self._validator.iter_errors(meta), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = ".".join(str(p) for p in first.path) or "(top level)"
            key = str(first.path[0]) if first.path else None
            raise CorpusError(f"invalid metadata at {where}: {first.message}", path=meta_path,
                              line=_key_line(meta_path, key))
        if not re.fullmatch(self._id_pattern, meta["id"]):
            # The schema's pattern as JSON Schema means it: its $ ends the string, where
            # Python's re.search (what the validator uses) lets $ match before a final newline.
            raise CorpusError(f"invalid metadata at id: {meta['id']!r} does not match "
                              f"{self._id_pattern!r}", path=meta_path,
                              line=_key_line(meta_path, "id"))
        self._metadata_cache.put(name, content, meta)
        return meta

    @cached_property
    def cases(self) -> list[Case]:
        """Every case, sorted by id. Raises on the first malformed case, or the first id two
        cases share (a run would judge one against the other's goldens)."""
        cases = [self.load_case(d) for d in self.case_directories()]
        self._metadata_cache.save()
        for problem in duplicate_ids(cases):
            raise problem
        return sorted(cases, key=lambda c: c.id)

    def load_all(self) -> tuple[list[Case], list[CorpusError]]:
        """Every loadable case and every problem, for a lint that reports them all."""
        cases, problems = [], []
        for directory in self.case_directories():
            try:
                cases.append(self.load_case(directory))
            except CorpusError as exc:
                problems.append(exc)
        self._metadata_cache.save()
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
        missing = [api for api in case.apis if use_catalog and api not in self.models]
        if missing:
            raise CorpusError(
                f"models.json has no model for {', '.join(missing)}, which case {case.id} "
                "sends requests to; write it from Pi's catalog with "
                "`pi-conformance corpus regenerate`", path=self.root / "models.json")
        request["models"] = {
            api: {**(self.models[api] if use_catalog else {}), **overrides.get(api, {})}
            for api in case.apis
        }
        options.setdefault("cwd", "/pi-conformance/cwd")
        return options

    def discrepancy_record(self, record: str) -> dict[str, Any] | None:
        """``discrepancies/<record>.toml``, or None when there is no such record."""
        path = self.root / "discrepancies" / f"{record}.toml"
        return read_toml(path) if path.is_file() else None

    def lint_outcome(self, case: Case) -> list[CorpusError]:
        """A case that says Pi contradicts its docs must name the record that shows it."""
        if case.outcome != "pi-contradicts-docs":
            return []
        record = self.discrepancy_record(case.discrepancy)
        if record is None:
            return [CorpusError(
                f"discrepancy {case.discrepancy!r} is not a record under corpus/discrepancies/; "
                "a case of outcome pi-contradicts-docs names the record of the contradiction",
                path=case.metadata_path, line=_key_line(case.metadata_path, "discrepancy"))]
        if case.id not in record.get("cases", []):
            return [CorpusError(
                f"discrepancy record {case.discrepancy!r} does not list this case in its cases",
                path=case.metadata_path, line=_key_line(case.metadata_path, "discrepancy"))]
        return []

    @staticmethod
    def lint_responses(case: Case) -> list[CorpusError]:
        """Each ``response.<api>`` stage has its response file, and each file is well formed
        and belongs to a declared stage."""
        from conformance.corpus import http_responses

        problems = []
        declared = {stage.removeprefix(RESPONSE_PREFIX) for stage in case.response_stages()}
        for api in sorted(declared):
            path = case.response_path(api)
            if not path.is_file():
                problems.append(CorpusError(
                    f"the case has the response.{api} stage but no responses/{api}.json",
                    path=case.directory))
                continue
            try:
                http_responses.load(path)
            except CorpusError as exc:
                problems.append(exc)
        folder = case.directory / "responses"
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.suffix != ".json" or path.stem not in declared:
                    problems.append(CorpusError(
                        "a response file with no response stage declared for it "
                        f"(declare response.{path.stem} in stages, or remove it)", path=path))
        return problems

    @staticmethod
    def lint_inputs(case: Case) -> list[CorpusError]:
        """Every stage's inputs are stages of the case (their goldens are what an
        implementation given its input is given), or declared ``withheld_inputs``: otherwise
        such an implementation is never judged on the stage, and nobody is told why."""
        stages = set(case.stages)
        absent = sorted({source for stage in case.stages for source in inputs_of(stage)
                         if source not in stages and source not in case.withheld_inputs})
        stray = sorted(set(case.withheld_inputs) - {source for stage in case.stages
                                                    for source in inputs_of(stage)})
        problems = []
        if absent:
            problems.append(CorpusError(
                f"the case has no golden for {', '.join(absent)}, which its stages "
                f"({', '.join(s for s in case.stages if set(inputs_of(s)) & set(absent))}) "
                "are given as input: add the stage(s), or declare them in withheld_inputs",
                path=case.metadata_path, line=_key_line(case.metadata_path, "stages")))
        if stray:
            problems.append(CorpusError(
                f"withheld_inputs names {', '.join(stray)}, which no stage of the case is given",
                path=case.metadata_path, line=_key_line(case.metadata_path, "withheld_inputs")))
        return problems

    @staticmethod
    def lint_scope(case: Case) -> list[CorpusError]:
        """An outcome class's scope names stages of the case (the schema requires a scope
        with every class but ``required``, and refuses one without)."""
        strays = [stage for stage in case.scope if stage not in case.stages]
        if not strays:
            return []
        return [CorpusError(
            f"scope names {', '.join(strays)}, which the case does not have (its stages: "
            f"{', '.join(case.stages)})", path=case.metadata_path,
            line=_key_line(case.metadata_path, "scope"))]

    def lint_records(self, cases: list[Case]) -> list[CorpusError]:
        """The case a discrepancy record checks is where Pi contradicts its docs: its outcome
        must say so, or an implementation that follows the docs there fails like a wrong one."""
        by_id = {case.id: case for case in cases}
        problems = []
        for path in sorted((self.root / "discrepancies").glob("*.toml")):
            try:
                record = read_toml(path)
            except CorpusError as exc:
                problems.append(exc)
                continue
            checked = by_id.get(record.get("check", {}).get("case", ""))
            if checked is None or record.get("resolved"):
                continue
            if checked.outcome not in DOCUMENTED_OUTCOMES or checked.discrepancy != path.stem:
                problems.append(CorpusError(
                    f"case {checked.id} is where this record shows Pi contradicting its docs; "
                    f"give it outcome = \"pi-contradicts-docs\", discrepancy = \"{path.stem}\" "
                    "and a reason", path=checked.metadata_path))
        return problems

    def lint(self) -> list[CorpusError]:
        """Every structural problem: metadata, vocabulary, ids, missing and orphan goldens."""
        cases, problems = self.load_all()
        try:
            problems.extend(self.lint_catalogue())
        except CorpusError as exc:
            problems.append(exc)
        problems.extend(duplicate_ids(cases))
        problems.extend(self.lint_records(cases))
        for case in cases:
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
            problems.extend(self.lint_outcome(case))
            problems.extend(self.lint_inputs(case))
            problems.extend(self.lint_scope(case))
            if "events" in case.stages and not case.events_path.is_file():
                problems.append(CorpusError(
                    "the case has the events stage but no events.jsonl", path=case.directory))
            problems.extend(self.lint_responses(case))
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

