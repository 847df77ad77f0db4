"""Seeded generators of large, realistic sessions: thousands of entries, megabytes.

Real users have sessions of that size; committing them would bloat the repository, so a case
names a generator, a seed and an entry count (``[generate]`` in case.toml) and the session is
built on demand (``generated.py``). A generator must be a pure function of its arguments: the
same (version, seed, entries) always gives the same bytes. Change what one writes and you must
bump its ``version``, or the cached sessions and the goldens no longer agree.
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

WORDS = ("the", "parser", "session", "branch", "compaction", "test", "fails", "because",
         "entry", "leaf", "token", "cache", "refactor", "module", "function", "returns",
         "missing", "value", "when", "file", "is", "empty", "add", "a", "check", "for",
         "null", "and", "update", "docs", "rename", "variable", "to", "match", "style")
TOOLS = [
    {"name": name, "description": f"The {name} tool",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                    "required": ["path"]}}
    for name in ("read", "bash", "edit", "write")
]
MODELS = (("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
          ("openai", "openai-responses", "gpt-5"),
          ("google", "google-generative-ai", "gemini-2.5-pro"))
LEVELS = ("off", "minimal", "low", "medium", "high")
START_MS = 1_735_700_000_000  # 2025-01-01T03:33:20Z


def _iso(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


@dataclass
class _Writer:
    """Appends entries to a tree, with ids, parents and a clock that only moves forward."""

    rng: random.Random
    lines: list[str]
    leaf: str | None = None
    count: int = 0
    clock: int = START_MS

    def add(self, entry_type: str, parent: str | None = None, use_leaf: bool = True,
            **fields: Any) -> str:
        self.count += 1
        self.clock += self.rng.randint(200, 40_000)
        entry_id = f"{self.count:08x}"
        entry = {"type": entry_type, "id": entry_id,
                 "parentId": self.leaf if use_leaf else parent,
                 "timestamp": _iso(self.clock), **fields}
        self.lines.append(json.dumps(entry, ensure_ascii=False) + "\n")
        self.leaf = entry_id
        return entry_id

    def message(self, message: dict[str, Any]) -> str:
        return self.add("message", message={**message, "timestamp": self.clock + 1})

    def words(self, low: int, high: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def blob(self, low: int, high: int) -> str:
        return base64.b64encode(self.rng.randbytes(self.rng.randint(low, high))).decode()


def _usage(context: int, output: int) -> dict[str, Any]:
    cost = round(context * 3e-6 + output * 15e-6, 6)
    return {"input": context, "output": output, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": context + output,
            "cost": {"input": round(context * 3e-6, 6), "output": round(output * 15e-6, 6),
                     "cacheRead": 0, "cacheWrite": 0, "total": cost}}


def _file_body(writer: _Writer) -> str:
    lines = writer.rng.randint(5, 50)
    return "".join(f"{n:4d}  {writer.words(3, 12)}\n" for n in range(1, lines + 1))


def _turn(writer: _Writer, model: tuple[str, str, str], context: int) -> int:
    """One prompt and the agent's work on it; returns the context size after it."""
    provider, api, model_id = model
    writer.message({"role": "user", "content": [{"type": "text", "text": writer.words(5, 60)}]})
    for step in range(writer.rng.randint(0, 4) + 1):
        last = step > 0 and writer.rng.random() < 0.35
        content: list[dict[str, Any]] = []
        if writer.rng.random() < 0.7:
            content.append({"type": "thinking", "thinking": writer.words(10, 80),
                            "thinkingSignature": writer.blob(200, 1500)})
        content.append({"type": "text", "text": writer.words(5, 50)})
        calls = [] if last else [
            {"type": "toolCall", "id": f"toolu_{writer.count:06d}_{n}",
             "name": writer.rng.choice(("read", "bash", "edit")),
             "arguments": {"path": f"src/{writer.rng.choice(WORDS)}.py"}}
            for n in range(writer.rng.randint(1, 3))]
        content.extend(calls)
        output = writer.rng.randint(20, 900)
        context += output + writer.rng.randint(50, 400)
        writer.message({"role": "assistant", "content": content, "api": api,
                        "provider": provider, "model": model_id,
                        "usage": _usage(context, output),
                        "stopReason": "toolUse" if calls else "stop"})
        for call in calls:
            body = _file_body(writer)
            context += len(body) // 4
            writer.message({"role": "toolResult", "toolCallId": call["id"],
                            "toolName": call["name"],
                            "content": [{"type": "text", "text": body}],
                            "isError": writer.rng.random() < 0.05})
        if not calls:
            break
    return context


