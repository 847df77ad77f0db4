"""pi-ai-python on response.<api>: its own stream functions read each case's HTTP response
through the http_client its adapter gives them, and are judged against Pi's goldens, with the
body in its own chunks and cut elsewhere (tests that start Pi and pi-ai-python).

What pi-ai-python gets wrong is a finding about the port, not a failure of these tests: they
hold that every claimed stage is answered with a well-formed output and judged, and that the
body reached the port's parser (the message is made of what the response carried).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from corpus_builder import CLAUSES, write_corpus
from response_corpus import TURN

from conformance._paths import corpus_root
from conformance.corpus import http_responses
from conformance.corpus.cases import Corpus
from conformance.corpus.http_responses import HttpResponse
from conformance.corpus.selection import Selection
from conformance.corpus.stages import APIS
from conformance.execution.goldens import CorpusGoldens
from conformance.execution.plan import Limits
from conformance.execution.rechunking import Rechunking
from conformance.execution.runner import Runner, plan
from conformance.implementations.specs import resolve
from conformance.implementations.transports import Implementation
from conformance.judging.results import StageResult
from conformance.maintenance import regenerate
from conformance.maintenance.responses import encoders
from conformance.maintenance.responses.from_turn import spec_of

pytestmark = [pytest.mark.reference, pytest.mark.slow]

#: A session with one user message: Google's SDK refuses an empty conversation before
#: sending, so with a bare header Pi's Google goldens would never read the response.
SESSION = (
    '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z"}\n'
    '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1735689601000}}\n')
#: The wires the turn is sent on (the corpus's encoders, non-ASCII sent as UTF-8).
WIRES = ("anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai")
OVERLOADED = json.dumps({"type": "error", "error": {"type": "overloaded_error",
                                                    "message": "Overloaded"}}).encode()


def streamed(api: str, keep: slice = slice(None)) -> HttpResponse:
    response = encoders.encode(api, spec_of(TURN, api, 1), "claude-sonnet-4-5")
    assert response is not None
    return HttpResponse(response.status, response.headers, response.chunks[keep])


#: Per case: its stages beyond the response ones, and its response per API.
CASES: dict[str, tuple[tuple[str, ...], dict[str, HttpResponse]]] = {
    # The turn on four wires; nothing else asked, so no llm input reaches the adapter.
    "resp/turn": ((), {api: streamed(api) for api in WIRES}),
    # The stream cut before its last two events.
    "resp/cut": ((), {api: streamed(api, slice(None, -2))
                      for api in ("anthropic-messages", "openai-completions")}),
    # An HTTP error with a JSON body.
    "resp/overloaded": ((), {api: HttpResponse(529, (("content-type", "application/json"),),
                                               (OVERLOADED,))
                             for api in ("anthropic-messages", "openai-completions")}),
    # With a request stage too: the adapter is given the golden llm messages as context.
    "resp/fed": (("entries", "context", "llm", "prompt", "request.anthropic-messages"),
                 {"anthropic-messages": streamed("anthropic-messages")}),
}

RESPONSES = sum(len(responses) for _, responses in CASES.values())


def response_corpus(root: Path) -> Corpus:
    def stages(extra: tuple[str, ...], responses: dict[str, HttpResponse]) -> str:
        return ", ".join(f'"{s}"' for s in (*extra, *(f"response.{api}" for api in responses)))

    write_corpus(root, CLAUSES, {
        name: f'features = ["basic"]\nstages = [{stages(extra, responses)}]\n'
        for name, (extra, responses) in CASES.items()})
    shutil.copy(corpus_root() / "models.json", root / "models.json")
    for name, (_, responses) in CASES.items():
        (root / "cases" / name / "session.jsonl").write_text(SESSION)
        folder = root / "cases" / name / "responses"
        folder.mkdir()
        for api, response in responses.items():
            (folder / f"{api}.json").write_text(http_responses.dumps(response))
    return Corpus(root)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    corpus = response_corpus(tmp_path_factory.mktemp("pyport") / "corpus")
    regenerate.regenerate(corpus, corpus.cases)
    assert corpus.lint() == []
    return corpus


@pytest.fixture(scope="module")
def pi_ai_python() -> Any:
    with resolve("pi-ai-python") as impl:
        yield impl


def judged(impl: Implementation, corpus: Corpus, rechunking: Rechunking | None = None
           ) -> tuple[list[StageResult], dict[tuple[str, str], dict[str, Any]]]:
    """Every stage of ``corpus`` the implementation claims, asked and judged (what it does
    not claim is skipped), with the raw answers."""
    runner = Runner(corpus, CorpusGoldens(corpus.root), Limits(timeout=120), rechunking)
    answers: dict[tuple[str, str], dict[str, Any]] = {}
    runner.keep_answers = lambda case, results: answers.update(
        {(case.id, stage): answer for stage, answer in results.items()})
    planned = runner.prepare(plan(impl.hello, corpus.cases, Selection()), impl.hello.inputs)
    results = [r for item in planned for r in runner.judge_case(impl, item)]
    return [r for r in results if r.stage in impl.hello.stages], answers


def responses_of(answers: dict[tuple[str, str], dict[str, Any]]
                 ) -> dict[tuple[str, str], dict[str, Any]]:
    return {key: answer for key, answer in answers.items() if key[1].startswith("response.")}


def well_formed(answer: dict[str, Any]) -> bool:
    """``{"output": {"events": [...], "message": {...}}}``: a start first (or, as Pi does for
    an HTTP error, a lone error), a done or an error last, whose message is the final one."""
    output = answer.get("output")
    if not isinstance(output, dict) or set(output) != {"events", "message"}:
        return False
    events, message = output["events"], output["message"]
    kinds = [event.get("type") for event in events]
    return (bool(kinds) and (kinds[0] == "start" or kinds == ["error"])
            and kinds[-1] in ("done", "error")
            and message.get("role") == "assistant"
            and message == events[-1]["message" if kinds[-1] == "done" else "error"])


def test_hello_claims_every_response_but_bedrocks_without_input(pi_ai_python):
    hello = pi_ai_python.hello
    responses = {f"response.{api}" for api in APIS if api != "bedrock-converse-stream"}
    assert responses <= hello.stages
    assert "response.bedrock-converse-stream" not in hello.stages  # boto3, not its client
    assert not responses & hello.inputs  # a stream parser reads the response, not the llm


def test_every_claimed_response_is_answered_from_the_body_and_judged(regenerated, pi_ai_python):
    results, answers = judged(pi_ai_python, regenerated)
    claimed = {(case.id, stage) for case in regenerated.cases for stage in case.stages
               if stage in pi_ai_python.hello.stages}
    assert {(r.case, r.stage) for r in results} == claimed == set(answers)
    # resp.fed asks a request stage too: its run request carries the llm input, the others'
    # none, and every stage is answered either way.
    assert ("resp.fed", "request.anthropic-messages") in claimed
    assert {r.status for r in results} <= {"pass", "fail"}, [r.message for r in results]
    answers = responses_of(answers)
    assert len(answers) == RESPONSES and all(map(well_formed, answers.values())), answers
    # The body reached pi-ai-python's parser: each wire's turn is the blocks it carried.
    for api in WIRES:
        message = answers[("resp.turn", f"response.{api}")]["output"]["message"]
        assert [block["type"] for block in message["content"]][-2:] == ["text", "toolCall"]
        assert "😀 世界" in message["content"][-2]["text"]
    assert answers[("resp.overloaded", "response.anthropic-messages")]["output"][
        "message"]["stopReason"] == "error"


def test_cut_elsewhere_every_claimed_response_is_still_answered_and_judged(regenerated,
                                                                          pi_ai_python):
    for seed in range(3):  # each seed cuts each body another way: bytes, inside characters...
        results, answers = judged(pi_ai_python, regenerated, Rechunking(seed))
        assert {r.status for r in results} <= {"pass", "fail"}, [r.message for r in results]
        answers = responses_of(answers)
        assert len(answers) == RESPONSES and all(map(well_formed, answers.values()))
