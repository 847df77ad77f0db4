"""Differential runs on users' own session files: an implementation against the real Pi.

Each file is a case (its id from its path, the file itself as the session: read once, into
one snapshot that both sides get a copy of), and the run is the executor's, exactly as
``run`` has it, with one difference: the goldens are Pi's answers obtained now, the way
``corpus regenerate`` obtains them (``ReferenceGoldens``: a plain run, and varied runs when an
answer differs, so that what Pi invents is found, not assumed). So the report, the renderers,
the baseline, the inputs sent to stages claimed given their input and the judging are
``run``'s. Goldens are held only while their file is judged: memory stays bounded by the
largest file, whatever the size of the tree.

With ``--candidates``, every failing result's differences are then shrunk, each exact
difference (stage, path, kind) not already shown by an earlier candidate, by delta debugging
(``discrepancies.shrink``) against both processes, and written as a candidate case
directory, which ``corpus promote --anonymize`` can turn into a public case.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import __version__, jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.metadata import CaseMetadata
from conformance.corpus.stages import stage_sort_key
from conformance.errors import ConformanceError
from conformance.execution.executor import (
    RunOutcome,
    Watcher,
    opened,
    report_interrupted_start,
)
from conformance.execution.oracle import file_sha256, find_sessions, session_key
from conformance.execution.plan import RunPlan
from conformance.execution.processes import started
from conformance.execution.reference_goldens import ReferenceGoldens
from conformance.execution.runner import Planned
from conformance.execution.sessions import SessionJudge
from conformance.files import staged_directory
from conformance.implementations.early import EarlyStart
from conformance.implementations.protocol import Hello
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies.grouping import Signature, result_signature
from conformance.maintenance.discrepancies.shrink import Atom, Oracle, shrink
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, Report

AREA = "compare"
FEATURE = "real-session"
SOURCE = "compare"
CANDIDATE_FILE = "candidate.json"


@dataclass
class Candidate:
    directory: Path
    stages: dict[str, Signature]
    lines: int
    original_lines: int
    atom: Atom


@dataclass
class CompareOutcome(RunOutcome):
    """A run's outcome, with how many files this shard compared and the candidates shrunk."""

    files: int = 0
    candidates: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True)
class SessionFile:
    path: Path
    key: str  # relative to the directory given: stable across machines, for shards and ids

    @property
    def case_id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.key.lower()).strip("-")[:60].strip("-") or "x"
        return f"{AREA}.{slug}-{hashlib.sha256(os.fsencode(self.key)).hexdigest()[:8]}"


def session_files(paths: tuple[Path, ...], exclude: tuple[Path, ...] = ()) -> list[SessionFile]:
    """Every file with a key of its own (two directories of one name given together get
    their full path's digest appended); ``exclude``: files this run writes (its report)."""
    files: list[SessionFile] = []
    keys: set[str] = set()
    for path in find_sessions(paths, exclude):
        key = session_key(path, paths)
        if key in keys:
            key += "#" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        keys.add(key)
        files.append(SessionFile(path, key))
    return files


def file_case(file: SessionFile, stages: list[str]) -> Case:
    """The case a file is judged as: the file itself is its session (never written)."""
    return Case(id=file.case_id, title=file.key, directory=file.path.parent,
                features=(FEATURE,), declared_stages=tuple(stages), source=str(file.path),
                input_file=file.path)


