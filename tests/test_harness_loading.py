"""How the reference harness loads Pi: every module a case's stages need, and no more.

Each test runs the real harness on the real installation's packages, through a private npm
prefix (a symlink to its ``node_modules``) so the capabilities file the harness keeps beside the
installation is the test's own. Node's own module hooks (``--import``) record what was loaded.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conformance.implementations import protocol
from conformance.implementations import reference as ref

pytestmark = pytest.mark.reference

SESSION = (
    '{"type":"session","version":3,"id":"s1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}\n'
    '{"type":"message","id":"a1","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1733234401000}}\n'
)

RECORDER = """
import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({
  load(url, context, nextLoad) {
    appendFileSync(process.env.LOADED_LOG, url + "\\n");
    return nextLoad(url, context);
  },
});
"""


@pytest.fixture
def prefix(tmp_path: Path) -> Path:
    """A private npm prefix holding the installed reference's packages, and sharing its
    compile cache (a cache of compiled code, by content: compiling Pi cold takes seconds)."""
    installation = ref.require_installation()
    prefix = tmp_path / "prefix"
    prefix.mkdir()
    (prefix / "node_modules").symlink_to(installation.prefix / "node_modules")
    (installation.prefix / ".compile-cache").mkdir(exist_ok=True)
    (prefix / ".compile-cache").symlink_to(installation.prefix / ".compile-cache")
    return prefix


def detected(prefix: Path, tmp_path: Path) -> None:
    """The capabilities kept in ``prefix``: the installation's own file when it has one (the
    same packages and Node), then a first start, which detects them again if that file was
    kept by another harness."""
    kept = ref.require_installation().prefix / ".harness-capabilities.json"
    if kept.is_file():
        (prefix / ".harness-capabilities.json").write_bytes(kept.read_bytes())
    converse(prefix, tmp_path, [])


def converse(prefix: Path, tmp_path: Path, requests: list[dict], *, preload: bool = False,
             **extra_env: str) -> tuple[list[dict], list[str]]:
    """Every answer of one harness process to ``requests`` (then bye), and the module URLs it
    loaded, in order. Without ``preload``, as in a process started for one case, it loads
    nothing ahead of what a case needs."""
    recorder = tmp_path / "recorder.mjs"
    recorder.write_text(RECORDER)
    log = tmp_path / "loaded.log"
    log.unlink(missing_ok=True)
    home = tmp_path / "home"
    (home / "agent").mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    env = {**ref.sandbox_env(home), "TMPDIR": str(home / "tmp"), "LOADED_LOG": str(log),
           "NODE_OPTIONS": f"--import={recorder.as_uri()}", **extra_env}
    if not preload:
        env["PI_CONFORMANCE_PRELOAD"] = "0"
    node = ref.require_installation().node
    lines = [json.dumps(r) for r in [protocol.hello_request(), *requests, {"cmd": "bye"}]]
    done = subprocess.run([str(node), str(ref.HARNESS), str(prefix), "@earendil-works"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return answers, log.read_text().splitlines() if log.exists() else []


def run_request(session: Path, stages: list[str], seq: int = 1) -> dict:
    request = protocol.run_request(seq, "t", (), str(session), session.read_text(), stages,
                                   {"cwd": "/p", "request": {"models": {}}})
    return request


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(SESSION)
    return path


def loaded(urls: list[str], tail: str) -> bool:
    return any(url.endswith(tail) for url in urls)


# The entry module of each group the harness loads (harness.mjs, "Pi's modules").
GROUPS = {
    "core": "dist/core/session-manager.js",
    "agent-session": "dist/core/agent-session.js",
    **{f"api:{api}": f"dist/api/{api}.js" for api in (
        "anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai")},
}


def groups_loaded(urls: list[str]) -> set[str]:
    """Which of the harness's module groups a process loaded."""
    return {group for group, module in GROUPS.items() if loaded(urls, module)}


