"""response.<api>: Pi's answer to a provider's HTTP response, written as a golden by the real
pi-ai and judged whatever the chunks the body arrives in (tests that start Pi)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import run_on
from response_corpus import response_corpus

from conformance.cli.main import main
from conformance.corpus.stages import APIS, RESPONSE_STAGES
from conformance.execution.rechunking import Rechunking
from conformance.implementations.specs import resolve
from conformance.jsonio import read_json

pytestmark = pytest.mark.reference


def test_every_api_has_a_response_stage():
    assert tuple(f"response.{api}" for api in APIS) == RESPONSE_STAGES


def test_pi_writes_the_golden_and_agrees_with_itself_however_the_body_is_cut(regenerated):
    corpus = regenerated
    case = corpus.cases[0]
    assert corpus.lint() == []
    golden = read_json(case.expected_path("response.anthropic-messages"))
    output = golden["result"]["output"]
    kinds = [event["type"] for event in output["events"]]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert {"thinking_delta", "text_delta", "toolcall_delta"} <= set(kinds)
    message = output["message"]
    assert [block["type"] for block in message["content"]] == ["thinking", "text", "toolCall"]
    assert message["content"][1]["text"] == "héllo 😀 世界"
    assert message["stopReason"] == "toolUse"
    # What Pi invents (the clock, the duration) was found by the varied runs.
    assert "$.output.message.timestamp" in golden["volatile"]
    assert "$.output.message.durationMs" in golden["volatile"]
    # Each snapshot is the message as it was when the event was pushed.
    texts = [event["partial"]["content"][1]["text"] for event in output["events"]
             if event["type"] == "text_delta"]
    assert texts == sorted(texts, key=len) and len(set(texts)) == len(texts) > 1
    with resolve("reference") as impl:
        for seed in range(4):  # each seed picks a way of cutting: bytes, inside characters...
            _, results = run_on([impl], corpus, rechunking=Rechunking(seed))
            assert {(r.stage, r.status) for r in results} == {
                ("response.anthropic-messages", "pass"), ("response.openai-completions", "pass")}


def test_a_response_stage_without_its_file_is_named_by_the_lint(tmp_path):
    corpus = response_corpus(tmp_path / "corpus")
    missing = corpus.cases[0].response_path("openai-completions")
    missing.unlink()
    problems = [str(problem) for problem in corpus.lint()]
    assert any("response.openai-completions stage but no responses/openai-completions.json"
               in problem for problem in problems), problems


def test_a_port_that_decodes_each_read_apart_fails_once_a_character_is_cut(regenerated):
    command = [sys.executable, str(Path(__file__).parent / "fakes" / "splits_characters.py"),
               str(regenerated.root)]
    with resolve("process:" + shlex.join(command)) as impl:
        _, whole = run_on([impl], regenerated)
        assert {r.status for r in whole} == {"pass"}  # its own chunks hold whole characters
        failing = set()
        for seed in range(6):
            _, results = run_on([impl], regenerated, rechunking=Rechunking(seed))
            failing |= {r.stage for r in results if r.status == "fail"}
    assert failing == {"response.anthropic-messages", "response.openai-completions"}


def test_run_split_responses_judges_cut_bodies_and_says_so_in_the_report(regenerated, tmp_path):
    command = [sys.executable, str(Path(__file__).parent / "fakes" / "splits_characters.py"),
               str(regenerated.root)]
    report = tmp_path / "run.jsonl"
    result = CliRunner().invoke(main, [
        "run", "--impl", "process:" + shlex.join(command), "--corpus", str(regenerated.root),
        "--split-responses", "0", "--report", str(report), "--format", "json"])
    assert result.exit_code == 1, result.output  # seed 0 cuts every byte apart: it fails
    header = json.loads(report.read_text().splitlines()[0])
    assert header["selection"]["split_responses"] == 0
    whole = CliRunner().invoke(main, [
        "run", "--impl", "process:" + shlex.join(command), "--corpus", str(regenerated.root),
        "--format", "json"])
    assert whole.exit_code == 0, whole.output


def test_pi_asked_live_reads_the_cases_response_too(regenerated):
    """The golden source of --against, compare and fuzz (Pi asked now) sends each response
    stage its case's response, as the corpus's goldens were made: before, Pi was asked the
    stage with no response and the harness refused it."""
    from conformance.execution.reference_goldens import ReferenceGoldens
    from conformance.judging.volatility import stable_differences

    source = ReferenceGoldens()
    source.start()
    try:
        case = regenerated.cases[0]
        stages = list(case.response_stages())
        goldens = source.open(case, stages, case.session_bytes(),
                              regenerated.request_options(case))
        for stage in stages:
            live = goldens.golden(stage)
            shipped = read_json(case.expected_path(stage))
            assert "output" in live.result, live.result
            masked = set(shipped["volatile"]) | set(live.volatile)
            assert stable_differences(shipped["result"], live.result, masked) == []
    finally:
        source.close()