class _Progress(Watcher):
    """One line per file: its size, stages judged, failures, and the share of bytes done."""

    def __init__(self, files: dict[str, SessionFile], say: Callable[[str], None]):
        self.files = files
        self.say = say
        self.total = sum(_size(f.path) for f in files.values()) or 1
        self.done_bytes = 0
        self.done = 0
        self.started = time.perf_counter()

    def case_done(self, item: Planned, results: list[StageResult]) -> None:
        file = self.files[item.case.id]
        size = _size(file.path)
        self.done += 1
        self.done_bytes += size
        failing = sum(r.counts_as_failure for r in results)
        self.say(f"[{self.done}/{len(self.files)}] {file.key}: {size} bytes, "
                 f"{len(item.ask)} stage(s), {failing} failing (overall "
                 f"{100 * self.done_bytes // self.total}% of the bytes, "
                 f"{time.perf_counter() - self.started:.0f}s)")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def compare(plan: RunPlan, paths: tuple[Path, ...], *, candidates: Path | None = None,
            max_tests: int = 400,
            say: Callable[[str], None] = lambda message: None) -> CompareOutcome:
    """Run every (shard's) file through the implementation and the reference into a report
    at ``plan.report``; then, with ``candidates``, shrink what differs."""
    files = session_files(paths, tuple(p for p in (plan.report,) if p is not None))
    if not files:
        raise ConformanceError("no session file (*.jsonl) in "
                               + ", ".join(str(p) for p in paths))
    mine = plan.shard.select(files, key=lambda f: f.key) if plan.shard else files
    early = EarlyStart.begin(plan.implementation, plan.hint)
    reference = ReferenceGoldens(stage_timeout=plan.limits.timeout, hint=plan.hint)
    with contextlib.ExitStack() as stack:
        stack.callback(reference.close)
        stack.callback(early.discard)
        try:
            # Both start side by side: a Node handshake can take seconds on a loaded machine.
            reference.start()
            hello = early.hello()
            stages = compared_stages(hello, reference, plan)
            say(f"comparing {hello.name} {hello.version} with Pi on {', '.join(stages)}: "
                f"{len(mine)} of {len(files)} file(s)"
                + (f" (shard {plan.shard})" if plan.shard else ""))
            cases = [file_case(file, stages) for file in mine]
            instances = stack.enter_context(started(plan.implementation, 1,
                                                    early.implementation, plan.hint))
        except KeyboardInterrupt:  # still starting: the report says so, with no result
            report_interrupted_start(plan, identity(files, reference.versions))
            raise
        path, stream = stack.enter_context(reports.report_file(plan.report))
        watcher = _Progress({case.id: file for case, file in zip(cases, mine, strict=True)},
                            say)
        with contextlib.suppress(KeyboardInterrupt), opened(
                plan, Corpus(), instances, goldens=reference, stream=stream, path=path,
                identity=identity(files, reference.versions), watcher=watcher,
                universe=[file_case(file, stages) for file in files]) as execution:
            execution.run_cases(cases)
        reports.close_report(stream, path)
        report = reports.read_report(path)
        found: list[Candidate] = []
        if candidates is not None and report.failures() and not report.interrupted:
            shrinker = _Shrinker(plan, instances[0], reference, stages, candidates, max_tests,
                                 say)
            found = shrinker.run(report, {f.case_id: f for f in mine})
    return CompareOutcome(report, files=len(mine), candidates=found)


def compared_stages(hello: Hello, reference: ReferenceGoldens, plan: RunPlan) -> list[str]:
    """Every stage both answer from a session file, that the plan selects."""
    stages = [s for s in reference.stages if s in hello.stages and plan.selection.wants(s)]
    if not stages:
        raise ConformanceError(
            f"{plan.implementation} answers none of the stages the reference answers (it "
            f"claims {', '.join(sorted(hello.stages)) or 'none'})")
    return stages


def identity(files: list[SessionFile], reference_versions: dict[str, str]) -> CorpusIdentity:
    """The compared files as the report's corpus: every file (every shard's, so that shards
    of one run agree), by its key and content digest, read in chunks."""
    digest = hashlib.sha256()
    for file in files:
        try:
            if not file.path.is_file():  # a FIFO would block: judged as its own error
                raise OSError(0, "not a regular file")
            content = file_sha256(file.path)
        except OSError as exc:  # judged as an error of its own; the identity still holds
            content = f"unreadable: {exc.strerror}"
        digest.update(os.fsencode(file.key) + b"\0" + content.encode() + b"\0")
    roots = sorted({str(f.path.parent) for f in files})
    root = "compare:" + (roots[0] if len(roots) == 1 else f"{len(roots)} directories")
    reference = " ".join(f"{k}@{v}" for k, v in sorted(reference_versions.items()))
    return CorpusIdentity(root=root, version=__version__, cases=len(files),
                          sha256=digest.hexdigest(), reference=(reference,) if reference else ())


