"""The reference as an oracle for any session file: what the real Pi answers, stage by stage.

``reference run`` prints these answers, ``compare`` writes them as the goldens an
implementation is judged against. The user's file is never handed to Pi: it is copied into a
temporary directory first (Pi rewrites what it opens; the harness copies once more). Every
stage gets one verdict: Pi's ``output``, its rejection, or ``misbehaved`` when it hung or
crashed on that stage (each stage has its own timeout, so a hang costs one stage, not a file);
or ``over-limit`` when the question or Pi's answer is past one of the runner's own size limits
(``process.MAX_REQUEST``, ``process.MAX_LINE``): the runner's limit, not Pi misbehaving.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import shutil
import tempfile
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.corpus.stages import CAPTURE_STAGES, api_of, is_response, stage_sort_key
from conformance.errors import ConformanceError, ImplementationError
from conformance.files import UnreadableFile, read_regular
from conformance.implementations import process, protocol
from conformance.implementations.process import OverLimit, RequestTooLarge
from conformance.implementations.transports import Implementation, reference

#: Seconds Pi may take for one stage of one file; a multi-megabyte session takes well under one.
STAGE_TIMEOUT = 30.0
#: Pi's process is restarted after it has read this much: V8 keeps the heap it grew on big
#: files, so over a whole sessions tree its memory would only go up.
RESTART_AFTER_BYTES = 32 * 1024 * 1024
CWD = "/pi-conformance/cwd"
SCHEMA = "pi-conformance/reference-run/1"
_CHUNK = 1 << 20
_SEQ = itertools.count(1)
#: The verdict of a stage not asked or not read because of the runner's own size limits.
OVER_LIMIT = "over-limit"


def over_limit(detail: str) -> dict[str, Any]:
    return {OVER_LIMIT: {"detail": detail}}


UNREADABLE = "unreadable"


def unreadable(detail: str) -> dict[str, Any]:
    """The verdict for a file that could not be read (not a regular file, gone, no access):
    nobody was asked."""
    return {UNREADABLE: {"detail": detail}}


def find_sessions(paths: Iterable[Path], exclude: Iterable[Path] = ()) -> list[Path]:
    """Session files named directly, and every ``*.jsonl`` under a directory (recursively), in
    a stable order, each once, but those in ``exclude`` (the run's own report). What is not a
    regular file (a FIFO, a dangling link) is listed too: reading it is its own error, never
    a silent skip. A path that does not exist is an error naming it."""
    skip = {p.absolute() for p in exclude}
    found: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            for file in sorted(p for p in path.rglob("*.jsonl") if not p.is_dir()):
                if file.absolute() not in skip:
                    found.setdefault(file, None)
        elif path.exists() or path.is_symlink():
            found.setdefault(path, None)
        else:
            raise ConformanceError("no such file or directory", path=path)
    return list(found)


def file_sha256(path: Path) -> str:
    """The file's digest, read in chunks (a session may be many megabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def session_key(path: Path, roots: Iterable[Path]) -> str:
    """A file's name for sharding and case ids, the same on every CI machine: its path
    relative to the directory given that holds it (under that directory's name when several
    paths were given), else its own path as given."""
    roots = list(roots)
    resolved = path.parent.resolve() / path.name  # a link is named as found, not as aimed
    for root in roots:
        base = root.resolve()
        if base.is_dir() and resolved.is_relative_to(base):
            relative = resolved.relative_to(base).as_posix()
            return f"{base.name}/{relative}" if len(roots) > 1 else relative
    return path.as_posix()


def default_stages(hello: protocol.Hello) -> list[str]:
    """Every stage the reference answers from a session alone, in stage order (``events``
    needs a recorded event stream or a turn script, ``response.<api>`` a provider's response:
    a session file has neither)."""
    return sorted((s for s in hello.stages if s not in CAPTURE_STAGES and not is_response(s)),
                  key=stage_sort_key)


def request_options(stages: Iterable[str]) -> dict[str, Any]:
    """Run options: a fixed cwd and, for request stages, the corpus's model objects."""
    options: dict[str, Any] = {"cwd": CWD}
    apis = [api for api in map(api_of, stages) if api is not None]
    if apis:
        from conformance.corpus.cases import Corpus

        models = Corpus().models
        options["request"] = {"models": {api: models[api] for api in apis}}
    return options


@dataclass(frozen=True)
class FileAnswers:
    """Pi's verdict on every asked stage of one file."""

    path: Path
    sha256: str
    size: int
    # stage -> {"output"|"rejected"|"misbehaved"|OVER_LIMIT|UNREADABLE}
    results: dict[str, dict[str, Any]]
    seconds: float

    def kinds(self) -> dict[str, str]:
        return {stage: next(iter(result)) for stage, result in self.results.items()}

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "sha256": self.sha256, "bytes": self.size,
                "seconds": round(self.seconds, 3), "stages": self.results}


