"""The reference harness: the real Pi, pinned, sandboxed, never touching its input."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from conformance.errors import ReferenceMissing
from conformance.implementations import protocol
from conformance.implementations import reference as ref

pytestmark = pytest.mark.reference

SESSION = (
    '{"type":"session","version":1,"id":"s1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}\n'
    '{"type":"message","timestamp":"2024-12-03T14:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1733234401000}}\n'
)


@pytest.fixture
def harness(pi):
    """The session's Pi (tests/conftest.py): the harness keeps nothing between requests."""
    return pi.impl


def ask(impl, path: Path, stages: list[str], seq: int = 1) -> dict:
    request = protocol.run_request(seq, "t", (), str(path), path.read_text(), stages,
                                   {"cwd": "/pi-conformance/cwd"})
    return protocol.check_run_answer(impl.run(request, 30), seq, stages)


def test_hello_names_the_pinned_packages_and_node_22(harness):
    deps = harness.hello.implementation["dependencies"]
    lock = json.loads(ref.LOCKFILE.read_text())["packages"]
    for name in ref.PI_PACKAGES:
        assert deps[name] == lock[f"node_modules/{name}"]["version"]
    assert deps["node"].startswith("22.")
    assert {"entries", "context", "request.openai-responses"} <= harness.hello.stages


def test_pi_migrates_a_copy_and_never_the_file_it_is_given(harness, tmp_path):
    # A v1 file is rewritten by Pi on open; the file we hand over must stay byte-identical.
    session = tmp_path / "s.jsonl"
    session.write_text(SESSION)
    before = hashlib.sha256(session.read_bytes()).hexdigest()
    results = ask(harness, session, ["entries"])
    assert hashlib.sha256(session.read_bytes()).hexdigest() == before
    entries = results["entries"]["output"]
    assert entries["header"]["version"] == 3  # migrated, so Pi really ran on a copy
    assert len(entries["entries"][0]["id"]) == 8


def test_a_file_that_is_not_a_session_is_rejected_not_an_error(harness, tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"message","id":"a"}\n')
    results = ask(harness, session, ["entries", "context"], seq=2)
    assert "not a valid pi session" in results["entries"]["rejected"]["message"]
    assert "rejected" in results["context"]


def test_missing_header_cwd_reports_the_runners_cwd(harness, tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"session","version":3,"id":"x","timestamp":"2024-01-01T00:00:00Z"}\n')
    results = ask(harness, session, ["entries"], seq=3)
    assert results["entries"]["output"]["header"].get("cwd", "/pi-conformance/cwd") \
        == "/pi-conformance/cwd"


def test_requests_are_captured_without_touching_the_network(harness, tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text(SESSION.replace('"version":1', '"version":3'))
    from conformance.corpus.cases import Corpus

    models = Corpus().models
    request = protocol.run_request(
        4, "t", (), str(session), session.read_text(), ["request.anthropic-messages"],
        {"request": {"models": {"anthropic-messages": models["anthropic-messages"]}}})
    results = protocol.check_run_answer(harness.run(request, 30), 4,
                                        ["request.anthropic-messages"])
    payload = results["request.anthropic-messages"]["output"]
    assert payload["model"] == "claude-sonnet-4-5"
    # The last user message carries the cache breakpoint, so its string became a text block.
    assert payload["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]


def test_a_missing_installation_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "empty"))
    with pytest.raises(ReferenceMissing, match="pi-conformance reference install"):
        ref.require_installation()


def test_sandbox_env_hides_the_users_home_and_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/root/.pi/agent")
    env = ref.sandbox_env(tmp_path)
    assert env["HOME"] == str(tmp_path)
    assert env["PI_CODING_AGENT_DIR"] == str(tmp_path / "agent")
    assert "ANTHROPIC_API_KEY" not in env
    assert env["PI_OFFLINE"] == "1"