def coding_session(seed: int, entries: int, branchy: bool = False) -> bytes:
    """A long agent session: prompts, thinking, tool calls and results, setting changes,
    labels, compactions every few hundred entries and, when ``branchy``, branches with
    summaries back to earlier entries."""
    rng = random.Random(seed)
    header = {"type": "session", "version": 3, "id": f"sess-generated-{seed}",
              "timestamp": _iso(START_MS), "cwd": "/home/dev/project"}
    writer = _Writer(rng, [json.dumps(header) + "\n"])
    model = MODELS[0]
    writer.add("model_change", provider=model[0], modelId=model[2])
    writer.add("thinking_level_change", thinkingLevel="medium")
    system = {"role": "system", "content": "You are a coding assistant.",
              "sections": {"preamble": writer.words(40, 80), "cwd": "Current directory: "
                           "/home/dev/project"}, "toolsAdded": TOOLS}
    writer.message(system)
    context, since_compaction, kept = 2000, 0, writer.leaf
    history: list[str] = []
    while writer.count < entries:
        before = writer.count
        context = _turn(writer, model, context)
        history.append(writer.leaf or "")
        since_compaction += writer.count - before
        roll = rng.random()
        if roll < 0.05:
            model = rng.choice(MODELS)
            writer.add("model_change", provider=model[0], modelId=model[2])
        elif roll < 0.10:
            writer.add("thinking_level_change", thinkingLevel=rng.choice(LEVELS))
        elif roll < 0.13:
            writer.add("label", targetId=rng.choice(history), label=writer.words(1, 3))
        elif roll < 0.15:
            writer.add("usage", kind="title", provider=model[0], model=model[2],
                       usage=_usage(rng.randint(100, 900), rng.randint(5, 40)))
        elif roll < 0.17:
            writer.add("custom_message", customType="note", content=writer.words(5, 30),
                       display=True)
        if branchy and roll > 0.9 and len(history) > 4:
            target = rng.choice(history[-12:-1])
            summary = writer.words(20, 80)
            writer.add("branch_summary", parent=target, use_leaf=False,
                       fromId=writer.leaf, summary=summary)
        if since_compaction > rng.randint(250, 450):
            writer.add("compaction", summary=writer.words(60, 200), firstKeptEntryId=kept,
                       tokensBefore=context,
                       systemMessage={**system, "timestamp": writer.clock})
            context, since_compaction = 3000, 0
        kept = history[-1]
    return "".join(writer.lines).encode()


#: Models of every API pi-ai knows, and one of an API it does not (an embedder's own).
MESSY_MODELS = (*MODELS,
                ("fake", "openai-completions", "fake-model"),
                ("azure", "azure-openai-responses", "gpt-5"),
                ("openai-codex", "openai-codex-responses", "gpt-5.6-sol"),
                ("mistral", "mistral-conversations", "mistral-large-latest"),
                ("amazon-bedrock", "bedrock-converse-stream",
                 "anthropic.claude-sonnet-4-5-20250929-v1:0"),
                ("google-vertex", "google-vertex", "gemini-2.5-pro"),
                ("radius", "pi-messages", "claude-sonnet-4-5"),
                ("ollama", "ollama", "qwen3-coder:30b"))


def _call_id(writer: _Writer, style: int, name: str, n: int) -> str:
    """A tool-call id in one of the forms providers give: Anthropic's, the functions.<name>:<n>
    of some OpenAI-compatible servers, the Responses call|item pair, a bare counter."""
    count = writer.count
    return (f"toolu_{count:06d}_{n}", f"functions.{name}:{n}",
            f"call_{count:06d}{n}|fc_{count:06x}{n}", f"call_{n}")[style]