class ReferenceOracle:
    """The real Pi, started once, answering whole session files (copies of them)."""

    def __init__(self, stages: Iterable[str] = (), *, stage_timeout: float = STAGE_TIMEOUT,
                 impl: Implementation | None = None,
                 variation: Mapping[str, str] | None = None,
                 hint: tuple[str, ...] | None = None):
        """``variation``: the harness's randomness, clock and scratch settings
        (``volatility.VARIATIONS``); ``hint``: the stages it will be asked
        (``Implementation.stages_hint``), so that it loads only what they need."""
        self.impl = impl or reference(variation)
        if hint is not None:
            self.impl.stages_hint = hint
        self.wanted = tuple(stages)
        self.stage_timeout = stage_timeout
        self.stages: list[str] = []
        self.options: dict[str, Any] = {}
        self.read_since_start = 0
        self.needs_restart = False
        self.scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-oracle-"))
        self._remove_scratch = weakref.finalize(self, shutil.rmtree, self.scratch, True)

    def __enter__(self) -> ReferenceOracle:
        try:
            self.hello = self.impl.start()
        except BaseException:
            self.close()
            raise
        available = default_stages(self.hello)
        unknown = [s for s in self.wanted if s not in available]
        if unknown:
            self.close()
            raise ConformanceError(f"the reference does not answer {', '.join(unknown)} "
                                   f"(it answers {', '.join(available)})")
        self.stages = [s for s in available if not self.wanted or s in self.wanted]
        self.options = request_options(self.stages)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(ConformanceError):
            self.impl.close()
        self._remove_scratch()

    @property
    def versions(self) -> dict[str, str]:
        """Pi's package versions, from its hello; none yet while it is still starting."""
        hello = getattr(self, "hello", None)
        if hello is None:
            return {}
        return {k: str(v) for k, v in hello.implementation.get("dependencies", {}).items()}

    def answer(self, path: Path, stages: Iterable[str] | None = None) -> FileAnswers:
        """Pi's answer for every stage on a copy of ``path``."""
        import time

        asked = list(stages) if stages is not None else list(self.stages)
        started = time.perf_counter()
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size > process.MAX_REQUEST:  # not even read: it could never be sent
            detail = RequestTooLarge("request line", size, process.MAX_REQUEST, "request",
                                     "MAX_REQUEST", " of session alone; not sent").of("Pi")
            return FileAnswers(path, "", size, {stage: over_limit(detail) for stage in asked},
                               time.perf_counter() - started)
        try:  # one snapshot, read once; a FIFO, a directory, a file gone: its own verdict
            text = read_regular(path, process.MAX_REQUEST, "MAX_REQUEST")
        except UnreadableFile as exc:
            return FileAnswers(path, "", size, {stage: unreadable(exc.problem)
                                                for stage in asked},
                               time.perf_counter() - started)
        sha = hashlib.sha256(text).hexdigest()
        results = self.ask_bytes(text, asked)
        return FileAnswers(path, sha, len(text), results, time.perf_counter() - started)

    def ask_text(self, text: str, stages: list[str],
                 options: Mapping[str, Any] | None = None,
                 responses: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """Every stage at once; if Pi hangs or crashes, each stage again on its own, so the
        stages it does answer keep their answer and the others say how Pi misbehaved.
        ``options``: the run options (default: the oracle's, for its stages)."""
        try:
            return self._ask(text, stages, self.stage_timeout * max(1, len(stages)), options,
                             responses)
        except RequestTooLarge as exc:  # never sent: no stage alone would be either
            return {stage: over_limit(exc.of("Pi")) for stage in stages}
        except ImplementationError:
            self._recover()
        if len(stages) == 1:
            return {stages[0]: self._misbehaved(text, stages[0], options, responses)}
        results: dict[str, dict[str, Any]] = {}
        for stage in stages:
            results[stage] = self._misbehaved(text, stage, options, responses)
        return results

    def ask_bytes(self, session: bytes, stages: list[str],
                  options: Mapping[str, Any] | None = None,
                  responses: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """``ask_text`` for a session's bytes (as the runner read them), restarting Pi
        after it has read ``RESTART_AFTER_BYTES`` (V8 keeps the heap it grew)."""
        results = self.ask_text(session.decode("utf-8", errors="replace"), stages, options,
                                responses)
        self.read_since_start += len(session)
        if self.read_since_start > RESTART_AFTER_BYTES:
            self.read_since_start = 0
            self._recover()
        return results

    def _misbehaved(self, text: str, stage: str,
                    options: Mapping[str, Any] | None = None,
                    responses: Mapping[str, Any] | None = None) -> dict[str, Any]:
        try:
            return self._ask(text, [stage], self.stage_timeout, options, responses)[stage]
        except OverLimit as exc:
            if not isinstance(exc, RequestTooLarge):
                self._recover()
            return over_limit(exc.of("Pi"))
        except ImplementationError as exc:
            self._recover()
            detail = str(exc)
            kind = "timeout" if "no answer within" in detail else "crash"
            return {"misbehaved": {"kind": kind, "detail": detail[:2000]}}

    def _recover(self) -> None:
        """Restart Pi before the next question, not now: after the last file's, none is
        (a hung or crashed process is already killed by the failed run)."""
        self.needs_restart = True

    def _ask(self, text: str, stages: list[str], timeout: float,
             options: Mapping[str, Any] | None = None,
             responses: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """``responses``: per API, the provider response a ``response.<api>`` stage reads (the
        case's, as the runner sends the implementation)."""
        if self.needs_restart:
            self.needs_restart = False
            with contextlib.suppress(ConformanceError):  # then the run below says it crashed
                self.impl.restart()
        seq = next(_SEQ)
        path = self.scratch / f"ask-{seq}.jsonl"
        path.write_text(text, encoding="utf-8")
        try:
            request = protocol.run_request(seq, "reference.session", (), str(path), text,
                                           stages, dict(options if options is not None
                                                        else self.options),
                                           responses=dict(responses or {}))
            answer = self.impl.run(request, timeout)
        finally:
            path.unlink(missing_ok=True)
        results = protocol.check_run_answer(answer, seq, stages)
        for stage, result in results.items():
            kind = next(iter(result))
            if kind in ("error", "protocol-error", "skipped"):
                raise ImplementationError(f"the reference could not answer {stage}: {result}")
        return results


def document_head(oracle: ReferenceOracle, files: int) -> dict[str, Any]:
    """What ``reference run --format json`` says before the files
    (schemas/reference-run.schema.json)."""
    from conformance import __version__

    return {"schema": SCHEMA, "runner": {"name": "pi-conformance", "version": __version__},
            "reference": oracle.versions, "stages": oracle.stages, "cwd": CWD,
            "stage_timeout": oracle.stage_timeout, "count": files}


def summarize(stage: str, result: dict[str, Any]) -> str:
    """One line for people: what Pi did with the stage, and the size of its answer."""
    kind, value = next(iter(result.items()))
    if kind == "rejected":
        return f"rejected: {_one_line(str(value.get('message', '')), 300)}"
    if kind == "misbehaved":
        return (f"Pi misbehaved ({value.get('kind')}): "
                f"{_one_line(str(value.get('detail', '')), 200)}")
    if kind == OVER_LIMIT:
        return f"not answered: {_one_line(str(value.get('detail', '')), 300)}"
    if kind == UNREADABLE:
        return f"not read: {_one_line(str(value.get('detail', '')), 300)}"
    return "output: " + _shape(stage, value)


def _shape(stage: str, value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} item(s)"
    if not isinstance(value, dict):
        return repr(value)[:80]
    if stage == "branch":
        return f"leaf {value.get('leafId')!r}, path of {len(value.get('path') or [])} entries"
    if stage == "stats" and isinstance(value.get("tokens"), dict):
        return (f"{value.get('totalMessages')} message(s), "
                f"{value['tokens'].get('total')} tokens, cost {value.get('cost')}")
    parts = []
    for key, item in value.items():
        if isinstance(item, list):
            parts.append(f"{key}: {len(item)}")
        elif isinstance(item, (str, int, float, bool)) or item is None:
            parts.append(f"{key}: {_one_line(str(item), 40)}")
    return ", ".join(parts[:6]) or f"{len(value)} key(s)"


def _one_line(text: str, limit: int) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= limit else flat[:limit] + "…"
