"""Record one scenario: a private sandbox, the fake provider, the real CLI, every surface.

The sandbox is a temporary directory with ``home``, ``agent`` (models.json with the custom
provider ``fake``, settings.json), ``work`` (the cwd, with the scenario's files) and
``sessions`` (``--session-dir``). The raw recording is returned as is; normalize.py makes it
comparable.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.implementations.reference import Installation, sandbox_env
from conformance.maintenance.captures.fake_provider import FakeProvider
from conformance.maintenance.captures.rpc_driver import CaptureError, RpcDriver
from conformance.maintenance.captures.scenario import Scenario

PROVIDER = "fake"
MODEL_ID = "fake-model"
# What follows 127.0.0.1:PORT in the provider's baseUrl, as the real services spell theirs.
BASE_PATH = {"google-generative-ai": "/v1beta", "anthropic-messages": ""}
DEFAULT_SETTINGS: dict[str, Any] = {
    "retry": {"enabled": False},
    "compaction": {"enabled": False},
    "cacheWarming": "off",
}
DEFAULT_MODEL: dict[str, Any] = {
    "id": MODEL_ID, "name": "Fake Model", "reasoning": False, "input": ["text"],
    "contextWindow": 100000, "maxTokens": 1000,
    "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 1.5},
}


def merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


@dataclass
class Recording:
    """Everything one run produced, before normalization."""

    scenario: str
    root: Path
    prefix: Path
    port: int
    records: list[dict[str, Any]] = field(default_factory=list)
    session_text: str = ""
    session_path: str = ""
    answers: dict[str, Any] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    exit_code: int | None = None


def _models_json(scenario: Scenario, base_url: str) -> dict[str, Any]:
    return {"providers": {PROVIDER: {
        "baseUrl": base_url + BASE_PATH.get(scenario.api, "/v1"),
        "api": scenario.api,
        "apiKey": "test-key",
        "models": [merged(DEFAULT_MODEL, scenario.model)],
    }}}


def _image(name: str, root: Path) -> dict[str, Any]:
    import base64
    data = base64.b64encode((root / name).read_bytes()).decode()
    return {"type": "image", "data": data, "mimeType": "image/png"}


def _is_update(kind: str) -> Callable[[dict[str, Any]], bool]:
    def matches(record: dict[str, Any]) -> bool:
        return record.get("type") == "message_update" and \
            record.get("assistantMessageEvent", {}).get("type") == kind
    return matches


def run_steps(driver: RpcDriver, scenario: Scenario) -> None:
    for step in scenario.steps:
        if step.kind == "prompt":
            command: dict[str, Any] = {"type": "prompt", "message": step.value}
            if step.images:
                command["images"] = [_image(name, scenario.directory) for name in step.images]
            answer = driver.response(driver.send(command))
            if not answer.get("success"):
                raise CaptureError(f"pi refused the prompt: {answer.get('error')}")
            if step.abort_after:
                wanted = step.abort_after
                driver.wait_for(_is_update(wanted), f"message_update {wanted}")
                driver.request({"type": "abort"})
            if answer.get("data", {}).get("disposition") != "handled":
                driver.wait_for(lambda r: r.get("type") == "agent_settled", "agent_settled")
        elif step.kind == "bash":
            driver.request({"type": "bash", "command": step.value})
        elif step.kind == "compact":
            command = {"type": "compact"}
            if step.value:
                command["customInstructions"] = step.value
            driver.request(command)
        else:
            driver.request(dict(step.value))


def record(scenario: Scenario, installation: Installation, timeout: float = 60.0) -> Recording:
    """Run ``scenario`` once through the real CLI and return what every surface showed.

    Pi's system prompt names its install and working directories, and its token estimates
    (``tokensBefore``, ``contextUsage``) count those characters. So every path Pi sees has the
    same length on every machine: a fixed-length directory under /tmp, holding the sandbox and
    a link to the install, which Node is told to keep (``--preserve-symlinks``).
    """
    base = "/tmp" if Path("/tmp").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="pi-capture-", dir=base) as tmp:
        root = Path(tmp).resolve()
        home, agent, work, sessions = (root / n for n in ("home", "agent", "work", "sessions"))
        for d in (home, agent, work, sessions):
            d.mkdir()
        pi = root / "pi"
        pi.symlink_to(installation.prefix, target_is_directory=True)
        cli = (pi / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle"
               / "cli.js")
        for name, text in scenario.files.items():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            source = scenario.directory / text[1:] if text.startswith("@") else None
            if source is not None:
                target.write_bytes(source.read_bytes())
            else:
                target.write_text(text, encoding="utf-8")
        (agent / "settings.json").write_text(
            json.dumps(merged(DEFAULT_SETTINGS, scenario.settings), indent=2))
        env = sandbox_env(home)
        env["PI_CODING_AGENT_DIR"] = str(agent)
        with FakeProvider(scenario.api, list(scenario.turns), MODEL_ID) as fake:
            (agent / "models.json").write_text(
                json.dumps(_models_json(scenario, fake.base_url), indent=2))
            command = [str(installation.node), "--preserve-symlinks", "--preserve-symlinks-main",
                       str(cli), "--mode", "rpc",
                       "--session-dir", str(sessions), "--provider", PROVIDER,
                       "--model", MODEL_ID]
            if scenario.thinking:
                command += ["--thinking", scenario.thinking]
            driver = RpcDriver(command, work, env, timeout)
            recording = Recording(scenario.name, root, pi, fake.port)
            try:
                run_steps(driver, scenario)
                for name in ("get_messages", "get_entries", "get_session_stats", "get_state"):
                    recording.answers[name] = driver.request({"type": name}).get("data")
            finally:
                recording.exit_code = driver.close()
            recording.records = driver.records
            recording.requests = list(fake.requests)
        if len(recording.requests) != len(scenario.turns):
            raise CaptureError(
                f"the scenario scripts {len(scenario.turns)} turn(s) but Pi sent "
                f"{len(recording.requests)} request(s); script one turn per request",
                path=scenario.path)
        files = sorted(sessions.rglob("*.jsonl"))
        if len(files) != 1:
            raise CaptureError(f"expected one session file under --session-dir, found "
                               f"{len(files)}", path=scenario.path)
        recording.session_path = str(files[0])
        recording.session_text = files[0].read_text(encoding="utf-8")
    return recording