def _messy_turn(writer: _Writer, model: tuple[str, str, str], context: int) -> int:
    """A turn as real files have them: ids of every form, sometimes two calls of a turn
    sharing one, sometimes a call left without its result (an orphan call)."""
    provider, api, model_id = model
    rng = writer.rng
    writer.message({"role": "user", "content": [{"type": "text", "text": writer.words(5, 40)}]})
    for step in range(rng.randint(0, 3) + 1):
        last = step > 0 and rng.random() < 0.35
        content: list[dict[str, Any]] = []
        if rng.random() < 0.5:
            content.append({"type": "thinking", "thinking": writer.words(5, 40),
                            "thinkingSignature": writer.blob(40, 300)})
        content.append({"type": "text", "text": writer.words(3, 30)})
        style = rng.randrange(4)
        names = [rng.choice(("read", "bash", "edit")) for _ in range(rng.randint(1, 3))]
        calls = [] if last else [
            {"type": "toolCall", "id": _call_id(writer, style, name, n), "name": name,
             "arguments": {"path": f"src/{rng.choice(WORDS)}.py"}}
            for n, name in enumerate(names)]
        if len(calls) > 1 and rng.random() < 0.1:
            calls[1]["id"] = calls[0]["id"]  # two calls of one turn, one id
        content.extend(calls)
        output = rng.randint(20, 600)
        context += output + rng.randint(50, 300)
        writer.message({"role": "assistant", "content": content, "api": api,
                        "provider": provider, "model": model_id,
                        "usage": _usage(context, output),
                        "stopReason": "toolUse" if calls else "stop"})
        for call in calls:
            if rng.random() < 0.05:
                continue  # an orphan call: its result never came
            body = _file_body(writer)
            context += len(body) // 4
            writer.message({"role": "toolResult", "toolCallId": call["id"],
                            "toolName": call["name"],
                            "content": [{"type": "text", "text": body}],
                            "isError": rng.random() < 0.05})
        if not calls:
            break
    return context


def messy_session(seed: int, entries: int) -> bytes:
    """A long session with the shapes published files show: model changes across every API
    pi-ai knows and one it does not, tool results whose call is nowhere (orphans), calls
    without results, messages appended again under new ids (an embedder checkpointing its
    history), tool-call ids of every form and duplicated within a turn; compactions every few
    hundred entries keep the request a few hundred kilobytes."""
    rng = random.Random(seed)
    header = {"type": "session", "version": 3, "id": f"sess-messy-{seed}",
              "timestamp": _iso(START_MS), "cwd": "/home/dev/project"}
    writer = _Writer(rng, [json.dumps(header) + "\n"])
    model = MESSY_MODELS[0]
    writer.add("model_change", provider=model[0], modelId=model[2])
    system = {"role": "system", "content": "You are a coding assistant.",
              "sections": {"preamble": writer.words(20, 40)}, "toolsAdded": TOOLS}
    writer.message(system)
    context, since_compaction, kept = 2000, 0, writer.leaf
    recent: list[str] = []  # the message lines of the last turns, for re-appending
    while writer.count < entries:
        before = len(writer.lines)
        context = _messy_turn(writer, model, context)
        recent = (recent + writer.lines[before:])[-8:]
        roll = rng.random()
        if roll < 0.12:
            model = rng.choice(MESSY_MODELS)
            writer.add("model_change", provider=model[0], modelId=model[2])
        elif roll < 0.17:
            writer.message({"role": "toolResult", "toolCallId": f"call_gone_{writer.count}",
                            "toolName": "bash", "content": [{"type": "text", "text": "ok"}],
                            "isError": False})
        elif roll < 0.22:
            for line in recent:  # the same messages again (timestamps too), under new ids
                writer.add("message", message=json.loads(line)["message"])
        since_compaction += len(writer.lines) - before
        if since_compaction > rng.randint(250, 450):
            writer.add("compaction", summary=writer.words(40, 120), firstKeptEntryId=kept,
                       tokensBefore=context,
                       systemMessage={**system, "timestamp": writer.clock})
            context, since_compaction = 3000, 0
        kept = writer.leaf
    return "".join(writer.lines).encode()


@dataclass(frozen=True)
class Generator:
    """A named session generator and the version of what it writes."""

    version: int
    build: Callable[[int, int], bytes]
    description: str


GENERATORS: dict[str, Generator] = {
    "coding-session": Generator(
        1, coding_session,
        "a linear agent session with tool work, setting changes and periodic compactions"),
    "branching-session": Generator(
        1, lambda seed, entries: coding_session(seed, entries, branchy=True),
        "the same with frequent branches back to earlier turns, each with a branch summary"),
    "messy-session": Generator(
        1, messy_session,
        "orphan tool results and calls, re-appended messages, model changes across every API "
        "(and an unknown one), tool-call ids of every form"),
}
