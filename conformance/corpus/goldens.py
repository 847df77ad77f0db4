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

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.cases import Case
from conformance.corpus.metadata_cache import MetadataCache, digest
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
    return parse_golden(_golden_bytes(case, stage, path), path, stage)


def _golden_bytes(case: Case, stage: str, path: Path) -> bytes:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise CorpusError(
            f"missing golden for stage {stage}; run: pi-conformance corpus regenerate {case.id}",
            path=path) from None
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", path=path) from None


def parse_golden(raw: bytes, path: Path, stage: str) -> Golden:
    """The golden in ``raw`` (the bytes of ``path``), checked; a CorpusError names the file."""
    try:
        data = jsonio.loads(raw)
    except jsonio.JSONDecodeError as exc:
        raise CorpusError(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path,
                          line=exc.lineno) from None
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


class GoldenChecks(MetadataCache):
    """The digests of golden files that passed ``parse_golden``, by path in the corpus, under
    the digest of this module (its checks) and the runner's version. Unlike case metadata, a
    run reads only the goldens of its selection, so entries it did not see are kept."""

    kind = "golden-checks"

    @staticmethod
    def _stamp_digest() -> str:
        try:
            return digest(Path(__file__).read_bytes())
        except OSError:
            return ""

    def save(self) -> None:
        self.seen = {**self.entries, **self.seen}
        super().save()


GoldenKey = tuple[str, str]  # (case id, stage)


class Goldens(Mapping[GoldenKey, Golden]):
    """The goldens a run needs, each read and checked before the run begins: a missing or
    broken one is a CorpusError (exit 2), never an error in the middle of a run.

    Checking means parsing, about a second for the shipped corpus before the first request.
    So a golden whose exact bytes passed before (``GoldenChecks``) is only read and hashed,
    and kept as bytes, parsed when the run judges it; one parsed to be checked is kept
    parsed. Either way, ``goldens[key]`` is the same Golden.
    """

    def __init__(self) -> None:
        self._kept: dict[GoldenKey, Golden | tuple[bytes, Path, str]] = {}

    def check(self, wanted: Iterable[tuple[Case, str]], root: Path) -> None:
        """Read and check every golden in ``wanted`` not held yet (``root``: the corpus's)."""
        unread = [(case, stage) for case, stage in wanted if (case.id, stage) not in self._kept]
        if not unread:
            return
        checks = GoldenChecks(root)
        for case, stage in unread:
            key = (case.id, stage)
            path = case.expected_path(stage)
            raw = _golden_bytes(case, stage, path)
            name = _relative_name(path, root)
            content = digest(raw)
            if checks.get(name, content) is not None:
                self._kept[key] = (raw, path, stage)
            else:
                self._kept[key] = parse_golden(raw, path, stage)
                checks.put(name, content, {})
        checks.save()

    def __getitem__(self, key: GoldenKey) -> Golden:
        kept = self._kept[key]
        return kept if isinstance(kept, Golden) else parse_golden(*kept)

    def __iter__(self) -> Iterator[GoldenKey]:
        return iter(self._kept)

    def __len__(self) -> int:
        return len(self._kept)

    def update(self, other: Goldens) -> None:
        self._kept.update(other._kept)

    def clear(self) -> None:
        self._kept.clear()


def _relative_name(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def write_golden(case: Case, golden: Golden) -> Path:
    path = case.expected_path(golden.stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(jsonio.dumps_pretty(golden.to_json()), encoding="utf-8")
    return path


def golden_paths(case: Case) -> list[Path]:
    expected = case.directory / "expected"
    return sorted(expected.glob("*.json")) if expected.is_dir() else []
