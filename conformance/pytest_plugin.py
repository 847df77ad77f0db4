"""The pytest plugin: the corpus as tests inside an implementer's own suite.

``pytest --pi-impl IMPL`` adds one test per case and stage (``traps.two-timestamps::context``)
to whatever else pytest collects. The implementation is started once per session, on the
first test that needs it, and asked for each case once; a stage that differs from Pi fails
with the readable diff, a stage it does not claim is skipped, and a failure listed in
``--pi-baseline`` is an expected failure (strict: if it passes, the test fails). Without
``--pi-impl`` the plugin does nothing, so installing pi-conformance never changes a suite.
Registered under the ``pytest11`` entry point as ``pi_conformance``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conformance.cli.options import (
    CASE_HELP,
    CORPUS_HELP,
    DEFAULT_TIMEOUT,
    IMPL_SPECS,
    SPLIT_RESPONSES_HELP,
    TIMEOUT_HELP,
    parse_seconds,
)
from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from conformance.execution.against import ReleaseJudging
    from conformance.execution.executor import Execution
    from conformance.execution.plan import RunPlan
    from conformance.implementations.protocol import Hello
    from conformance.judging.results import StageResult


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pi-conformance", "Pi session-format conformance")
    group.addoption("--pi-impl", metavar="IMPL", default=None,
                    help=f"Run the pi-conformance corpus against IMPL: {IMPL_SPECS}.")
    group.addoption("--pi-corpus", metavar="DIR", default=None, help=CORPUS_HELP)
    group.addoption("--pi-baseline", metavar="FILE", default=None,
                    help="Known failures: listed failures are xfail (strict).")
    group.addoption("--pi-case", metavar="GLOB", action="append", default=[], help=CASE_HELP)
    group.addoption("--pi-stage", metavar="STAGE", action="append", default=[],
                    help="Only this stage (repeatable).")
    group.addoption("--pi-timeout", metavar="SECONDS", type=parse_seconds,
                    default=DEFAULT_TIMEOUT,
                    help=f"{TIMEOUT_HELP} (default {DEFAULT_TIMEOUT:g})")
    group.addoption("--pi-report", metavar="FILE", default=None,
                    help="Also write the canonical JSON-lines report here.")
    group.addoption("--pi-against", metavar="RELEASE", default=None,
                    help="Judge with this Pi release's answers (pi@1.3.0; default: the "
                         "release the implementation's hello targets, if any; reference: "
                         "the pinned one), built on first use, then cached.")
    group.addoption("--pi-split-responses", metavar="SEED", type=int, default=None,
                    help=SPLIT_RESPONSES_HELP)


def plan_of(config: pytest.Config) -> RunPlan:
    """The run plan the plugin's options describe, made once, as the CLI makes its own."""
    from conformance.corpus.selection import Selection
    from conformance.execution.plan import Limits, RunPlan
    from conformance.execution.rechunking import Rechunking

    seed = config.getoption("pi_split_responses")
    baseline, report = config.getoption("pi_baseline"), config.getoption("pi_report")
    return RunPlan(config.getoption("pi_impl"),
                   Selection(cases=tuple(config.getoption("pi_case")),
                             stages=tuple(config.getoption("pi_stage"))),
                   Limits(timeout=config.getoption("pi_timeout")),
                   baseline=Path(baseline) if baseline else None,
                   report=Path(report) if report else None,
                   against=config.getoption("pi_against"),
                   rechunking=None if seed is None else Rechunking(seed))


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("pi_impl"):
        config.pluginmanager.register(PiConformance(config), "pi-conformance-run")


class StageFailure(Exception):
    """A stage that failed or errored; the item shows the result's readable diff."""

    def __init__(self, result: StageResult):
        super().__init__(f"{result.case} [{result.stage}] {result.status}")
        self.result = result


