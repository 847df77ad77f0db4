"""Promote a fuzzer candidate into the corpus: copy its input, give it a permanent id, and
write its goldens through the same code path as ``pi-conformance corpus regenerate`` (the real Pi,
never our code)."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

from conformance.corpus.cases import Case, Corpus
from conformance.corpus.metadata import CaseMetadata
from conformance.errors import ConformanceError, CorpusError
from conformance.maintenance.regenerate import regenerate

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+$")
_SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def case_id_for(requested: str | None, candidate_id: str, area: str) -> str:
    """``--id area.slug`` as given; a bare ``slug`` goes into ``area``; no ``--id`` keeps the
    candidate's slug, in ``area``."""
    if requested is None:
        requested = candidate_id.split(".", 1)[-1]
    if "." not in requested:
        if not _SLUG.match(area):
            raise ConformanceError(f"--area {area!r} must be lowercase words joined by '-'")
        requested = f"{area}.{requested}"
    if not _ID.match(requested):
        raise ConformanceError(
            f"case id {requested!r} must look like area.slug (lowercase, digits and '-')")
    return requested


def promote(candidate: Path, corpus: Corpus, requested_id: str | None = None,
            area: str = "fuzz") -> Case:
    """Copy ``candidate`` into ``corpus`` as a case and write its goldens from Pi."""
    meta_path, session_path = candidate / "case.toml", candidate / "session.jsonl"
    for path in (meta_path, session_path):
        if not path.is_file():
            raise ConformanceError("not a fuzzer candidate: missing " + path.name,
                                   path=candidate)
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"cannot read the candidate's metadata: {exc}", path=meta_path) \
            from None
    case_id = case_id_for(requested_id, str(meta.get("id", "")), area)
    if any(case.id == case_id for case in corpus.load_all()[0]):
        raise ConformanceError(f"the corpus already has a case {case_id}", path=corpus.root)
    first, rest = case_id.split(".", 1)
    destination = corpus.root / "cases" / first / rest
    if destination.exists():
        raise ConformanceError("already exists; choose another --id", path=destination)
    destination.mkdir(parents=True)
    try:
        shutil.copyfile(session_path, destination / "session.jsonl")
        CaseMetadata.from_table(meta).with_id(case_id).write(destination)
        case = corpus.load_case(destination)
        unknown = [f for f in case.features if f not in corpus.features]
        if unknown:
            raise CorpusError(f"unknown feature(s) {', '.join(unknown)}",
                              path=destination / "case.toml")
        regenerate(corpus, [case])
    except BaseException:
        shutil.rmtree(destination, ignore_errors=True)
        raise
    return case
