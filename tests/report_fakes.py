"""Python implementations for the report, baseline and plugin tests (python:report_fakes:X).

``replay`` answers every stage with the golden the real Pi wrote, so it passes everything.
``wrong`` does the same except that it moves the user message's timestamp in ``context``
(a fail) and crashes on ``stats`` (an error): a port with two bugs.
"""

from __future__ import annotations

from typing import Any

from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.stages import ALL_STAGES

HELLO = {"protocol": 1,
         "implementation": {"name": "fake-port", "version": "0.0.1", "language": "python"},
         "capabilities": {"stages": list(ALL_STAGES)}}


def _answers(request: dict[str, Any]) -> dict[str, Any]:
    corpus = Corpus()  # PI_CONFORMANCE_CORPUS, inherited from the runner
    case = next(c for c in corpus.cases if c.id == request["case"]["id"])
    answers = {}
    for stage in request["stages"]:
        result = read_golden(case, stage).result
        answers[stage] = ({"skipped": "Pi misbehaves here"} if "misbehaved" in result
                          else result)
    return answers


class Replay:
    def hello(self) -> dict[str, Any]:
        return HELLO

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        return _answers(request)


class Wrong(Replay):
    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        answers = _answers(request)
        if "context" in answers:
            messages = answers["context"]["output"]["messages"]
            user = next(m for m in messages if m.get("role") == "user")
            user["timestamp"] = "2024-12-03T14:00:01.000Z"
        if "stats" in answers:
            answers["stats"] = {"error": {"message": "stats: not implemented"}}
        return answers


class Targeting(Replay):
    """A port that says, in its hello, that it follows pi@1.0.3."""

    def hello(self) -> dict[str, Any]:
        return {**HELLO, "targets": "pi@1.0.3"}


replay = Replay()
wrong = Wrong()
targeting = Targeting()


REPO = __import__("pathlib").Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"


def make_corpus(directory: Any) -> Any:
    """A two-case corpus: the shipped traps.two-timestamps, plus a byte-for-byte copy of it
    under another id (goldens depend on the session and options, not on the id)."""
    import shutil
    from pathlib import Path

    root = Path(directory) / "corpus"
    root.mkdir(parents=True)
    for part in ("features", "clauses"):
        shutil.copytree(REPO / "corpus" / part, root / part)
    shutil.copy(REPO / "corpus" / "models.json", root / "models.json")
    source = REPO / "corpus" / "cases" / "traps" / "two-timestamps"
    shutil.copytree(source, root / "cases" / "traps" / "two-timestamps")
    copy = root / "cases" / "traps" / "two-timestamps-again"
    shutil.copytree(source, copy)
    toml = (copy / "case.toml").read_text(encoding="utf-8")
    (copy / "case.toml").write_text(
        toml.replace('id = "traps.two-timestamps"', 'id = "traps.two-timestamps-again"'),
        encoding="utf-8")
    return root


def impl_file(directory: Any, attribute: str) -> Any:
    """An implementation .toml for ``python:report_fakes:<attribute>`` run from tests/."""
    from pathlib import Path

    path = Path(directory) / f"{attribute}.toml"
    path.write_text(f'kind = "python"\ncallable = "report_fakes:{attribute}"\n'
                    f'cwd = "{TESTS}"\n', encoding="utf-8")
    return path