class _Shrinker:
    """Shrinks every exact difference of the report's failures that no earlier candidate
    shows, and writes each as a candidate."""

    def __init__(self, plan: RunPlan, impl: Any, reference: ReferenceGoldens,
                 stages: list[str], out: Path, max_tests: int, say: Callable[[str], None]):
        self.plan = plan
        self.out = out
        self.max_tests = max_tests
        self.say = say
        self.stages = stages
        self.judge = SessionJudge(impl, reference, stages=stages, every_api=True,
                                  limits=plan.limits, case_id=f"{AREA}.shrinking",
                                  features=(FEATURE,), own=False)
        self.judge.start()
        self.oracle = Oracle(self.judge)

    def run(self, report: Report, files: dict[str, SessionFile]) -> list[Candidate]:
        covered: set[Atom] = set()
        found: list[Candidate] = []
        for result in sorted(report.failures(),
                             key=lambda r: (r.case, stage_sort_key(r.stage))):
            file = files.get(result.case)
            if file is None:
                continue
            for path, kind in sorted(result_signature(result)):
                atom = Atom(result.stage, path, kind)
                if atom in covered:
                    continue
                covered.add(atom)
                candidate = self._shrink(file, atom)
                if candidate is not None:
                    found.append(candidate)
                    # What the shrunk session also shows (a wrong llm stage shows again in
                    # every request stage) needs no candidate of its own.
                    covered |= {Atom(stage, p, k) for stage, sig in candidate.stages.items()
                                for p, k in sig}
        return found

    def _shrink(self, file: SessionFile, atom: Atom) -> Candidate | None:
        try:
            text = file.path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            self.say(f"  {file.key}: cannot read it again to shrink ({exc.strerror})")
            return None
        if not self.oracle.shows(text, atom):
            self.say(f"  {file.key} {atom.describe()}: did not show again on a second run "
                     "(not shrunk)")
            return None
        self.say(f"  shrinking {file.key} for {atom.describe()} "
                 f"({len(text.splitlines())} lines)")
        shrunk = shrink(text, lambda t: self.oracle.compare(t, (atom.stage,))[atom.stage],
                        (atom.path, atom.kind), self.max_tests)
        shows = {s: sig for s, sig in self.oracle.compare(shrunk.text, self.stages).items()
                 if sig}
        directory = write_candidate(self.out, shrunk.text, shows, atom,
                                    impl_spec=self.plan.implementation,
                                    implementation=dict(self.judge.implementation.hello
                                                        .implementation),
                                    origin_lines=shrunk.original_lines)
        self.say(f"  {atom.describe()}: {shrunk.original_lines} -> {shrunk.lines} line(s) in "
                 f"{shrunk.tests} test(s) -> {directory}")
        return Candidate(directory, shows, shrunk.lines, shrunk.original_lines, atom)


def signature_json(signature: Signature) -> list[list[str]]:
    return sorted([list(item) for item in signature])


def write_candidate(out: Path, text: str, shows: dict[str, Signature], atom: Atom, *,
                    impl_spec: str, implementation: dict[str, Any], origin_lines: int) -> Path:
    """``out/<slug>/``: ``case.toml`` and ``session.jsonl`` (a case without goldens, as the
    fuzzer writes them) and ``candidate.json``: the exact difference it was shrunk for, what
    else it shows, and with which ``--impl``, so that ``promote --anonymize`` can check the
    difference survives anonymizing."""
    made_for = f"{atom.stage}\0{atom.path}\0{atom.kind}\0"
    slug = "compare-" + hashlib.sha256(made_for.encode() + text.encode("utf-8")).hexdigest()[:10]
    stages = sorted(shows, key=stage_sort_key)
    name = implementation.get("name", "the implementation")
    lines = [f"Shrunk by pi-conformance compare from a session file of {origin_lines} line(s): "
             f"{name} disagrees with Pi.", f"Shrunk for: {atom.describe()}.", ""]
    for stage in stages:
        lines.append(f"{stage}: " + "; ".join(f"{path} {kind}" for path, kind in
                                              signature_json(shows[stage])))
    metadata = CaseMetadata(id=f"{AREA}.{slug}",
                            title=f"{name} disagrees with Pi on " + ", ".join(stages),
                            description="\n".join(lines), features=(FEATURE,),
                            stages=tuple(stages), source=SOURCE)
    candidate = jsonio.dumps_pretty({
        "source": SOURCE, "impl": impl_spec, "implementation": implementation,
        "made_for": {"stage": atom.stage, "path": atom.path, "kind": atom.kind},
        "differences": {stage: signature_json(shows[stage]) for stage in stages},
    })
    with staged_directory(out / slug) as directory:  # whole, or not at all
        (directory / "session.jsonl").write_text(text, encoding="utf-8")
        metadata.write(directory)
        (directory / CANDIDATE_FILE).write_text(candidate, encoding="utf-8")
    return out / slug


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
