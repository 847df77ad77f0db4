"""Goldens for sessions no golden file exists for (users' files, generated sessions, shrink
candidates): the real Pi, asked now, the way ``corpus regenerate`` asks it.

Pi's plain run answers every stage (and every stage that feeds one, for implementations that
take their input); that answer is the golden. What Pi invents (ids of a version-1 migration,
the header of an empty file, a clock reading) is found as ``regenerate`` finds it: by asking
the same session of runs that differ in randomness, clock and temporary paths
(``volatility.VARIATIONS``) and recording the paths that varied. Those runs are asked only when
an answer differs from the plain run (``judge`` reads a golden's volatile paths only then), so
an implementation that agrees with Pi costs one reference answer per session, and a session
whose difference is a generated id costs three.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from conformance.corpus.cases import Case
from conformance.corpus.goldens import Golden
from conformance.corpus.stages import CAPTURE_STAGES
from conformance.errors import ConformanceError
from conformance.execution.answer_cache import AnswerCache
from conformance.execution.goldens import CaseGoldens, GoldenSource
from conformance.execution.oracle import OVER_LIMIT, STAGE_TIMEOUT, ReferenceOracle
from conformance.implementations import protocol
from conformance.implementations.transports import Implementation
from conformance.judging.volatility import VARIATIONS, volatile_groups

GENERATOR = "the reference, asked now (varied runs find what Pi generates)"
Results = dict[str, dict[str, Any]]


class _Volatile(Mapping[str, str]):
    """A golden's volatile paths, found on first use."""

    def __init__(self, find: Callable[[], Mapping[str, str]]):
        self._find = find
        self._found: Mapping[str, str] | None = None

    def _paths(self) -> Mapping[str, str]:
        if self._found is None:
            self._found = self._find()
        return self._found

    def __getitem__(self, path: str) -> str:
        return self._paths()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    def __len__(self) -> int:
        return len(self._paths())


class _ReferenceCase(CaseGoldens):
    """One session's goldens: Pi's plain answer (coming), its volatile paths (on demand)."""

    def __init__(self, source: ReferenceGoldens, stages: Sequence[str], session: bytes,
                 options: Mapping[str, Any], responses: Mapping[str, Any]):
        self.source = source
        self.stages = list(stages)
        self.session = session
        self.options = options
        self.responses = responses  # per API, the case's provider response (response.<api>)
        self.plain: Future[Results] = source.pool.submit(
            source.ask_plain, session, self.stages, options, responses)
        self.provenance = {"generator": GENERATOR, "reference": source.versions,
                           "input_sha256": hashlib.sha256(session).hexdigest()}
        self._goldens: dict[str, Golden] = {}
        self._volatile: dict[str, dict[str, str]] | None = None
        self._lock = threading.Lock()

    def golden(self, stage: str) -> Golden:
        with self._lock:
            if stage not in self._goldens:
                results = self.plain.result()
                if OVER_LIMIT in results[stage]:  # no golden: the runner's limit, said so
                    raise ConformanceError(results[stage][OVER_LIMIT]["detail"])
                self._goldens[stage] = Golden(stage, results[stage], self.provenance,
                                              _Volatile(lambda: self.volatile(stage)))
            return self._goldens[stage]

    def volatile(self, stage: str) -> dict[str, str]:
        """The paths of ``stage``'s result that vary between Pi's varied runs."""
        with self._lock:
            if self._volatile is None:
                self._volatile = self.source.vary(self.session, self.stages, self.options,
                                                  self.plain.result(), self.responses)
            return self._volatile.get(stage, {})