def test_capabilities_are_detected_once_and_kept_beside_the_installation(prefix, tmp_path,
                                                                            session):
    cold, cold_loads = converse(prefix, tmp_path, [])
    kept = json.loads((prefix / ".harness-capabilities.json").read_text())
    assert groups_loaded(cold_loads) == set(GROUPS)  # detection loads everything
    warm, warm_loads = converse(prefix, tmp_path, [])
    assert warm[0] == cold[0]  # the same hello, every stage and API claimed
    assert {"stats", "request.anthropic-messages", "wire.openai-responses"} <= set(
        warm[0]["capabilities"]["stages"])
    assert set(kept["stages"]) <= set(warm[0]["capabilities"]["stages"])
    assert groups_loaded(warm_loads) == {"core"}


def test_a_branch_only_case_loads_neither_agent_session_nor_a_provider(prefix, tmp_path,
                                                                        session):
    detected(prefix, tmp_path)
    answers, loads = converse(prefix, tmp_path, [run_request(session, ["branch"])])
    assert answers[1]["results"]["branch"]["output"]["leafId"] == "a1"
    assert groups_loaded(loads) == {"core"}


def test_a_stage_loads_what_it_needs_before_any_stage_of_its_case_runs(prefix, tmp_path,
                                                                         session):
    detected(prefix, tmp_path)
    answers, loads = converse(prefix, tmp_path, [
        run_request(session, ["branch"], seq=1),
        run_request(session, ["entries", "stats"], seq=2),
    ])
    stats = answers[2]["results"]["stats"]["output"]
    assert stats["userMessages"] == 1
    assert groups_loaded(loads) == {"core", "agent-session"}


@pytest.mark.parametrize("kept", [
    "not json at all",
    json.dumps({"key": "an older harness", "stages": ["entries"], "apis": {}}),
])
def test_a_stale_or_broken_capabilities_file_is_detected_again(prefix, tmp_path, kept):
    detected(prefix, tmp_path)
    (expected, *_), _ = converse(prefix, tmp_path, [])
    (prefix / ".harness-capabilities.json").write_text(kept)
    answers, loads = converse(prefix, tmp_path, [])
    assert answers[0] == expected
    assert groups_loaded(loads) == set(GROUPS)  # detected again: everything loaded
    assert json.loads((prefix / ".harness-capabilities.json").read_text())["key"] != (
        "an older harness")


def test_pi_failing_to_load_is_an_error_of_the_harness_not_a_rejection(prefix, tmp_path,
                                                                        session):
    detected(prefix, tmp_path)
    capabilities = prefix / ".harness-capabilities.json"
    kept = json.loads(capabilities.read_text())
    kept["apis"]["openai-responses"] = ["dist/api/no-such-module.js", "streamSimple"]
    capabilities.write_text(json.dumps(kept))
    answers, _ = converse(prefix, tmp_path, [
        run_request(session, ["entries", "request.openai-responses"], seq=7),
        run_request(session, ["entries"], seq=8),
    ])
    assert answers[1]["seq"] == 7 and "no-such-module.js" in answers[1]["error"]["message"]
    assert "output" in answers[2]["results"]["entries"]  # the next case is answered


def test_an_installation_it_cannot_keep_capabilities_in_still_answers(prefix, tmp_path,
                                                                      session):
    blocked = prefix / ".harness-capabilities.json"
    (blocked / "in-the-way").mkdir(parents=True)  # neither readable nor replaceable as a file
    answers, _ = converse(prefix, tmp_path, [run_request(session, ["entries", "stats"])])
    assert "output" in answers[1]["results"]["stats"]
    assert blocked.is_dir()


def test_warming_up_an_installation_detects_its_capabilities(prefix):
    ref.warm_up(ref.Installation(prefix))
    kept = json.loads((prefix / ".harness-capabilities.json").read_text())
    assert "stats" in kept["stages"] and "openai-responses" in kept["apis"]


