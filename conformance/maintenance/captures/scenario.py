"""A capture scenario: ``corpus/captures/<name>/scenario.toml``.

    title = "..."                  # what the scenario shows
    api = "openai-completions"     # the wire format the fake provider speaks
    [model]                        # merged into the fake model's models.json entry
    reasoning = true
    [settings]                     # merged into <agent>/settings.json
    [files]                        # files created in the working directory ("name" = "text")
    [[turns]]                      # scripted provider replies, one per request (script.py)
    [[steps]]                      # what the driver does, in order:
    prompt = "text"                #   prompt, then wait for agent_settled
    abort_after = "text_delta"     #   (with prompt) send abort once this update is seen
    images = ["dot.png"]           #   (with prompt) PNG files of the scenario directory
    bash = "echo hi"               #   RPC bash, wait for its answer
    compact = "instructions"       #   RPC compact ("" for none), wait for its answer
    command = {type = "..."}       #   any other RPC command, wait for its answer

Errors name the file and what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.corpus.cases import read_toml
from conformance.errors import CorpusError
from conformance.maintenance.captures.script import Turn, parse_turn
from conformance.maintenance.captures.wire import ENCODERS

STEP_KINDS = ("prompt", "bash", "compact", "command")
KEYS = {"title", "description", "api", "model", "settings", "files", "turns", "steps",
        "features", "thinking"}


@dataclass(frozen=True)
class Step:
    kind: str
    value: Any
    abort_after: str | None = None
    images: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    name: str
    directory: Path
    title: str
    api: str
    turns: tuple[Turn, ...]
    steps: tuple[Step, ...]
    description: str = ""
    model: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    features: tuple[str, ...] = ()
    thinking: str | None = None

    @property
    def path(self) -> Path:
        return self.directory / "scenario.toml"


def _step(raw: Any, index: int) -> Step:
    where = f"steps[{index}]"
    if not isinstance(raw, dict):
        raise CorpusError(f"{where}: must be a table")
    kinds = [k for k in STEP_KINDS if k in raw]
    if len(kinds) != 1:
        raise CorpusError(f"{where}: needs exactly one of {', '.join(STEP_KINDS)}")
    kind = kinds[0]
    unknown = set(raw) - {kind, "abort_after", "images"}
    if unknown or (kind != "prompt" and ("abort_after" in raw or "images" in raw)):
        raise CorpusError(f"{where}: unexpected key(s) {', '.join(sorted(set(raw) - {kind}))}")
    if kind == "command" and not (isinstance(raw[kind], dict) and "type" in raw[kind]):
        raise CorpusError(f"{where}.command: must be a table with a type")
    return Step(kind, raw[kind], raw.get("abort_after"), tuple(raw.get("images", ())))


def load_scenario(directory: Path) -> Scenario:
    path = directory / "scenario.toml"
    raw = read_toml(path)
    try:
        unknown = set(raw) - KEYS
        if unknown:
            raise CorpusError(f"unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("title", "api"):
            if not isinstance(raw.get(key), str):
                raise CorpusError(f"{key} is required (a string)")
        if raw["api"] not in ENCODERS:
            raise CorpusError(f"api must be one of {', '.join(ENCODERS)}")
        turns = tuple(parse_turn(t, i) for i, t in enumerate(raw.get("turns", [])))
        steps = tuple(_step(s, i) for i, s in enumerate(raw.get("steps", [])))
        if not steps:
            raise CorpusError("a scenario needs at least one [[steps]]")
    except CorpusError as exc:
        raise CorpusError(exc.problem, path=path) from None
    return Scenario(
        name=directory.name, directory=directory, title=raw["title"], api=raw["api"],
        turns=turns, steps=steps, description=raw.get("description", ""),
        model=raw.get("model", {}), settings=raw.get("settings", {}),
        files=raw.get("files", {}), features=tuple(raw.get("features", ())),
        thinking=raw.get("thinking"),
    )


def scenario_directories(root: Path) -> list[Path]:
    return sorted(p.parent for p in (root / "captures").glob("*/scenario.toml"))