class PiConformance:
    """One session's corpus, baseline, implementation and results."""

    def __init__(self, config: pytest.Config):
        from conformance.corpus.cases import Corpus
        from conformance.execution.against import judged_release
        from conformance.judging.baseline import Baseline

        self.config = config
        self.plan = plan_of(config)
        self.spec = self.plan.implementation
        try:
            corpus_path = config.getoption("pi_corpus")
            self.corpus = Corpus(Path(corpus_path) if corpus_path else None)
            self.baseline = Baseline.load(self.plan.baseline) if self.plan.baseline else None
            self.cases = self.corpus.select(self.plan.selection.cases)
            judged_release(self.plan.against, None)  # a bad --pi-against: said at once
        except ConformanceError as exc:
            raise pytest.UsageError(f"pi-conformance: {exc.describe()}") from None
        self.stages: tuple[str, ...] = self.plan.selection.stages
        self.implementation: Any = None
        self.start_error: str | None = None
        self.results: dict[tuple[str, str], StageResult] = {}
        self.wanted: dict[str, list[str]] = {}
        self.streaming = contextlib.ExitStack()
        self.run: Execution | None = None
        self.judging: ReleaseJudging | None = None  # a release judged against, if any

    # Collection: items for the corpus, added to whatever pytest collected from files.

    @pytest.hookimpl(tryfirst=True)  # before -k and --deselect, so they apply to ours too
    def pytest_collection_modifyitems(self, session: pytest.Session,
                                      items: list[pytest.Item]) -> None:
        for case in self.cases:
            node = CaseCollector.from_parent(session, name=case.id, nodeid=case.id, case=case,
                                             plugin=self)
            # genitems fires the collection hooks, so the "collected" count includes them
            items.extend(session.genitems(node))
        if self.baseline is not None:
            items.append(BaselineItem.from_parent(session, name="pi-conformance-baseline",
                                                  nodeid="pi-conformance-baseline",
                                                  plugin=self))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            if isinstance(item, StageItem):
                self.wanted.setdefault(item.case.id, []).append(item.stage)

    # Running: the implementation starts on first use and answers each case once.

    def _started(self) -> Execution:
        """The implementation, started, and its run streaming into the report (or nowhere):
        the executor's, as ``run`` has it."""
        if self.run is None and self.start_error is None:
            from conformance.execution.executor import Watcher, opened
            from conformance.implementations.specs import resolve

            plugin = self

            class Keep(Watcher):
                def result(self, result: StageResult) -> None:
                    plugin.results[(result.case, result.stage)] = result

            try:
                implementation = resolve(self.spec)
                implementation.stages_hint = self.plan.hint
                self.implementation = implementation
                implementation.start()
                self._judge_against(implementation.hello)
                path = self.plan.report or Path(os.devnull)
                path.parent.mkdir(parents=True, exist_ok=True)
                stream = self.streaming.enter_context(path.open("wb"))
                judging = self.judging
                self.run = self.streaming.enter_context(opened(
                    self.plan, self.corpus, [implementation], stream=stream, path=path,
                    baseline=self.baseline, watcher=Keep(),
                    goldens=judging.goldens if judging else None,
                    identity=judging.identity if judging else None))
            except (ConformanceError, OSError) as exc:
                what = exc.describe() if isinstance(exc, ConformanceError) else str(exc)
                self.start_error = f"cannot start {self.spec}: {what}"
        if self.run is None:
            raise pytest.fail(self.start_error or "not started", pytrace=False)
        return self.run

    def _judge_against(self, hello: Hello) -> None:
        """The release ``--pi-against`` names or the hello targets, started as the golden
        source (closed with the report), as ``run --against`` does."""
        from conformance.execution.against import judged_release, release_goldens

        spec = judged_release(self.plan.against, hello)
        if spec is not None:
            self.judging = release_goldens(spec, self.corpus, self.plan)
            self.streaming.callback(self.judging.close)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.judging is not None:
            terminalreporter.write_line(f"pi-conformance: {self.judging.summary()}")

    def result(self, case: Any, stage: str) -> StageResult:
        key = (case.id, stage)
        if key not in self.results:
            self._run(case)
        return self.results[key]

    def _run(self, case: Any) -> None:
        from conformance.execution.runner import Planned
        from conformance.judging.results import StageResult

        run = self._started()
        stages = tuple(self.wanted.get(case.id, ())) or case.stages
        try:
            planned = run.schedule([case])
        except ConformanceError as exc:
            for stage in stages:
                self.results[(case.id, stage)] = StageResult(
                    case.id, stage, "error", exc.describe(), outcome=case.outcome,
                    error_kind="harness")
            return
        # Only the stages pytest collected (-k and --deselect narrow them further).
        run.run([Planned(item.case, tuple(s for s in item.ask if s in stages),
                         tuple(r for r in item.skipped if r.stage in stages))
                 for item in planned])
        for stage in stages:
            self.results.setdefault((case.id, stage), StageResult(
                case.id, stage, "error", "the runner produced no result",
                outcome=case.outcome, error_kind="harness"))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """The report's footer (marked interrupted after a Ctrl-C), then the implementation
        stops."""
        try:
            if self.run is not None:
                self.run.close(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)
            self.streaming.close()
        except ConformanceError as exc:
            raise pytest.UsageError(f"pi-conformance: {exc.describe()}") from None
        except OSError as exc:
            raise pytest.UsageError(f"pi-conformance: cannot write the report: {exc}") from None
        finally:
            if self.implementation is not None:
                with contextlib.suppress(Exception):
                    self.implementation.close()