def test_an_installation_that_cannot_answer_a_hello_fails_its_warm_up(tmp_path):
    from conformance.errors import ReferenceMissing

    broken = tmp_path / "broken"
    (broken / "node_modules" / ".bin").mkdir(parents=True)
    (broken / "node_modules" / ".bin" / "node").symlink_to(ref.require_installation().node)
    with pytest.raises(ReferenceMissing, match="does not answer a hello"):
        ref.warm_up(ref.Installation(broken))


def test_ahead_of_its_cases_it_loads_all_of_pi_and_awaits_that_before_a_request_stage(
        prefix, tmp_path, session):
    detected(prefix, tmp_path)
    answers, loads = converse(prefix, tmp_path, [
        run_request(session, ["entries", "request.openai-responses"])], preload=True)
    assert answers[1]["results"]["request.openai-responses"]["rejected"]  # no model given
    assert groups_loaded(loads) == set(GROUPS)


def test_a_process_for_one_case_or_a_variation_loads_only_what_the_case_needs(
        prefix, tmp_path, session):
    detected(prefix, tmp_path)
    for preload, env in ((False, {}), (True, {"PI_CONFORMANCE_SEED": "s"})):
        _, loads = converse(prefix, tmp_path, [
            run_request(session, ["entries", "request.openai-responses"])],
            preload=preload, **env)
        assert groups_loaded(loads) == {"core", "api:openai-responses"}


def test_a_run_narrowed_to_some_stages_loads_ahead_only_what_they_need(prefix, tmp_path,
                                                                         session):
    detected(prefix, tmp_path)
    # The request stage awaits the loading ahead, so what was loaded then is all of it.
    answers, loads = converse(prefix, tmp_path, [
        run_request(session, ["branch", "request.openai-responses"])], preload=True,
        PI_CONFORMANCE_STAGES="branch,stats,request.openai-responses,no-such-stage")
    assert answers[1]["results"]["branch"]["output"]["leafId"] == "a1"
    # agent-session.js for stats, which was not asked yet
    assert groups_loaded(loads) == {"core", "agent-session", "api:openai-responses"}


def test_a_stage_the_narrowed_run_did_not_name_still_loads_what_it_needs(prefix, tmp_path,
                                                                          session):
    detected(prefix, tmp_path)
    answers, loads = converse(prefix, tmp_path, [
        run_request(session, ["branch"], seq=1),
        run_request(session, ["stats", "request.anthropic-messages"], seq=2)],
        preload=True, PI_CONFORMANCE_STAGES="branch")
    assert answers[2]["results"]["stats"]["output"]["userMessages"] == 1
    assert "rejected" in answers[2]["results"]["request.anthropic-messages"]  # no model given
    assert groups_loaded(loads) == {"core", "agent-session", "api:anthropic-messages"}


FETCH_COUNTER = """
import { appendFileSync } from "node:fs";
const fetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  appendFileSync(process.env.FETCH_LOG, "fetch\\n");
  return fetch(input, init);
};
"""


def test_the_request_and_wire_stages_of_an_api_come_from_one_call_of_pi_ai(prefix, tmp_path,
                                                                            session):
    """One call of streamSimple gives both: asking both costs what asking one does."""
    detected(prefix, tmp_path)
    counter = tmp_path / "counter.mjs"
    counter.write_text(FETCH_COUNTER)
    log = tmp_path / "fetches.log"
    model = json.loads((Path(__file__).resolve().parent.parent / "corpus" / "models.json")
                       .read_text())["models"]["openai-responses"]
    fetches = []
    for stages in (["request.openai-responses"],
                   ["request.openai-responses", "wire.openai-responses"]):
        request = run_request(session, stages)
        request["options"]["request"]["models"] = {"openai-responses": model}
        log.unlink(missing_ok=True)
        answers, _ = converse(prefix, tmp_path, [request], FETCH_LOG=str(log),
                              NODE_OPTIONS=f"--import={counter.as_uri()}")
        fetches.append(len(log.read_text().splitlines()))
    results = answers[1]["results"]
    assert fetches == [1, 1]
    assert results["wire.openai-responses"]["output"]["body"] == \
        results["request.openai-responses"]["output"]
