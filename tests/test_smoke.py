"""pi-conformance smoke: one pass/fail line per check, exit 0 only when all pass."""

from __future__ import annotations

import os
import sys

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES
from conformance.execution.smoke import smoke

STAGES = len(DEFAULT_STAGES)  # a case's stages, every API's included


def smoke_cli(corpus_dir, spec: str):
    return CliRunner().invoke(main, ["smoke", "--impl", spec, "--corpus", str(corpus_dir),
                                     "--timeout", "5"])


def test_a_correctly_wired_adapter_passes_every_check(corpus_dir, fake):
    result = smoke_cli(corpus_dir, fake("correct", "--claim-features", "timestamps"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [
        "[pass] handshake", "[pass] stages", "[pass] features", "[pass] run small.alpha",
        "[pass] run small.beta", "[pass] bye"]
    assert "fake 0.0.0 (python) answered hello" in lines[0]
    assert f"{STAGES} stage(s) answered" in lines[3]
    assert f"{STAGES} match the golden" in lines[3]
    assert lines[-1] == "smoke passed: 6 of 6 checks passed"


def test_a_wrong_answer_is_not_a_smoke_failure_but_is_shown(corpus, fake):
    checks = smoke(fake("wrong", "--stage", "context"), corpus)
    run = next(c for c in checks if c.name == "run small.alpha")
    assert run.ok and f"{STAGES - 1} match the golden, 1 differ" in run.detail


def test_a_garbled_hello_fails_the_handshake(corpus_dir):
    result = smoke_cli(corpus_dir, f"process:{sys.executable} -c \"print('ready!')\"")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("[FAIL] handshake: ")
    assert "handshake failed: answer is not JSON" in first and "'ready!'" in first


@pytest.mark.parametrize(("args", "failing", "text"), [
    (("sloppy",), ["run small.alpha", "run small.beta"], "(protocol)"),
    (("crashing", "--on", "small.alpha"), ["run small.alpha"], "(crash)"),
    (("correct", "--claim-features", "timestamps,telepathy"), ["features"],
     "not in the corpus vocabulary: telepathy"),
    (("correct", "--claim-features", ""), ["cases"], "no case in the corpus fits"),
])
def test_each_miswiring_fails_its_own_check(corpus, corpus_dir, fake, args, failing, text):
    checks = smoke(fake(*args), corpus, timeout=5)
    bad = [c for c in checks if not c.ok]
    assert [c.name for c in bad] == failing
    assert text in bad[0].detail


def test_a_process_still_running_after_bye_is_killed_and_fails_the_bye_check(
        corpus, fake, tmp_path, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    checks = smoke(fake("correct", "--linger"), corpus, timeout=5, bye_grace=0.3)
    bad = [c for c in checks if not c.ok]
    assert [c.name for c in bad] == ["bye"]
    assert bad[0].detail == "still running 0.3 s after bye; it was killed"
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left behind
        os.kill(int(pid_file.read_text()), 0)


def test_a_python_callable_and_a_one_shot_adapter_pass(corpus, fake, callable_env):
    callable_env("correct")
    assert all(c.ok for c in smoke("python:callable_impl:run", corpus))
    oneshot = smoke(fake("oneshot", kind="oneshot"), corpus)
    assert all(c.ok for c in oneshot)
    assert "bye" not in [c.name for c in oneshot]


def test_smoke_of_something_unreachable_exits_2(corpus_dir):
    result = smoke_cli(corpus_dir, "nonsense")
    assert result.exit_code == 2 and "unknown implementation" in result.stderr


@pytest.mark.reference
def test_the_reference_passes_smoke():
    result = CliRunner().invoke(main, ["smoke", "--impl", "reference"])
    assert result.exit_code == 0, result.output


def test_an_adapter_fed_its_inputs_is_told_what_it_will_be_sent(corpus_dir, fake, tmp_path):
    spec = fake("input_recorder", "--record", str(tmp_path / "r.jsonl"), "--inputs",
                "request.openai-completions,prompt")
    result = smoke_cli(corpus_dir, spec)
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("[pass] inputs"))
    assert "2 stage(s) claimed given their input (prompt, request.openai-completions)" in line
    assert "the goldens of llm, prompt" in line


def test_a_stream_parser_is_smoked_on_cases_that_hold_its_stages():
    # A port claiming only response.<api> failed smoke on the two smallest sessions of the
    # corpus, which hold no response: "no claimed stage in this case".
    import shlex
    from pathlib import Path

    from conformance._paths import corpus_root
    from conformance.corpus.cases import Corpus

    fake = Path(__file__).parent / "fakes" / "drops_cost_source.py"
    spec = "process:" + shlex.join([sys.executable, str(fake), str(corpus_root())])
    checks = smoke(spec, Corpus(corpus_root()))
    runs = [c for c in checks if c.name.startswith("run ")]
    assert len(runs) == 2 and all(c.ok for c in runs), [c.line() for c in checks]
    assert all(c.name.startswith("run response.") for c in runs)
