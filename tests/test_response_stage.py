"""response.<api>: Pi's answer to a provider's HTTP response, written as a golden by the real
pi-ai and judged whatever the chunks the body arrives in (tests that start Pi)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_builder import CLAUSES, write_corpus
from helpers import run_on

from conformance._paths import corpus_root
from conformance.cli.main import main
from conformance.corpus import http_responses
from conformance.corpus.cases import Corpus
from conformance.corpus.http_responses import HttpResponse
from conformance.corpus.stages import APIS, RESPONSE_STAGES
from conformance.execution.rechunking import Rechunking
from conformance.implementations.specs import resolve
from conformance.jsonio import read_json
from conformance.maintenance import regenerate
from conformance.maintenance.captures import wire
from conformance.maintenance.captures.script import Block, Turn, Usage

pytestmark = pytest.mark.reference

TURN = Turn(blocks=(Block("thinking", "let me see", signature="c2ln"),
                    Block("text", "héllo 😀 世界"),
                    Block("tool_call", id="toolu_1", name="read", arguments={"path": "ä.txt"})),
            stop="toolUse", usage=Usage(10, 5, 3))


def raw_utf8(frame: bytes) -> bytes:
    """An SSE frame with its JSON's non-ASCII characters sent as UTF-8, as services send them
    (the capture encoders escape them), so that a cut may fall inside a character."""
    lines = []
    for line in frame.decode().split("\n"):
        if line.startswith("data: {"):
            line = "data: " + json.dumps(json.loads(line[6:]), ensure_ascii=False,
                                         separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines).encode()


def response_corpus(root: Path) -> Corpus:
    """One case holding the same turn as Anthropic and OpenAI Completions send it."""
    write_corpus(root, CLAUSES, {"resp/turn": (
        'features = ["basic"]\n'
        'stages = ["response.anthropic-messages", "response.openai-completions"]\n')})
    shutil.copy(corpus_root() / "models.json", root / "models.json")
    folder = root / "cases" / "resp" / "turn" / "responses"
    folder.mkdir()
    for api, encode in (("anthropic-messages", wire.anthropic_messages),
                        ("openai-completions", wire.openai_completions)):
        frames, _ = encode(TURN, "claude-sonnet-4-5", 1)
        response = HttpResponse(200, (("content-type", "text/event-stream"),),
                                tuple(map(raw_utf8, frames)))
        (folder / f"{api}.json").write_text(http_responses.dumps(response))
    return Corpus(root)


def test_every_api_has_a_response_stage():
    assert tuple(f"response.{api}" for api in APIS) == RESPONSE_STAGES


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The one-case corpus with its goldens written by Pi."""
    corpus = response_corpus(tmp_path_factory.mktemp("responses") / "corpus")
    assert regenerate.regenerate(corpus, corpus.cases) == 2
    return corpus


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
