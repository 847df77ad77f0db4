"""Differential runs on real session files: an implementation against the real Pi.

Each file becomes a case of a temporary corpus (its ``case.toml`` and a link to the file);
when its turn comes, the reference answers every stage both sides claim and its answers are
written as that case's goldens, then the implementation runs the case through
``reporting.run.stream_run``, exactly as ``run`` would. So the report, the renderers, the
baseline and the root-cause grouping are the ones ``run`` has. A file's goldens are deleted
once it is judged, and the runner forgets them: memory and disk stay bounded by the largest
file, whatever the size of the tree.

Every new disagreement (a stage and a signature not seen in an earlier file) is shrunk by
delta debugging (``discrepancies.shrink``) against both processes and written as a candidate
case directory, which ``corpus promote --anonymize`` can turn into a public case.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from conformance import __version__, jsonio
from conformance._paths import corpus_root
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.goldens import Golden, write_golden
from conformance.corpus.shards import Shard
from conformance.corpus.stages import stage_sort_key
from conformance.errors import ConformanceError
from conformance.implementations.specs import resolve
from conformance.judging.baseline import Baseline
from conformance.judging.runner import RunSettings, Selection
from conformance.judging.verdicts import StageResult
from conformance.maintenance.discrepancies.grouping import Signature, result_signature
from conformance.maintenance.discrepancies.shrink import Oracle, shrink
from conformance.maintenance.oracle import (
    ReferenceOracle,
    file_sha256,
    find_sessions,
    session_key,
)
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Report, SelectionInfo
from conformance.reporting.run import close_report, report_file, stream_run

AREA = "compare"
FEATURE = "real-session"
SOURCE = "compare"
CANDIDATE_FILE = "candidate.json"


@dataclass
class CompareRequest:
    paths: tuple[Path, ...]
    impl_spec: str
    stages: tuple[str, ...] = ()
    timeout: float = 30.0
    max_restarts: int = 10
    baseline: Path | None = None
    report_path: Path | None = None
    candidates: Path | None = None
    shard: Shard | None = None
    max_tests: int = 400
    say: Callable[[str], None] = lambda message: None


@dataclass
class Candidate:
    directory: Path
    stages: dict[str, Signature]
    lines: int
    original_lines: int


@dataclass
class CompareOutcome:
    report: Report
    files: int
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return self.report.interrupted

    @property
    def failed(self) -> bool:
        return self.report.failed()


@dataclass(frozen=True)
class SessionFile:
    path: Path
    key: str  # relative to the directory given: stable across machines, for shards and ids

    @property
    def case_id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.key.lower()).strip("-")[:60].strip("-") or "x"
        return f"{AREA}.{slug}-{hashlib.sha256(self.key.encode()).hexdigest()[:8]}"


def session_files(paths: tuple[Path, ...]) -> list[SessionFile]:
    """Every file with a key of its own (two directories of one name given together get
    their full path's digest appended)."""
    files: list[SessionFile] = []
    keys: set[str] = set()
    for path in find_sessions(paths):
        key = session_key(path, paths)
        if key in keys:
            key += "#" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        keys.add(key)
        files.append(SessionFile(path, key))
    return files


def identity(files: list[SessionFile], reference_versions: dict[str, str]) -> CorpusIdentity:
    """The compared files as the report's corpus: every file (every shard's, so that shards
    of one run agree), by its key and content digest, read in chunks."""
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.key.encode() + b"\0" + file_sha256(file.path).encode() + b"\0")
    roots = sorted({str(f.path.parent) for f in files})
    root = "compare:" + (roots[0] if len(roots) == 1 else f"{len(roots)} directories")
    reference = " ".join(f"{k}@{v}" for k, v in sorted(reference_versions.items()))
    return CorpusIdentity(root=root, version=__version__, cases=len(files),
                          sha256=digest.hexdigest(), reference=(reference,) if reference else ())