class CaseCollector(pytest.Collector):
    """One case: its stage items, under the node id of the case id."""

    def __init__(self, *, case: Any, plugin: PiConformance, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.plugin = plugin

    def collect(self) -> list[pytest.Item]:
        plugin, case = self.plugin, self.case
        items: list[pytest.Item] = []
        for stage in case.stages:
            if plugin.stages and stage not in plugin.stages:
                continue
            item = StageItem.from_parent(self, name=stage, case=case, plugin=plugin)
            entry = plugin.baseline.find(case.id, stage) if plugin.baseline else None
            if entry is not None:
                reason = entry.reason + (f" ({entry.issue})" if entry.issue else "")
                item.add_marker(pytest.mark.xfail(reason=f"known failure: {reason}",
                                                  strict=True, raises=StageFailure))
            items.append(item)
        return items


class StageItem(pytest.Item):
    def __init__(self, *, case: Any, plugin: PiConformance, **kwargs: Any):
        super().__init__(**kwargs)
        self.case = case
        self.stage: str = self.name
        self.plugin = plugin
        for feature in case.features:
            self.keywords[feature] = True

    def runtest(self) -> None:
        result = self.plugin.result(self.case, self.stage)
        self.user_properties.append(("pi-status", result.status))
        if result.status == "skip":
            pytest.skip(result.message or "skipped")
        if result.failing:
            raise StageFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        if isinstance(excinfo.value, StageFailure):
            from conformance.reporting.text import failure_lines

            result = excinfo.value.result
            lines = failure_lines(result, limit=None)
            lines.append(f"    case: {self.case.title} ({self.case.directory})")
            return "\n".join(lines)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.case.metadata_path, None, f"{self.case.id}::{self.stage}"


class BaselineItem(pytest.Item):
    """Fails when the baseline names a case or stage the corpus does not have."""

    def __init__(self, *, plugin: PiConformance, **kwargs: Any):
        super().__init__(**kwargs)
        self.plugin = plugin

    def runtest(self) -> None:
        assert self.plugin.baseline is not None
        stale = self.plugin.baseline.unmatched(self.plugin.corpus.cases)
        if stale:
            pytest.fail("stale baseline entries:\n" + "\n".join(
                f"  {e.describe()}" for e in stale), pytrace=False)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(self.config.getoption("pi_baseline")), None, "pi-conformance baseline"
