"""Fixtures shared by the runner's tests: a small corpus in a temporary directory, and the
fake implementations of tests/fakes/ as --impl specs."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.corpus import Corpus

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
def callable_env(monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> Callable[..., None]:
    """Makes ``python:callable_impl:...`` importable and sets what it does on which case."""
    monkeypatch.syspath_prepend(str(FAKES))

    def configure(mode: str = "correct", on: str = "") -> None:
        monkeypatch.setenv("FAKE_CORPUS", str(corpus_dir))
        monkeypatch.setenv("FAKE_MODE", mode)
        monkeypatch.setenv("FAKE_ON", on)

    return configure