def link_or_copy(source: Path, target: Path) -> None:
    """A regular file at ``target`` with ``source``'s bytes, as cheaply as possible."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


class ScratchCorpus:
    """The temporary corpus: one case per file, goldens only while the file is judged."""

    def __init__(self, root: Path, files: list[SessionFile], stages: list[str]):
        self.root = root
        (root / "cases").mkdir(parents=True)
        shutil.copyfile(corpus_root() / "models.json", root / "models.json")
        self.stages = stages
        self.directories: dict[str, Path] = {}
        for file in files:
            directory = root / "cases" / AREA / file.case_id.split(".", 1)[1]
            directory.mkdir(parents=True)
            # A hard link where the file system allows it, never a copy of every file up
            # front: the runner and the reference only ever read it, and each copies it
            # before handing it to anyone. Not a symbolic link: the corpus refuses those.
            link_or_copy(file.path.resolve(), directory / "session.jsonl")
            self._write_meta(directory, file, "required")
            self.directories[file.key] = directory
        self.corpus = Corpus(root)

    def _write_meta(self, directory: Path, file: SessionFile, outcome: str) -> None:
        meta = {"id": file.case_id, "title": file.key, "features": [FEATURE],
                "stages": self.stages, "outcome": outcome, "source": str(file.path)}
        (directory / "case.toml").write_text(tomli_w.dumps(meta), encoding="utf-8")

    @contextlib.contextmanager
    def judged(self, file: SessionFile, results: dict[str, dict[str, Any]],
               provenance: dict[str, Any]) -> Iterator[Case]:
        """The file's case with the reference's answers as goldens, removed afterwards.
        Where Pi misbehaved, the case says so: the runner then expects nothing there."""
        directory = self.directories[file.key]
        misbehaved = any("misbehaved" in result for result in results.values())
        if misbehaved:
            self._write_meta(directory, file, "reference-misbehaves")
        case = self.corpus.load_case(directory)
        try:
            for stage, result in results.items():
                write_golden(case, Golden(stage, result, provenance))
            yield case
        finally:
            shutil.rmtree(directory / "expected", ignore_errors=True)
            if misbehaved:
                self._write_meta(directory, file, "required")


def compare(request: CompareRequest) -> CompareOutcome:
    """Run every (shard's) file through the implementation and the reference into a report."""
    say = request.say
    files = session_files(request.paths)
    if not files:
        raise ConformanceError("no session file (*.jsonl) in "
                               + ", ".join(str(p) for p in request.paths))
    mine = request.shard.select(files, key=lambda f: f.key) if request.shard else files
    baseline = Baseline.load(request.baseline) if request.baseline else Baseline()
    impl = resolve(request.impl_spec)
    with contextlib.ExitStack() as stack:
        stack.callback(impl.close)
        # Both start side by side: a Node handshake can take seconds on a loaded machine.
        with ThreadPoolExecutor(1) as pool:
            starting = pool.submit(impl.start)
            try:
                oracle = stack.enter_context(ReferenceOracle(stage_timeout=request.timeout))
            finally:
                hello = starting.result()
        stages = [s for s in oracle.stages if s in hello.stages
                  and (not request.stages or s in request.stages)]
        if not stages:
            raise ConformanceError(
                f"{request.impl_spec} answers none of the stages the reference answers (it "
                f"claims {', '.join(sorted(hello.stages)) or 'none'})")
        oracle.stages = stages
        say(f"comparing {hello.name} {hello.version} with Pi on {', '.join(stages)}: "
            f"{len(mine)} of {len(files)} file(s)"
            + (f" (shard {request.shard})" if request.shard else ""))
        corpus_id = identity(files, oracle.versions)
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(
            prefix="pi-conformance-compare-")))
        corpus = ScratchCorpus(scratch / "corpus", files, stages)
        path, stream = stack.enter_context(report_file(request.report_path))
        settings = RunSettings(timeout=request.timeout, max_restarts=request.max_restarts)
        selection = SelectionInfo(stages=request.stages, impl=request.impl_spec,
                                  shard=str(request.shard) if request.shard else "")
        shrinker = _Shrinker(request, oracle, impl, stages)
        with contextlib.suppress(KeyboardInterrupt), stream_run(
                [impl], corpus.corpus, stream, path=path, selection=selection,
                settings=settings, baseline=baseline, identity=corpus_id) as run:
            total_bytes = sum(f.path.stat().st_size for f in mine) or 1
            done_bytes = 0
            started = time.perf_counter()
            # Pi answers the next file while the implementation is judged on this one; at
            # most two files' answers are held at once.
            prefetch = stack.enter_context(ThreadPoolExecutor(1))
            upcoming = prefetch.submit(oracle.answer, mine[0].path, stages) if mine else None
            for number, file in enumerate(mine, start=1):
                began = time.perf_counter()
                assert upcoming is not None
                answers = upcoming.result()
                upcoming = prefetch.submit(oracle.answer, mine[number].path, stages) \
                    if number < len(mine) else None
                provenance = _provenance(oracle, file, answers.sha256)
                failing: list[StageResult] = []
                with corpus.judged(file, answers.results, provenance) as case:
                    run.runner.goldens.clear()  # the runner keeps no file's goldens
                    before = run.writer.tally.results
                    with _collect(run, failing):
                        run.run([case], Selection(stages=tuple(stages)))
                    judged = run.writer.tally.results - before
                run.runner.goldens.clear()
                del answers
                done_bytes += file.path.stat().st_size
                found: list[Candidate] = []
                if failing and request.candidates is not None and upcoming is not None:
                    upcoming.result()  # the shrinker needs the reference to itself
                found = shrinker.handle(file, failing)
                say(f"[{number}/{len(mine)}] {file.key}: {file.path.stat().st_size} bytes, "
                    f"{judged} stage(s), {len(failing)} failing"
                    + (f", {len(found)} new candidate(s)" if found else "")
                    + f" ({time.perf_counter() - began:.1f}s; overall "
                      f"{100 * done_bytes // total_bytes}% of the bytes, "
                      f"{time.perf_counter() - started:.0f}s)")
        close_report(stream, path)
        report = reports.read_report(path)
    return CompareOutcome(report, len(mine), shrinker.written)


