"""The ways to reach an implementation: resolve(), handshakes, restarts, the Python host."""

from __future__ import annotations

import sys
import time

import orjson
import pytest
from click.testing import CliRunner
from conftest import FAKES

from conformance.cli.main import main
from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations import transports
from conformance.implementations.protocol import hello_request
from conformance.implementations.python_host import answer_to, encode
from conformance.implementations.specs import resolve
from conformance.implementations.transports import OneShotImplementation, PersistentImplementation


def test_resolve_knows_every_kind_of_spec():
    assert isinstance(resolve("process:adapter --fast"), PersistentImplementation)
    assert resolve("process:adapter --fast").command == ["adapter", "--fast"]
    assert isinstance(resolve("oneshot:adapter"), OneShotImplementation)
    python = resolve("python:package.module:run")
    assert isinstance(python, PersistentImplementation)
    assert python.command[-2:] == ["conformance.implementations.python_host",
                                   "package.module:run"]


@pytest.mark.parametrize(("spec", "message"), [
    ("rust-port", "unknown implementation 'rust-port'"),
    ("process:", "unknown implementation 'process:'"),
    ("missing.toml", "missing.toml: no such implementation file"),
])
def test_a_bad_spec_is_a_clear_error(spec, message):
    with pytest.raises(ConformanceError, match=message):
        resolve(spec)


def test_a_toml_file_describes_an_implementation_with_cwd_and_env(tmp_path, corpus_dir):
    (tmp_path / "fakes").symlink_to(FAKES)
    spec = tmp_path / "impl.toml"
    spec.write_text(f'kind = "python"\ncallable = "callable_impl:run"\ncwd = "fakes"\n'
                    f'[env]\nFAKE_CORPUS = "{corpus_dir}"\nFAKE_MODE = "correct"\n')
    impl = resolve(str(spec))
    with impl:
        assert impl.hello.name == "fake"
    process = tmp_path / "process.toml"
    process.write_text(f'kind = "process"\ncommand = ["{sys.executable}", "fakes/correct.py", '
                       f'"{corpus_dir}"]\n')
    with resolve(str(process)) as impl:
        assert impl.hello.stages


@pytest.mark.parametrize(("text", "message"), [
    ('kind = "carrier-pigeon"', "'kind' must be process, oneshot or python"),
    ('kind = "process"\ncommand = 3', "'command' must be a string or a list of strings"),
    ('kind = "python"', "'callable' must be 'module:attribute'"),
    ('kind = "process"\ncommand = "x"\nenv = 1', "'env' must be a table"),
    ('kind = ', "cannot read implementation file"),
])
def test_a_bad_toml_file_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "impl.toml"
    path.write_text(text)
    with pytest.raises(ConformanceError, match=message) as caught:
        resolve(str(path))
    assert str(path) in str(caught.value)


def test_a_command_that_does_not_exist_cannot_start():
    with pytest.raises(ImplementationError, match="cannot start no-such-adapter-xyz"):
        resolve("process:no-such-adapter-xyz").start()


def test_a_garbled_hello_fails_the_handshake_with_the_reason(fake):
    impl = resolve(f"process:{sys.executable} -c \"print('hello yourself')\"")
    with pytest.raises(ImplementationError, match="handshake failed: answer is not JSON"):
        impl.start()
    impl = resolve(fake("correct", "--claim-stages", "entries,not-a-stage"))
    with pytest.raises(ImplementationError, match="handshake failed: invalid hello answer"):
        impl.start()


@pytest.mark.parametrize("when", ["start", "asked"])
@pytest.mark.parametrize(("said", "reason"), [
    ("Loading session... done!", "answer is not JSON"),
    ('{"log":"starting"}', "invalid hello answer"),
], ids=["text", "json"])
def test_output_before_the_hello_answer_is_named_whenever_it_was_written(
        fake, tmp_path, monkeypatch, when, said, reason):
    """Whether the line came before the hello request was sent (start: the test makes sure of
    it, waiting for the fake to say it has written it) or after (asked), the error is the same:
    the line is shown, and the hello answer was expected first."""
    printed = tmp_path / "printed"
    monkeypatch.setenv("FAKE_PRINTED", str(printed))

    class AfterTheLine(transports.ProcessConnection):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            deadline = time.monotonic() + 60
            while not printed.exists() and when == "start":
                assert time.monotonic() < deadline, "the fake never wrote its line"
                time.sleep(0.01)

    monkeypatch.setattr(transports, "ProcessConnection", AfterTheLine)
    impl = resolve(fake("chatty_hello", "--say", said, "--when", when))
    with pytest.raises(ImplementationError) as caught:
        impl.start()
    message = str(caught.value)
    assert f"handshake failed: {reason}" in message, message
    assert repr(said) in message, message
    assert "the first line it writes to stdout must be its hello answer" in message, message