class ReferenceGoldens(GoldenSource):
    """The real Pi as the golden source: ``start`` it (beside the implementation: both
    handshakes take a second), then judge as against the corpus."""

    def __init__(self, *, stage_timeout: float = STAGE_TIMEOUT,
                 hint: tuple[str, ...] | None = None,
                 variations: Sequence[Mapping[str, str]] = VARIATIONS,
                 release: Callable[[Mapping[str, str]], Implementation] | None = None,
                 cache: AnswerCache | None = None):
        """``release``: the Pi to ask, made for a variation (default: the pinned reference;
        ``run --against pi@X`` gives that release); ``cache``: where its answers are kept
        between runs (corpus sessions only, never a user's files)."""
        self.cache = cache
        self.stage_timeout = stage_timeout
        self.hint = hint
        self.variations = list(variations)
        self.release = release
        self.plain = self._oracle(self.variations[0])
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="pi-conformance-reference")
        self._varied: list[ReferenceOracle] | None = None
        self._varied_lock = threading.Lock()
        self.varied_sessions = 0  # sessions on which the varied runs were asked
        self.built_seconds = 0.0  # time spent asking Pi what the cache did not have

    def _oracle(self, variation: Mapping[str, str]) -> ReferenceOracle:
        impl = self.release(variation) if self.release is not None else None
        return ReferenceOracle(stage_timeout=self.stage_timeout, variation=variation,
                               hint=self.hint, impl=impl)

    def start(self) -> protocol.Hello:
        """Start Pi's plain run (once: a second call finds it started)."""
        if not hasattr(self.plain, "hello"):
            self.plain.__enter__()
        return self.plain.hello

    @property
    def hello(self) -> protocol.Hello:
        return self.plain.hello

    @property
    def versions(self) -> dict[str, str]:
        return self.plain.versions

    @property
    def stages(self) -> list[str]:
        """Every stage Pi answers from a session alone (``events`` needs a recorded run)."""
        return self.plain.stages

    def unavailable(self, stage: str) -> str | None:
        if stage in CAPTURE_STAGES:  # a live turn or a recorded run: the corpus's goldens
            return "judged only against the corpus's goldens, not a Pi asked live"
        if not hasattr(self.plain, "hello") or stage in self.plain.stages:
            return None
        return f"not available in {self.plain.hello.name} {self.plain.hello.version}"

    def has(self, case: Case, stage: str) -> bool:
        """Every stage this Pi answers from a session (an older release answers fewer)."""
        return stage not in CAPTURE_STAGES and (not hasattr(self.plain, "hello")
                                                or stage in self.plain.stages)

    def open(self, case: Case, stages: Sequence[str], session: bytes,
             options: Mapping[str, Any]) -> CaseGoldens:
        responses = {api: response.serializable()
                     for api, response in case.responses_for(stages).items()}
        return _ReferenceCase(self, stages, session, options, responses)

    def ask_plain(self, session: bytes, stages: Sequence[str], options: Mapping[str, Any],
                  responses: Mapping[str, Any] | None = None) -> Results:
        """Pi's plain answer, from the answer cache when there is one and it has it."""
        if self.cache is None:
            return self.plain.ask_bytes(session, list(stages), options, responses)
        key = self.cache.key("plain", session, stages, _keyed(options, responses))
        cached = self.cache.get(key)
        if cached is None:
            started = time.perf_counter()
            cached = self.plain.ask_bytes(session, list(stages), options, responses)
            self.built_seconds += time.perf_counter() - started
            self.cache.put(key, cached)
        return dict(cached)

    def vary(self, session: bytes, stages: Sequence[str], options: Mapping[str, Any],
             plain: Results, responses: Mapping[str, Any] | None = None
             ) -> dict[str, dict[str, str]]:
        """Per stage, the volatile paths of Pi's answers (from the answer cache when there is
        one and it has them)."""
        if self.cache is None:
            return self._vary(session, stages, options, plain, responses)
        key = self.cache.key("volatile", session, stages, _keyed(options, responses))
        cached = self.cache.get(key)
        if cached is None:
            started = time.perf_counter()
            cached = self._vary(session, stages, options, plain, responses)
            self.built_seconds += time.perf_counter() - started
            self.cache.put(key, cached)
        return dict(cached)

    def _vary(self, session: bytes, stages: Sequence[str], options: Mapping[str, Any],
              plain: Results, responses: Mapping[str, Any] | None = None
              ) -> dict[str, dict[str, str]]:
        """The plain run's answers against the varied runs', asked now, side by side (each a
        process of its own, started on first need)."""
        asked = [stage for stage in stages if "output" in plain[stage]]
        if not asked:
            return {}
        with self._varied_lock:
            varied = self._started_varied()
            self.varied_sessions += 1
            with ThreadPoolExecutor(len(varied)) as pool:
                runs = list(pool.map(
                    lambda oracle: oracle.ask_bytes(session, asked, options, responses), varied))
        found: dict[str, dict[str, str]] = {}
        for stage in asked:
            # A run that answered another kind (it hung this time) tells nothing of values.
            answers = [plain[stage], *(run[stage] for run in runs if "output" in run[stage])]
            found[stage] = volatile_groups(answers)
        return found

    def _started_varied(self) -> list[ReferenceOracle]:
        if self._varied is None:
            oracles = [self._oracle(variation) for variation in self.variations[1:]]
            started: list[ReferenceOracle] = []
            try:
                with ThreadPoolExecutor(len(oracles)) as pool:
                    for oracle in pool.map(ReferenceOracle.__enter__, oracles):
                        started.append(oracle)
            except BaseException:
                for oracle in oracles:
                    oracle.close()
                raise
            self._varied = started
        return self._varied

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        for oracle in [self.plain, *(self._varied or [])]:
            oracle.close()


def _keyed(options: Mapping[str, Any], responses: Mapping[str, Any] | None) -> dict[str, Any]:
    """What an answer is kept by beside the session: the options, and the provider responses
    a response stage read (a case without any keeps its old key)."""
    return {**options, "responses": dict(responses)} if responses else dict(options)


__all__ = ["GENERATOR", "ReferenceGoldens"]