@contextlib.contextmanager
def _collect(run: Any, into: list[StageResult]) -> Iterator[None]:
    """The failing results of one ``run.run`` call, as they are written."""
    previous = run.on_result

    def keep(result: StageResult) -> None:
        if result.counts_as_failure:
            into.append(result)
        if previous is not None:
            previous(result)

    run.on_result = keep
    try:
        yield
    finally:
        run.on_result = previous


def _provenance(oracle: ReferenceOracle, file: SessionFile, sha256: str) -> dict[str, Any]:
    return {"generator": "pi-conformance compare (the reference's answer for a session file)",
            "command": f"pi-conformance reference run {file.key}",
            "reference": oracle.versions, "input_sha256": sha256}


class _Shrinker:
    """Shrinks each disagreement not seen in an earlier file and writes it as a candidate."""

    def __init__(self, request: CompareRequest, reference: ReferenceOracle, impl: Any,
                 stages: list[str]):
        self.request = request
        self.reference = reference
        self.impl = impl
        self.stages = stages
        self.seen: set[tuple[str, Signature]] = set()
        self.written: list[Candidate] = []

    def handle(self, file: SessionFile, failing: list[StageResult]) -> list[Candidate]:
        new = []
        for result in sorted(failing, key=lambda r: stage_sort_key(r.stage)):
            signature = result_signature(result)
            if signature and (result.stage, signature) not in self.seen:
                self.seen.add((result.stage, signature))
                new.append((result.stage, signature))
        if not new or self.request.candidates is None:
            return []
        text = file.path.read_bytes().decode("utf-8", errors="replace")
        oracle = Oracle(self.impl, self.reference.impl, case_id=file.case_id,
                        features=(FEATURE,), options=self.reference.options,
                        timeout=self.request.timeout,
                        reference_timeout=self.reference.stage_timeout)
        found: list[Candidate] = []
        try:
            covered: set[tuple[str, Signature]] = set()
            for stage, target in new:
                if (stage, target) in covered:
                    continue
                candidate = self._shrink(oracle, file, text, stage, target)
                if candidate is None:
                    continue
                found.append(candidate)
                # A cascade (a wrong llm stage shows again in every request stage) is one
                # candidate: what the shrunk session also shows needs no shrink of its own.
                covered |= {(s, t) for s, t in new if s in candidate.stages
                            and candidate.stages[s] & t}
        finally:
            oracle.close()
        self.written += found
        return found

    def _shrink(self, oracle: Oracle, file: SessionFile, text: str, stage: str,
                target: Signature) -> Candidate | None:
        now = oracle.compare(text, (stage,))[stage]
        if not now or not now & target:
            self.request.say(f"  {file.key} {stage}: the disagreement did not reproduce on a "
                             "second run (not shrunk)")
            return None
        self.request.say(f"  shrinking {file.key} on {stage} "
                         f"({len(text.splitlines())} lines)")
        shrunk = shrink(text, lambda t: oracle.compare(t, (stage,))[stage], now & target,
                        self.request.max_tests, allowed=now)
        shows = {s: sig for s, sig in oracle.compare(shrunk.text, tuple(self.stages)).items()
                 if sig}
        shows.setdefault(stage, shrunk.signature)
        assert self.request.candidates is not None
        directory = write_candidate(self.request.candidates, shrunk.text, shows,
                                    impl_spec=self.request.impl_spec,
                                    implementation=dict(self.impl.hello.implementation),
                                    origin_lines=shrunk.original_lines)
        self.request.say(f"  {stage}: {shrunk.original_lines} -> {shrunk.lines} line(s) in "
                         f"{shrunk.tests} test(s) -> {directory}")
        return Candidate(directory, shows, shrunk.lines, shrunk.original_lines)


