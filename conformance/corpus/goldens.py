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

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus.answers import PiResult, parse_pi
from conformance.corpus.cases import Case
from conformance.corpus.metadata_cache import MetadataCache, digest
from conformance.errors import CorpusError
from conformance.files import replace_text

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

    @property
    def answer(self) -> PiResult:
        """``result`` as the typed union (checked when the golden was parsed)."""
        return parse_pi(self.result)

    def to_json(self) -> dict[str, Any]:
        data = {"stage": self.stage, "result": self.result, "provenance": self.provenance}
        if self.volatile:
            data["volatile"] = dict(sorted(self.volatile.items()))
        return data


def read_golden(case: Case, stage: str) -> Golden:
    path = case.expected_path(stage)
    return parse_golden(_golden_bytes(case.id, stage, path), path, stage)


@contextlib.contextmanager
def _reading(case_id: str, stage: str, path: Path) -> Iterator[None]:
    """A golden that cannot be read is a CorpusError naming it (and, when it is missing,
    saying what writes it)."""
    try:
        yield
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise CorpusError(
            f"missing golden for stage {stage}; run: pi-conformance corpus regenerate {case_id}",
            path=path) from None
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", path=path) from None


def _golden_bytes(case_id: str, stage: str, path: Path) -> bytes:
    with _reading(case_id, stage, path):
        return path.read_bytes()


def _signature(case_id: str, stage: str, path: Path) -> list[int]:
    """What tells that a file is the one checked before without reading it: size,
    modification time and inode (any rewrite changes one of them)."""
    with _reading(case_id, stage, path):
        status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise CorpusError("not a file", path=path)
    return [status.st_size, status.st_mtime_ns, status.st_ino]


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
    """The digests of golden files that passed ``parse_golden``, each with the file's
    signature when it was read (``_signature``), by path in the corpus, under the digest of
    this module (its checks) and the runner's version. Unlike case metadata, a run reads only
    the goldens of its selection, so entries it did not see are kept."""

    kind = "golden-checks"

    def vouches_for(self, name: str, signature: list[int]) -> bool:
        """Whether the file ``name``, unread, is the one that passed: same signature."""
        entry = self.entries.get(name)
        if (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict)
                and entry[1].get("signature") == signature):
            self.seen[name] = entry
            return True
        return False

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
    """The goldens a run needs, each checked before the run begins: a missing or broken one is
    a CorpusError (exit 2), never an error in the middle of a run.

    Checking means parsing, about a second for the shipped corpus before the first request,
    and reading and hashing every file still took 0.4 s. So a golden is checked in the
    cheapest way that still proves it (``GoldenChecks``):

    * the same file as one that passed (same size, modification time and inode): only
      ``stat``-ed, then read and parsed when the run judges it;
    * the same bytes as a file that passed: read and hashed, kept as bytes, parsed when judged;
    * anything else: read and parsed now, and kept parsed.

    Either way ``goldens[key]`` is the same Golden, and a golden read when judged is still
    parsed with every check: one changed behind its signature's back is a CorpusError naming
    it, for that stage alone.
    """

    def __init__(self) -> None:
        self._kept: dict[GoldenKey, Golden | tuple[bytes | None, Path, str]] = {}

    def check(self, wanted: Iterable[tuple[Case, str]], root: Path) -> None:
        """Read and check every golden in ``wanted`` not held yet (``root``: the corpus's)."""
        unread = [(case, stage) for case, stage in wanted if (case.id, stage) not in self._kept]
        if not unread:
            return
        checks = GoldenChecks(root)
        for case, stage in unread:
            key = (case.id, stage)
            path = case.expected_path(stage)
            name = _relative_name(path, root)
            signature = _signature(case.id, stage, path)  # before reading: a later change shows
            if checks.vouches_for(name, signature):
                self._kept[key] = (None, path, stage)
                continue
            raw = _golden_bytes(case.id, stage, path)
            content = digest(raw)
            if checks.get(name, content) is not None:
                self._kept[key] = (raw, path, stage)
            else:
                self._kept[key] = parse_golden(raw, path, stage)
            checks.put(name, content, {"signature": signature})
        checks.save()

    def __getitem__(self, key: GoldenKey) -> Golden:
        kept = self._kept[key]
        if isinstance(kept, Golden):
            return kept
        raw, path, stage = kept
        return parse_golden(_golden_bytes(key[0], stage, path) if raw is None else raw,
                            path, stage)

    def __iter__(self) -> Iterator[GoldenKey]:
        return iter(self._kept)

    def __len__(self) -> int:
        return len(self._kept)

    def update(self, other: Goldens) -> None:
        self._kept.update(other._kept)

    def clear(self) -> None:
        self._kept.clear()


def _relative_name(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, POSIX-style (by its text: pathlib's relative_to cost a
    third of checking the shipped corpus's goldens)."""
    text, prefix = path.as_posix(), root.as_posix().rstrip("/") + "/"
    return text[len(prefix):] if text.startswith(prefix) else text


def write_golden(case: Case, golden: Golden) -> Path:
    """Write one golden whole or not at all (an interrupted or full-disk regenerate leaves the
    old one as it was)."""
    path = case.expected_path(golden.stage)
    replace_text(path, jsonio.dumps_pretty(golden.to_json()))
    return path


def golden_paths(case: Case) -> list[Path]:
    expected = case.directory / "expected"
    return sorted(expected.glob("*.json")) if expected.is_dir() else []
