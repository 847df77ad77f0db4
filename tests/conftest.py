"""Fixtures shared by the runner's tests: a small corpus in a temporary directory, and the
fake implementations of tests/fakes/ as --impl specs."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.corpus.cases import Corpus

REPO = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fakes"
SOURCE_CASE = REPO / "corpus" / "cases" / "traps" / "two-timestamps"
CASE_IDS = ("small.alpha", "small.beta", "small.gamma", "small.delta")


def make_corpus(root: Path, ids: tuple[str, ...] = CASE_IDS) -> Path:
    """A corpus of copies of one real case (goldens written by Pi), under other ids."""
    (root / "cases").mkdir(parents=True)
    shutil.copytree(REPO / "corpus" / "features", root / "features")
    shutil.copy(REPO / "corpus" / "models.json", root / "models.json")
    (root / "clauses").mkdir()
    meta = (SOURCE_CASE / "case.toml").read_text()
    for case_id in ids:
        directory = root / "cases" / "small" / case_id.split(".", 1)[1]
        shutil.copytree(SOURCE_CASE, directory)
        (directory / "case.toml").write_text(
            meta.replace('id = "traps.two-timestamps"', f'id = "{case_id}"'))
    return root


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return make_corpus(tmp_path / "corpus")


@pytest.fixture
def corpus(corpus_dir: Path) -> Corpus:
    return Corpus(corpus_dir)


@pytest.fixture
def fake(corpus_dir: Path) -> Callable[..., str]:
    """``fake("crashing", "--on", "small.beta")`` -> a process: spec for that fake."""

    def spec(name: str, *args: str, kind: str = "process") -> str:
        command = [sys.executable, str(FAKES / f"{name}.py"), str(corpus_dir), *args]
        return f"{kind}:{shlex.join(command)}"

    return spec


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``npm`` on PATH is tests/fakes/fake_npm.py; its calls are logged, one JSON line each."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKES / 'fake_npm.py'} \"$@\"\n")
    npm.chmod(0o755)
    calls = tmp_path / "npm-calls"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_NPM_CALLS", str(calls))
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    return calls


@pytest.fixture
def callable_env(monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> Callable[..., None]:
    """Makes ``python:callable_impl:...`` importable and sets what it does on which case."""
    monkeypatch.syspath_prepend(str(FAKES))

    def configure(mode: str = "correct", on: str = "") -> None:
        monkeypatch.setenv("FAKE_CORPUS", str(corpus_dir))
        monkeypatch.setenv("FAKE_MODE", mode)
        monkeypatch.setenv("FAKE_ON", on)

    return configure


# Hypothesis: the "ci" profile (the default) keeps example counts modest so the whole suite
# stays quick on a small shared machine; HYPOTHESIS_PROFILE=thorough for a longer search.

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=20, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


class ReferenceRunner:
    """The real Pi, started once for the test session: ``outputs(session, stages)``.

    Each call writes its own session file and asks under its own sequence number; the harness
    keeps nothing between requests (tests/test_reference.py checks that), so sharing one
    process makes no test depend on another's state.
    """

    def __init__(self, scratch: Path):
        from conformance.implementations.transports import reference

        self.impl = reference()
        self.impl.start()
        self.scratch = scratch
        self.seq = 0

    def results(self, session: bytes, stages: list[str]) -> dict:
        from conformance.implementations import protocol

        self.seq += 1
        path = self.scratch / f"session-{self.seq}.jsonl"
        path.write_bytes(session)
        request = protocol.run_request(self.seq, "test.generated", (), str(path),
                                       session.decode("utf-8", errors="replace"), stages,
                                       {"cwd": "/pi-conformance/cwd"})
        try:
            return protocol.check_run_answer(self.impl.run(request, 30), self.seq, stages)
        finally:
            path.unlink()

    def outputs(self, session: bytes, stages: list[str]) -> dict:
        results = self.results(session, stages)
        missing = {stage: r for stage, r in results.items() if "output" not in r}
        assert not missing, f"Pi did not answer: {missing}"
        return {stage: r["output"] for stage, r in results.items()}


@pytest.fixture(scope="session")
def pi(tmp_path_factory: pytest.TempPathFactory):
    """One real Pi for every test that asks it about generated sessions (it starts in ~2 s)."""
    runner = ReferenceRunner(tmp_path_factory.mktemp("pi"))
    yield runner
    runner.impl.close()


@pytest.fixture(scope="session")
def _reference_goldens():
    """The real Pi as a golden source (``ReferenceGoldens``), started once for the session."""
    from conformance.execution.reference_goldens import ReferenceGoldens

    class Shared(ReferenceGoldens):
        """Handed to code that closes what it is given (a ``Differential``, a shrinker's
        oracle): ``close`` leaves Pi running for the next test."""

        def close(self) -> None:
            pass

        def stop(self) -> None:
            ReferenceGoldens.close(self)

    goldens = Shared()
    goldens.start()
    yield goldens
    goldens.stop()


@pytest.fixture
def shared_reference(_reference_goldens):
    """The session's Pi as a golden source; one request at a time (it is not shared between
    the two sides of one comparison: the implementation is never this one)."""
    return _reference_goldens


# The ``reference`` marker cannot drift: a test without it that starts Pi or Node fails
# (tests/reference_guard.py says how).
from reference_guard import (  # noqa: E402, F401
    _reference_only_when_marked,
    pytest_configure,
    pytest_runtest_setup,
    pytest_runtest_teardown,
    pytest_unconfigure,
)


@pytest.fixture(scope="session")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """A one-case corpus of provider responses (tests/response_corpus.py) with its goldens
    written by the real Pi: only for tests marked ``reference``."""
    from response_corpus import response_corpus

    from conformance.maintenance import regenerate

    corpus = response_corpus(tmp_path_factory.mktemp("responses") / "corpus")
    assert regenerate.regenerate(corpus, corpus.cases) == 2
    return corpus
