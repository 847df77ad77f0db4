"""Record scenarios into the corpus, or re-record them and say which files would change."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conformance.corpus.cases import Corpus
from conformance.errors import CorpusError
from conformance.files import replace_text
from conformance.implementations.reference import Installation
from conformance.maintenance.captures.record import record
from conformance.maintenance.captures.scenario import Scenario, load_scenario, scenario_directories
from conformance.maintenance.captures.store import CAPTURE_FILES, capture_files, case_files

CASE_AREA = "captured"


def select(corpus: Corpus, names: Iterable[str] = ()) -> list[Scenario]:
    """Scenarios by directory name (all when none given); an unknown name is an error."""
    found = {d.name: d for d in scenario_directories(corpus.root)}
    names = list(names)
    for name in names:
        if name not in found:
            raise CorpusError(f"no scenario {name!r} (have: {', '.join(sorted(found))})",
                              path=corpus.root / "captures")
    return [load_scenario(found[n]) for n in (names or sorted(found))]


def case_directory(corpus: Corpus, scenario: Scenario) -> Path:
    return corpus.root / "cases" / CASE_AREA / scenario.name


@dataclass
class Produced:
    scenario: Scenario
    capture: dict[str, str]
    case: dict[str, str]


def produce(scenario: Scenario, installation: Installation) -> Produced:
    files = capture_files(record(scenario, installation), scenario, installation)
    return Produced(scenario, files, case_files(scenario, files))


def write(corpus: Corpus, produced: Produced) -> None:
    target = produced.scenario.directory
    for name in CAPTURE_FILES:
        replace_text(target / name, produced.capture[name])
    case_dir = case_directory(corpus, produced.scenario)
    if "expected/events.json" not in produced.case:
        (case_dir / "expected" / "events.json").unlink(missing_ok=True)
    for relative, text in produced.case.items():
        replace_text(case_dir / relative, text)


def differences(corpus: Corpus, produced: Produced) -> list[str]:
    """Which stored files differ from a fresh recording, each with the first lines of a diff."""
    found = []
    pairs = [(produced.scenario.directory / n, produced.capture[n]) for n in CAPTURE_FILES]
    case_dir = case_directory(corpus, produced.scenario)
    pairs += [(case_dir / rel, text) for rel, text in produced.case.items()]
    for path, fresh in pairs:
        stored = path.read_text(encoding="utf-8") if path.is_file() else None
        if stored == fresh:
            continue
        if stored is None:
            found.append(f"{path}: missing")
            continue
        diff = list(difflib.unified_diff(stored.splitlines(), fresh.splitlines(), "stored",
                                         "fresh", n=0, lineterm=""))
        found.append(f"{path}: differs\n" + "\n".join(line[:200] for line in diff[2:8]))
    return found