def test_harness_refuses_non_loopback_fetches(tmp_path):
    # The guard in harness.mjs: any fetch to a non-loopback host fails before leaving.
    installation = ref.require_installation()
    script = tmp_path / "probe.mjs"
    harness_js = ref.HARNESS.read_text()
    guard = harness_js[harness_js.index("const realFetch"):harness_js.index("// ---- Pi's modules")]
    script.write_text(guard + """
try { await fetch("https://example.com/"); console.log("LEAKED"); }
catch (e) { console.log("BLOCKED " + e.message); }
""")
    import subprocess

    out = subprocess.run([str(installation.node), str(script)], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.startswith("BLOCKED pi-conformance: blocked non-loopback request")


def test_harness_refuses_non_loopback_connections_below_fetch(tmp_path):
    """The AWS SDK sends with node:http, Google's auth library with node-fetch, Codex opens a
    WebSocket: none goes through fetch, so the harness refuses any TCP connection to a host
    that is not the loopback, before its name is looked up, and records it."""
    installation = ref.require_installation()
    script = tmp_path / "probe.mjs"
    harness_js = ref.HARNESS.read_text()
    guard = harness_js[harness_js.index("const LOOPBACK_HOSTS"):harness_js.index("// What pi-ai")]
    script.write_text('import net from "node:net";\nimport https from "node:https";\n' + guard + """
const outcome = await new Promise((resolve) => {
  const req = https.get("https://example.com/", () => resolve("LEAKED"));
  req.on("error", (e) => resolve("BLOCKED " + e.message));
});
const local = await new Promise((resolve) => {
  const socket = net.connect({ host: "127.0.0.1", port: 9 });
  socket.on("error", (e) => resolve(e.code));
  socket.on("connect", () => resolve("connected"));
});
console.log(outcome);
console.log(JSON.stringify(blockedConnections), local);
""")
    import subprocess

    out = subprocess.run([str(installation.node), str(script)], capture_output=True, text=True,
                         timeout=60)
    lines = out.stdout.splitlines()
    assert lines[0] == "BLOCKED pi-conformance: blocked non-loopback connection to example.com:443"
    # The loopback is still reachable (port 9 refuses: it was tried, not blocked).
    assert lines[1] == '["example.com:443"] ECONNREFUSED'


def test_a_provider_call_that_would_leave_the_machine_is_an_error_of_the_harness(
        harness, tmp_path):
    """A Bedrock model on a custom endpoint makes the AWS SDK connect there itself, past the
    loopback redirect: the case is an error naming the host, never a golden."""
    session = tmp_path / "s.jsonl"
    session.write_text(SESSION.replace('"version":1', '"version":3'))
    from conformance.corpus.cases import Corpus

    model = {**Corpus().models["bedrock-converse-stream"],
             "baseUrl": "https://bedrock.proxy.example.com"}
    stages = ["request.bedrock-converse-stream"]
    request = protocol.run_request(5, "t", (), str(session), session.read_text(), stages,
                                   {"request": {"models": {"bedrock-converse-stream": model}}})
    answer = harness.run(request, 30)
    assert "error" in answer, answer
    assert "bedrock.proxy.example.com:443" in answer["error"]["message"]
    assert "instead of the loopback server" in answer["error"]["message"]


def test_a_shifted_clock_sends_each_request_once(tmp_path):
    """Regeneration shifts Pi's clock (PI_CONFORMANCE_CLOCK_OFFSET). The AWS SDK read the
    loopback server's Date header as clock skew and sent Bedrock's request three times; the
    harness refuses a call that sends more than one request, and the server sends no Date."""
    import subprocess

    from conformance.corpus.cases import Corpus

    installation = ref.require_installation()
    session = tmp_path / "s.jsonl"
    session.write_text(SESSION.replace('"version":1', '"version":3'))
    stages = ["request.bedrock-converse-stream", "wire.bedrock-converse-stream"]
    models = {"bedrock-converse-stream": Corpus().models["bedrock-converse-stream"]}
    lines = [{"cmd": "hello", "protocol": 1},
             protocol.run_request(1, "t", (), str(session), session.read_text(), stages,
                                  {"request": {"models": models}}),
             {"cmd": "bye"}]
    env = {**ref.sandbox_env(tmp_path), "PI_CONFORMANCE_CLOCK_OFFSET": "87188711111"}
    out = subprocess.run(
        [str(installation.node), str(ref.HARNESS), str(installation.prefix), "@earendil-works"],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True,
        text=True, timeout=120, env=env)
    answer = json.loads(out.stdout.splitlines()[1])
    assert "error" not in answer, answer
    wire = answer["results"]["wire.bedrock-converse-stream"]["output"]
    assert wire["path"].endswith("/converse-stream")


def test_a_rejected_session_leaves_nothing_behind_for_the_next_request(harness, tmp_path):
    # Pi's rejection used to leave the scratch copy in place, breaking a later request that
    # reused the same seq.
    bad, good = tmp_path / "bad.jsonl", tmp_path / "good.jsonl"
    bad.write_text('{"type":"message","id":"a"}\n')
    good.write_text(SESSION.replace('"version":1', '"version":3'))
    assert "rejected" in ask(harness, bad, ["entries"], seq=40)["entries"]
    rejected = ask(harness, bad, ["entries"], seq=40)["entries"]["rejected"]["message"]
    assert rejected.endswith("<scratch>/run/session.jsonl")  # no random path in goldens
    assert "output" in ask(harness, good, ["entries"], seq=40)["entries"]


def test_every_sandbox_holds_its_own_temporary_directory_and_is_removed_whole():
    """The harness's private copies live in the process's own sandbox (TMPDIR), on a RAM file
    system where there is one, so a process killed on a hang leaves nothing behind."""
    setup, teardown = ref.sandbox_homes()
    env = setup()
    home = Path(env["HOME"])
    assert Path(env["TMPDIR"]) == home / "tmp" and (home / "tmp").is_dir()
    if ref.ram_directory() is not None:
        assert home.parent == Path(ref.ram_directory())
    (home / "tmp" / "pi-conformance-ref-x").mkdir()  # what a killed harness would leave
    teardown()
    assert not home.exists()


def test_a_reference_process_killed_on_a_hang_leaves_no_scratch_behind(tmp_path):
    from conformance.implementations.specs import resolve

    session = tmp_path / "cycle.jsonl"
    session.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2024-12-03T14:00:00.000Z",'
        '"cwd":"/p"}\n{"type":"message","id":"a","parentId":"a",'
        '"timestamp":"2024-12-03T14:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1733234401000}}\n')
    impl = resolve("reference")
    with impl:
        request = protocol.run_request(1, "cycle", (), str(session), session.read_text(),
                                       ["branch"], {"cwd": "/p"})
        homes = []
        real_setup = impl.setup
        impl.setup = lambda: (env := real_setup(), homes.append(Path(env["HOME"])))[0]
        with pytest.raises(Exception, match="no answer within"):
            impl.run_isolated(request, 0.5, another_follows=False)
        assert homes and list((homes[0] / "tmp").glob("pi-conformance-ref-*"))  # killed
    assert not any(home.exists() for home in homes)


def test_sandbox_homes_never_torn_down_are_removed_when_the_process_exits(tmp_path):
    import subprocess
    import sys

    script = ("from conformance.implementations import reference as ref\n"
              "setup, teardown = ref.sandbox_homes()\n"
              "print(setup()['HOME'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=60)
    home = Path(done.stdout.strip())
    assert home.name.startswith("pi-conformance-home-")
    assert not home.exists()
