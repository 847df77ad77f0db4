"""``corpus promote --anonymize``: a reproducer from a private session becomes a public case.

The candidate's session is anonymized (``anonymize.py``), then the implementation and the real
Pi run on the original and on the anonymized session: the case is kept only if the
anonymized one shows the same difference signature on every stage (the same paths and kinds,
as ``discrepancies.grouping`` spells them), since a case that no longer shows the bug is of no
use. The session is anonymized once, under a fresh key that is then dropped: the session that
was checked is the one written. The case records ``anonymized = true`` and the kind of source
it came from; its description is written from the anonymized session's signature, and its
default id from the anonymized session's hash, never from the private values (a candidate's
name is a hash of the private session: a guess at that session could be confirmed with it).
"""

from __future__ import annotations

import hashlib
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.metadata import CaseMetadata
from conformance.corpus.stages import stage_sort_key
from conformance.errors import ConformanceError
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.execution.runner import Limits
from conformance.execution.sessions import SessionJudge
from conformance.implementations.specs import resolve
from conformance.maintenance.anonymize import anonymize
from conformance.maintenance.discrepancies.grouping import Signature
from conformance.maintenance.discrepancies.shrink import Oracle
from conformance.maintenance.promote import promote

CANDIDATE_FILE = "candidate.json"


@dataclass
class Anonymized:
    case: Case
    signatures: dict[str, list[list[str]]]


def source_kind(meta: dict[str, Any], extra: dict[str, Any]) -> str:
    """What kind of source a candidate came from: compare, fuzz, or a plain candidate."""
    if isinstance(extra.get("source"), str):
        return str(extra["source"])
    source = str(meta.get("source", ""))
    if source.startswith("pi-conformance fuzz"):
        return "fuzz"
    return source if source in ("compare", "fuzz") else "candidate"


def signatures(impl_spec: str, texts: list[str], stages: tuple[str, ...], timeout: float
               ) -> list[dict[str, Signature | None]]:
    """How the implementation departs from Pi on each text, per stage, judged as a run
    judges (one pair of fresh processes for all of them)."""
    judge = SessionJudge(resolve(impl_spec), ReferenceGoldens(stage_timeout=timeout),
                         stages=stages, every_api=True, limits=Limits(timeout=timeout),
                         case_id="promote.anonymized")
    with judge:
        oracle = Oracle(judge)
        return [oracle.compare(text, stages) for text in texts]


def _spelled(found: dict[str, Signature | None]) -> dict[str, list[list[str]]]:
    return {stage: sorted([list(item) for item in sig]) for stage, sig in found.items() if sig}


def promote_anonymized(candidate: Path, corpus: Corpus, requested_id: str | None = None,
                       area: str = "compare", impl_spec: str | None = None,
                       timeout: float = 30.0) -> Anonymized:
    meta_path, session_path = candidate / "case.toml", candidate / "session.jsonl"
    for path in (meta_path, session_path):
        if not path.is_file():
            raise ConformanceError("not a candidate: missing " + path.name, path=candidate)
    meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    extra_path = candidate / CANDIDATE_FILE
    extra = jsonio.read_json(extra_path) if extra_path.is_file() else {}
    spec = impl_spec or extra.get("impl")
    if not spec:
        raise ConformanceError("--anonymize needs --impl: the candidate does not say which "
                               "implementation showed the difference", path=candidate)
    stages = tuple(sorted(meta.get("stages") or extra.get("differences", {}),
                          key=stage_sort_key))
    original = session_path.read_bytes().decode("utf-8", errors="replace")
    hidden = anonymize(original)
    before, after = (_spelled(found) for found in
                     signatures(spec, [original, hidden], stages, timeout))
    if not before:
        raise ConformanceError(f"{spec} no longer differs from Pi on this candidate: nothing "
                               "to promote", path=candidate)
    if after != before:
        raise ConformanceError(
            "the anonymized session does not show the same difference (before: "
            f"{before}; after: {after}); promote it without --anonymize only if it holds "
            "nothing private", path=candidate)
    shown = sorted(after, key=stage_sort_key)
    kind = source_kind(meta, extra)
    lines = [f"Anonymized reproducer (source: {kind}): the text, ids, paths, signatures and "
             "images are synthetic; protocol keys, vocabulary and structure are the original's.",
             ""]
    lines += [f"{stage}: " + "; ".join(f"{p} {k}" for p, k in after[stage]) for stage in shown]
    with tempfile.TemporaryDirectory(prefix="pi-conformance-anonymized-") as scratch:
        slug = "anonymized-" + hashlib.sha256(hidden.encode("utf-8")).hexdigest()[:10]
        staged = Path(scratch) / slug
        staged.mkdir()
        (staged / "session.jsonl").write_text(hidden, encoding="utf-8")
        given = CaseMetadata.from_table(meta)
        CaseMetadata(id=f"{area}.{slug}",
                     title=given.title or "an implementation disagrees with Pi",
                     description="\n".join(lines), features=given.features or ("generated",),
                     stages=tuple(stages), source=kind, anonymized=True,
                     outcome=given.outcome, reason=given.reason,
                     discrepancy=given.discrepancy, scope=given.scope).write(staged)
        case = promote(staged, corpus, requested_id, area)
    return Anonymized(case, after)
