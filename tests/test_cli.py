"""The command line: exit codes 0/1/2, failures that name case, stage and JSON path, and bad
input as one clear line naming the file (and line), never a traceback."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES

#: Results of a run over the fixture corpus: four cases, every default stage.
RESULTS = 4 * len(DEFAULT_STAGES)

CASE = "cases/small/beta"


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def run(corpus_dir, *args: str, env: dict | None = None):
    return invoke("run", "--corpus", str(corpus_dir), "-q", *args, env=env)


def assert_unusable(result, *fragments: str) -> None:
    """Exit code 2 with exactly one line on stderr, naming what is wrong, and no traceback."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


def test_a_correct_implementation_exits_0(corpus_dir, fake):
    result = run(corpus_dir, "--impl", fake("correct"))
    assert result.exit_code == 0, result.output
    assert f"PASSED 4 cases, {RESULTS} results: {RESULTS} passed" in result.stdout


def test_a_wrong_adapter_exits_1_naming_case_stage_and_json_path(corpus_dir, fake):
    result = run(corpus_dir, "--impl", fake("wrong", "--stage", "context", "--on",
                                            "small.gamma"))
    assert result.exit_code == 1
    assert "small.gamma [context] fail: 1 difference(s)" in result.stdout
    assert "$.messages[0].role (changed)" in result.stdout
    assert 'expected: "system"' in result.stdout and 'actual:   "wrong-role"' in result.stdout
    assert (f"FAILED 4 cases, {RESULTS} results: {RESULTS - 1} passed, 1 failed"
            in result.stdout)


def test_the_json_summary_and_report_carry_the_structured_differences(corpus_dir, fake,
                                                                      tmp_path):
    report = tmp_path / "report.jsonl"
    result = run(corpus_dir, "--impl", fake("wrong", "--stage", "stats", "--on", "small.beta"),
                 "--format", "json", "--report", str(report))
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert summary["failed"] == 1 and summary["verdict"] == "failed"
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    failing = [line for line in lines if line.get("status") == "fail"]
    assert [(f["case"], f["stage"], [d["path"] for d in f["differences"]]) for f in failing] == [
        ("small.beta", "stats", ["$.unexpected"])]


def test_errors_exit_1_and_are_told_apart_from_wrong_answers(corpus_dir, fake):
    result = run(corpus_dir, "--impl", fake("garbage", "--on", "small.alpha"), "--format",
                 "json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert (summary["failed"], summary["errored"], summary["passed"]) == (
        0, len(DEFAULT_STAGES), RESULTS - len(DEFAULT_STAGES))


def test_a_baseline_with_the_known_failures_exits_0_and_a_stale_one_exits_1(corpus_dir, fake,
                                                                            tmp_path):
    baseline = tmp_path / "known.toml"
    baseline.write_text('[[known]]\ncase = "small.gamma"\nstage = "context"\n'
                        'reason = "role"\nissue = "https://example.invalid/1"\n')
    wrong = fake("wrong", "--stage", "context", "--on", "small.gamma")
    assert run(corpus_dir, "--impl", wrong, "--baseline", str(baseline)).exit_code == 0
    result = run(corpus_dir, "--impl", fake("correct"), "--baseline", str(baseline))
    assert result.exit_code == 1