def test_restart_replays_the_handshake_and_counts(fake):
    impl = resolve(fake("correct"))
    with impl:
        first = impl.connection.pid
        impl.restart()
        assert impl.connection.pid != first
        assert impl.restarts == 1
        assert impl.hello.name == "fake"


def test_a_different_hello_after_a_restart_is_refused(fake, tmp_path):
    flag = tmp_path / "restarted"
    script = tmp_path / "fickle.py"
    script.write_text(
        "import json, pathlib, sys\n"
        f"flag = pathlib.Path({str(flag)!r})\n"
        "version = '2' if flag.exists() else '1'\n"
        "flag.touch()\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'protocol': 1, 'implementation': {'name': 'f', 'version': "
        "version, 'language': 'py'}, 'capabilities': {'stages': ['entries']}}), flush=True)\n")
    impl = resolve(f"process:{sys.executable} {script}")
    with impl, pytest.raises(ImplementationError, match="answered a different hello"):
        impl.restart()


def test_the_python_host_turns_exceptions_and_unserialisable_results_into_run_errors():
    def run(request):
        raise KeyError("stage")

    answer = answer_to({"cmd": "run", "seq": 4}, dict, run)
    assert answer["seq"] == 4 and "KeyError: 'stage'" in answer["error"]["message"]
    line = encode({"seq": 5, "results": {"entries": {"output": {1, 2}}}})
    decoded = orjson.loads(line)
    assert decoded["seq"] == 5
    assert "not JSON" in decoded["error"]["message"]
    assert answer_to(hello_request(), lambda: {"hi": 1}, run) == {"hi": 1}


def test_a_python_target_that_does_not_exist_fails_the_handshake_with_its_reason():
    impl = resolve("python:no_such_module_xyz:run")
    with pytest.raises(ImplementationError) as caught:
        impl.start()
    assert "No module named 'no_such_module_xyz'" in str(caught.value)


@pytest.mark.parametrize(("change", "said"), [
    ("name", "implementation.name: 'fake', now 'someone-else'"),
    ("stages", "stages: no longer claims context"),
    ("features", "features: all, now compaction"),
    ("fields", "fields: none, now stats: tokens"),
])
def test_a_hello_that_changes_after_a_restart_refuses_the_process(fake, tmp_path, monkeypatch,
                                                                  change, said):
    monkeypatch.setenv("FAKE_STARTS", str(tmp_path / "starts"))
    impl = resolve(fake("fickle_hello", "--change", change))
    with impl:
        with pytest.raises(ImplementationError, match="answered a different hello") as caught:
            impl.restart()
        assert said in str(caught.value)
        assert impl.connection is None  # not used


@pytest.mark.parametrize("change", ["name", "stages"])
def test_a_second_worker_with_another_hello_refuses_the_run(corpus_dir, fake, tmp_path,
                                                            monkeypatch, change):
    monkeypatch.setenv("FAKE_STARTS", str(tmp_path / "starts"))
    report = tmp_path / "run.jsonl"
    result = CliRunner().invoke(main, [
        "run", "--impl", fake("fickle_hello", "--change", change), "--corpus",
        str(corpus_dir), "-j", "2", "-q", "--report", str(report)])
    assert result.exit_code == 2, result.output
    assert "worker 2 answered a different hello than worker 1" in result.output
    assert "Traceback" not in result.output
    assert not report.exists()


@pytest.mark.parametrize(("target", "said"), [
    ("nomodule:x", "python:nomodule:x: python_host: No module named 'nomodule'"),
    ("json:nothing", "python:json:nothing: python_host: json has no attribute 'nothing'"),
    ("raises_on_import:impl", "python:raises_on_import:impl: python_host: importing "
                              "raises_on_import raised RuntimeError: cannot find my "
                              "configuration file"),
    ("json", "python:json: expected python:MODULE:ATTRIBUTE"),
    ("json:", "python:json:: expected python:MODULE:ATTRIBUTE"),
])
def test_a_python_target_that_cannot_be_loaded_is_one_line(corpus_dir, monkeypatch, target,
                                                           said):
    monkeypatch.chdir(FAKES)
    result = CliRunner().invoke(main, ["run", "--impl", f"python:{target}", "--corpus",
                                       str(corpus_dir), "-q"])
    assert result.exit_code == 2, result.output
    assert result.output.endswith("\n") and "Traceback" not in result.output
    (line,) = result.output.splitlines()
    assert line.startswith(f"error: {said}"), line
