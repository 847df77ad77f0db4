"""A case's turn script: the prompts of a live turn and the provider's scripted replies, the
input of the ``events`` stage for every case that is not a capture.

On disk, ``turns/`` in the case directory::

    turns/script.json   {"api": "anthropic-messages", "prompts": ["Hi"],
                         "tools": [{"name": "lookup", "results": [{"text": "found",
                                                                    "update": "looking"}]}],
                         "thinkingLevel": "off", "model": {"reasoning": false}}
    turns/1.json        the HTTP response to the first provider request (http_responses.py)
    turns/2.json        ... one per request, numbered from 1 without a gap

In the run request it is one object, ``turns``: the script with ``responses``, the HTTP
responses in order (docs/protocol.md). A tool's results are used in call order: ``text`` (the
result's text content), ``isError`` (the tool throws ``text`` instead), ``update`` (a partial
result sent first, as ``tool_execution_update``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance import jsonio
from conformance.corpus import http_responses
from conformance.corpus.http_responses import HttpResponse
from conformance.errors import CorpusError

DIRECTORY = "turns"
SCRIPT = "script.json"
#: The APIs a turn script may use: those whose provider clients send with fetch, which the
#: reference harness hands the scripted body to chunk by chunk (events.mjs, EVENT_APIS).
APIS = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
_RESPONSE = re.compile(r"^([1-9][0-9]*)\.json$")
_SCRIPT_KEYS = {"api", "prompts", "tools", "thinkingLevel", "model"}
_RESULT_KEYS = {"text", "isError", "update"}


@dataclass(frozen=True)
class ToolResult:
    text: str
    is_error: bool = False
    update: str | None = None

    def serializable(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.is_error:
            out["isError"] = True
        if self.update is not None:
            out["update"] = self.update
        return out


@dataclass(frozen=True)
class ScriptedTool:
    name: str
    results: tuple[ToolResult, ...]

    def serializable(self) -> dict[str, Any]:
        return {"name": self.name, "results": [r.serializable() for r in self.results]}


@dataclass(frozen=True)
class TurnScript:
    api: str
    prompts: tuple[str, ...]
    responses: tuple[HttpResponse, ...]
    tools: tuple[ScriptedTool, ...] = ()
    thinking_level: str | None = None
    model: tuple[tuple[str, Any], ...] = ()

    def script(self) -> dict[str, Any]:
        """``turns/script.json``: everything but the responses."""
        out: dict[str, Any] = {"api": self.api, "prompts": list(self.prompts)}
        if self.tools:
            out["tools"] = [tool.serializable() for tool in self.tools]
        if self.thinking_level is not None:
            out["thinkingLevel"] = self.thinking_level
        if self.model:
            out["model"] = dict(self.model)
        return out

    def request(self) -> dict[str, Any]:
        """The run request's ``turns``."""
        return {**self.script(), "responses": [r.serializable() for r in self.responses]}

    def sha256(self) -> str:
        """What the events golden was written from (its provenance ``turns_sha256``)."""
        return hashlib.sha256(jsonio.dumps(self.request())).hexdigest()

    def write(self, directory: Path) -> None:
        """The files of ``turns/`` in a case ``directory`` (any older response files go)."""
        target = directory / DIRECTORY
        target.mkdir(exist_ok=True)
        for old in target.glob("*.json"):
            old.unlink()
        (target / SCRIPT).write_text(jsonio.dumps_pretty(self.script()), encoding="utf-8")
        for number, response in enumerate(self.responses, start=1):
            (target / f"{number}.json").write_text(http_responses.dumps(response),
                                                   encoding="utf-8")


def _tool(raw: Any, where: str, path: Path) -> ScriptedTool:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise CorpusError(f"{where}: a tool needs a name", path=path)
    results = raw.get("results")
    if set(raw) - {"name", "results"} or not isinstance(results, list):
        raise CorpusError(f"{where}: a tool has a name and a list of results, nothing else",
                          path=path)
    parsed = []
    for index, result in enumerate(results):
        spot = f"{where}.results[{index}]"
        if not isinstance(result, dict) or set(result) - _RESULT_KEYS \
                or not isinstance(result.get("text"), str):
            raise CorpusError(f"{spot}: a result is {{text, isError?, update?}}", path=path)
        update = result.get("update")
        if update is not None and not isinstance(update, str):
            raise CorpusError(f"{spot}.update: must be a string", path=path)
        parsed.append(ToolResult(result["text"], result.get("isError") is True, update))
    return ScriptedTool(raw["name"], tuple(parsed))


def parse_script(raw: Any, responses: tuple[HttpResponse, ...], where: Path) -> TurnScript:
    """``script.json``'s content with its responses; every problem names ``where``."""
    if not isinstance(raw, dict):
        raise CorpusError("a turn script must be a JSON object", path=where)
    unknown = set(raw) - _SCRIPT_KEYS
    if unknown:
        raise CorpusError(f"unknown keys in a turn script: {sorted(unknown)}", path=where)
    if raw.get("api") not in APIS:
        raise CorpusError(f"api must be one of {', '.join(APIS)}, not {raw.get('api')!r}",
                          path=where)
    prompts = raw.get("prompts")
    if not isinstance(prompts, list) or not prompts \
            or not all(isinstance(p, str) for p in prompts):
        raise CorpusError("prompts must be a non-empty list of strings", path=where)
    level = raw.get("thinkingLevel")
    if level is not None and level not in THINKING_LEVELS:
        raise CorpusError(f"thinkingLevel must be one of {', '.join(THINKING_LEVELS)}",
                          path=where)
    model = raw.get("model", {})
    if not isinstance(model, dict):
        raise CorpusError("model must be an object (fields over the fake model)", path=where)
    tools = raw.get("tools", [])
    if not isinstance(tools, list):
        raise CorpusError("tools must be a list", path=where)
    if not responses:
        raise CorpusError("a turn script needs at least one response (turns/1.json)",
                          path=where.parent)
    return TurnScript(raw["api"], tuple(prompts), responses,
                      tuple(_tool(t, f"tools[{i}]", where) for i, t in enumerate(tools)),
                      level, tuple(sorted(model.items())))


def load(case_directory: Path) -> TurnScript | None:
    """The case's turn script, or None when it has no ``turns/``."""
    directory = case_directory / DIRECTORY
    if not directory.is_dir() or directory.is_symlink():
        if directory.is_symlink():
            raise CorpusError("turns/ must be a directory inside the corpus, not a link",
                              path=directory)
        return None
    numbered: dict[int, Path] = {}
    for path in directory.iterdir():
        if path.is_symlink() or not path.is_file():
            raise CorpusError("not a regular file; turn files must be regular files",
                              path=path)
        match = _RESPONSE.match(path.name)
        if match:
            numbered[int(match.group(1))] = path
        elif path.name != SCRIPT:
            raise CorpusError(f"unexpected file in turns/ (only {SCRIPT} and <n>.json)",
                              path=path)
    missing = [n for n in range(1, len(numbered) + 1) if n not in numbered]
    if missing:
        raise CorpusError(f"responses are numbered from 1 without a gap: {missing[0]}.json "
                          "is missing", path=directory)
    script = directory / SCRIPT
    if not script.is_file():
        raise CorpusError(f"turns/ has no {SCRIPT}", path=directory)
    responses = tuple(http_responses.load(numbered[n]) for n in sorted(numbered))
    return parse_script(jsonio.read_json(script, CorpusError), responses, script)