def test_filters_jobs_and_protocol_validation_from_the_command_line(corpus_dir, fake):
    result = run(corpus_dir, "--impl", fake("correct"), "-k", "small.b*", "--stage", "branch",
                 "--api", "openai-completions", "-j", "2", "--validate-protocol", "--format",
                 "json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["cases"] == 1
    assert list(summary["stages"]) == ["branch", "request.openai-completions",
                                       "wire.openai-completions"]


# Bad input: exit code 2, one line, the file and (where there is one) the line.

def test_case_metadata_that_is_not_toml(corpus_dir, fake):
    (corpus_dir / CASE / "case.toml").write_text('id = "small.beta"\ntitle = "x\n')
    result = run(corpus_dir, "--impl", fake("correct"))
    assert_unusable(result, f"{corpus_dir / CASE / 'case.toml'}:2: not valid TOML")


def test_case_metadata_that_breaks_the_schema(corpus_dir, fake):
    meta = corpus_dir / CASE / "case.toml"
    text = meta.read_text().replace('features = ["timestamps"]', 'features = "timestamps"')
    meta.write_text(text)
    result = run(corpus_dir, "--impl", fake("correct"))
    line = meta.read_text().splitlines().index('features = "timestamps"') + 1
    assert_unusable(result, f"{meta}:{line}: invalid metadata at features: 'timestamps' is not "
                            "of type 'array'")


def test_a_case_without_its_session(corpus_dir, fake):
    (corpus_dir / CASE / "session.jsonl").unlink()
    assert_unusable(run(corpus_dir, "--impl", fake("correct")),
                    f"{corpus_dir / CASE}: the case has no session.jsonl")


def test_a_missing_golden(corpus_dir, fake):
    (corpus_dir / CASE / "expected" / "llm.json").unlink()
    assert_unusable(run(corpus_dir, "--impl", fake("correct")),
                    f"{corpus_dir / CASE / 'expected' / 'llm.json'}: missing golden for stage "
                    "llm; run: pi-conformance corpus regenerate small.beta")


def test_a_golden_that_is_not_json(corpus_dir, fake):
    golden = corpus_dir / CASE / "expected" / "branch.json"
    golden.write_text('{"stage": "branch",\n "result": }')
    assert_unusable(run(corpus_dir, "--impl", fake("correct")), f"{golden}:2: not valid JSON")


def test_the_reference_not_installed(corpus_dir, tmp_path):
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    result = run(corpus_dir, "--impl", "reference", env={"PI_CONFORMANCE_CACHE": str(empty)})
    assert_unusable(result, "the pinned Pi is not installed", str(empty),
                    "run: pi-conformance reference install")


def test_node_missing_from_the_reference(corpus_dir, tmp_path):
    from conformance.implementations import reference

    prefix = tmp_path / "cache" / "reference" / reference.lock_sha256()[:16]
    (prefix / "node_modules" / ".bin").mkdir(parents=True)
    (prefix / ".installed").write_text("marker, but no node binary\n")
    result = run(corpus_dir, "--impl", "reference",
                 env={"PI_CONFORMANCE_CACHE": str(tmp_path / "cache")})
    assert_unusable(result, "the pinned Pi is not installed")


@pytest.mark.parametrize(("spec", "fragment"), [
    ("nonsense", "unknown implementation 'nonsense'"),
    ("process:no-such-adapter-xyz", "cannot start no-such-adapter-xyz"),
])
def test_an_implementation_that_cannot_be_reached(corpus_dir, spec, fragment):
    assert_unusable(run(corpus_dir, "--impl", spec), fragment)


def test_a_malformed_baseline(corpus_dir, fake, tmp_path):
    baseline = tmp_path / "known.toml"
    baseline.write_text('[[known]]\ncase = "small.beta"\n')
    assert_unusable(run(corpus_dir, "--impl", fake("correct"), "--baseline", str(baseline)),
                    f"{baseline}:1: [[known]] entry 1 lacks reason, stage")


def test_a_directory_that_is_not_a_corpus(tmp_path, fake):
    assert_unusable(run(tmp_path, "--impl", fake("correct")), "not a corpus")


@pytest.mark.reference
def test_a_corrupted_golden_makes_the_reference_fail_naming_case_stage_and_path(corpus_dir):
    golden = corpus_dir / CASE / "expected" / "branch.json"
    data = json.loads(golden.read_text())
    data["result"]["output"]["path"][1]["type"] = "custom"
    golden.write_text(json.dumps(data))
    result = run(corpus_dir, "--impl", "reference", "-k", "small.beta")
    assert result.exit_code == 1, result.output
    assert "small.beta [branch] fail: 1 difference(s)" in result.stdout
    assert "$.path[1].type (changed)" in result.stdout


@pytest.mark.reference
def test_the_reference_passes_its_own_goldens(corpus_dir):
    result = run(corpus_dir, "--impl", "reference", "-k", "small.alpha")
    assert result.exit_code == 0, result.output




@pytest.mark.slow
def test_an_interrupted_run_keeps_what_it_had_and_kills_the_implementation(corpus_dir, fake,
                                                                           tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from helpers import live_group_members, settled, sigint_as_default

    from conformance.reporting.stream import read_report

    report = tmp_path / "report.jsonl"
    pid_file = tmp_path / "pid"
    spec = fake("hanging", "--on", "small.delta")
    command = [sys.executable, "-c", "from conformance.cli.main import main; main()", "run",
               "--impl", spec, "--corpus", str(corpus_dir), "-q", "--report", str(report)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "FAKE_PID_FILE": str(pid_file),
                                               "FAKE_HANGING": str(tmp_path / "hanging")},
                               preexec_fn=sigint_as_default)
    settled(lambda: not (tmp_path / "hanging").exists())  # small.delta is now hanging
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    lines = report.read_text().splitlines()
    kept = sum('"status":"pass"' in line for line in lines)
    assert kept == 2 * len(DEFAULT_STAGES)  # alpha and beta, kept
    assert read_report(report).interrupted  # a footer that says so (docs/reports.md)
    pid = int(pid_file.read_text())
    assert settled(lambda: live_group_members(pid)) == []