def signature_json(signature: Signature) -> list[list[str]]:
    return sorted([list(item) for item in signature])


def write_candidate(out: Path, text: str, shows: dict[str, Signature], *, impl_spec: str,
                    implementation: dict[str, Any], origin_lines: int) -> Path:
    """``out/<slug>/``: ``case.toml`` and ``session.jsonl`` (a case without goldens, as the
    fuzzer writes them) and ``candidate.json``: what differed, and with which ``--impl``, so
    that ``promote --anonymize`` can check the difference survives anonymizing."""
    slug = "compare-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    directory = out / slug
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "session.jsonl").write_text(text, encoding="utf-8")
    stages = sorted(shows, key=stage_sort_key)
    name = implementation.get("name", "the implementation")
    lines = [f"Shrunk by pi-conformance compare from a session file of {origin_lines} line(s): "
             f"{name} disagrees with Pi.", ""]
    for stage in stages:
        lines.append(f"{stage}: " + "; ".join(f"{path} {kind}" for path, kind in
                                              signature_json(shows[stage])))
    meta = {"id": f"{AREA}.{slug}", "title": f"{name} disagrees with Pi on " + ", ".join(stages),
            "description": "\n".join(lines), "features": [FEATURE], "stages": stages,
            "source": SOURCE}
    (directory / "case.toml").write_text(tomli_w.dumps(meta), encoding="utf-8")
    (directory / CANDIDATE_FILE).write_text(jsonio.dumps_pretty({
        "source": SOURCE, "impl": impl_spec, "implementation": implementation,
        "differences": {stage: signature_json(shows[stage]) for stage in stages},
    }), encoding="utf-8")
    return directory


def root_cause_lines(report: Report) -> list[str]:
    """The report's failures grouped into root causes, as ``corpus discrepancies`` groups
    them (``discrepancies.grouping``): one line each, with the files that show it."""
    from conformance.maintenance.discrepancies.grouping import Target, root_causes

    target = Target(key="compare", name=report.header.name)
    target.add(report, Path(report.header.corpus.root))
    lines = []
    for cause in root_causes(target):
        signature = "; ".join(f"{p} {k}" for p, k in sorted(cause.signatures[cause.stage]))
        lines.append(f"{cause.id}: {', '.join(cause.stages)} on {len(cause.cases)} file(s): "
                     f"{signature[:200]}")
    return lines
