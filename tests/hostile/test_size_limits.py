"""The runner's own size limits (one answer line, one request line) are named as the runner's,
with the limit, and never reported as Pi misbehaving or blamed on an implementation that was
never asked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import run_spec

from conformance.cli.main import main
from conformance.implementations import process

LARGE_SESSION = (Path(__file__).resolve().parents[2] / "corpus" / "cases" / "shapes"
                 / "tool-result-100kb-truncated" / "session.jsonl")


def test_an_answer_over_the_line_limit_is_named_as_the_runners_limit(corpus, fake, monkeypatch):
    monkeypatch.setattr(process, "MAX_LINE", 256 * 1024)
    outcome = run_spec(corpus, fake("flood", "--on", "small.beta", "--megabytes", "1"))
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "protocol")}
    assert "the answer line exceeds the runner's limit of 256 KiB a line" in beta[0].message
    assert outcome.statuses("small.alpha") == {"pass"}


def test_a_request_over_the_runners_limit_blames_no_implementation(corpus, fake, monkeypatch):
    monkeypatch.setattr(process, "MAX_REQUEST", 1024)  # every case's request is larger
    outcome = run_spec(corpus, fake("correct"))
    assert {(r.status, r.error_kind) for r in outcome.results} == {("error", "harness")}
    assert all("exceeds the runner's limit of 1 KiB a request" in r.message and
               "not sent" in r.message for r in outcome.results)
    assert outcome.runner.restarts == 0  # nothing was sent: the process is fine


def reference_run(tmp_path: Path, *arguments: str) -> tuple[str, dict]:
    shutil.copy(LARGE_SESSION, tmp_path / "large.jsonl")
    stages = ["--stage", "entries", "--stage", "stats"]
    text = CliRunner().invoke(main, ["reference", "run", *stages, *arguments,
                                     str(tmp_path / "large.jsonl")])
    assert text.exit_code == 0, text.output
    data = CliRunner().invoke(main, ["reference", "run", *stages, "--format", "json",
                                     *arguments, str(tmp_path / "large.jsonl")])
    assert data.exit_code == 0, data.output
    (file,) = json.loads(data.stdout)["files"]
    return text.stdout, file["stages"]


@pytest.mark.reference
def test_pis_answer_over_the_line_limit_is_not_pi_misbehaving(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_LINE", 16 * 1024)  # the entries answer is over 100 KB
    text, stages = reference_run(tmp_path)
    assert "Pi misbehaved" not in text
    (entries,) = [line for line in text.splitlines() if line.startswith("  entries:")]
    assert "Pi's answer line exceeds the runner's limit of 16 KiB a line" in entries
    assert "misbehaved" not in stages["entries"] and "output" in stages["stats"]


@pytest.mark.reference
def test_a_session_over_the_request_limit_is_not_pi_misbehaving(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_REQUEST", 64 * 1024)  # the session is over 100 KB
    text, stages = reference_run(tmp_path)
    assert "Pi misbehaved" not in text
    assert "exceeds the runner's limit of 64 KiB a request" in text
    assert not any("misbehaved" in verdict for verdict in stages.values())


@pytest.mark.reference
def test_compare_says_pis_answer_is_over_the_limit_not_that_pi_misbehaves(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "MAX_LINE", 16 * 1024)
    shutil.copy(LARGE_SESSION, tmp_path / "large.jsonl")
    report = tmp_path / "compare.jsonl"
    result = CliRunner().invoke(main, ["compare", "--impl", "reference", "--stage", "entries",
                                       "--report", str(report), str(tmp_path / "large.jsonl")])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    (entries,) = [json.loads(line) for line in report.read_text().splitlines()
                  if json.loads(line).get("stage") == "entries"]
    assert entries["status"] == "error", entries
    assert "Pi's answer line exceeds the runner's limit of 16 KiB a line" in entries["message"]
