"""The shipped response corpus, held to what issue 29 promises of it: Pi answers every response
the same however its body is cut, and a captured run's turn, fed to pi-ai again as a response,
gives the message Pi persisted in that run (tests that start Pi)."""

from __future__ import annotations

import random

import pytest
from helpers import run_on

import strategies
from conformance._paths import corpus_root
from conformance.corpus.cases import Corpus
from conformance.corpus.http_responses import HttpResponse
from conformance.corpus.stages import RESPONSE_PREFIX
from conformance.execution.runner import Limits
from conformance.implementations.specs import resolve
from conformance.jsonio import loads, read_json

pytestmark = pytest.mark.reference


class EverywhereCuts:
    """Each response cut inside every multi-byte character, at its first 128 bytes one by one,
    and at 16 offsets more drawn from the case and API."""

    def split(self, case_id: str, api: str, response: HttpResponse) -> HttpResponse:
        body = response.body
        chooser = random.Random(f"{case_id}\0{api}")
        cuts = {*strategies.character_cuts(body), *range(1, min(len(body), 129)),
                *(chooser.randrange(1, len(body)) for _ in range(16) if len(body) > 1)}
        return response.split_at(cuts)


@pytest.mark.slow
def test_pi_answers_every_response_of_the_corpus_the_same_however_cut():
    corpus = Corpus(corpus_root())
    cases = [case for case in corpus.cases if case.response_stages()]
    with resolve("reference") as impl:
        _, results = run_on([impl], corpus, cases, limits=Limits(timeout=60),
                            rechunking=EverywhereCuts())
    assert len(results) >= 1000
    failing = [f"{r.case} {r.stage}: {r.message}" for r in results if r.status != "pass"]
    assert failing == []


def _persisted_assistants(scenario: str) -> list[dict]:
    lines = (corpus_root() / "captures" / scenario / "session.jsonl").read_text().splitlines()
    entries = [loads(line) for line in lines if line.strip()]
    return [entry["message"] for entry in entries if entry.get("type") == "message"
            and entry["message"].get("role") == "assistant"]


#: What the captured run's message and the response golden must share: everything read from
#: the bytes (the model, provider and cost are the corpus model's in one, the fake's in the
#: other; the clock's values are the run's own).
COMPARED = ("content", "stopReason", "errorMessage", "responseId", "responseModel",
            "rawStopReason")
TOKENS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def test_a_captured_turn_read_again_is_the_message_pi_persisted_in_that_run():
    corpus = Corpus(corpus_root())
    compared = 0
    mismatches = []
    for case in corpus.select(["response.captured-*"]):
        scenario, _, _ = case.id.removeprefix("response.captured-").rpartition("-")
        (stage,) = case.response_stages()
        message = read_json(case.expected_path(stage))["result"]["output"]["message"]
        persisted = [m for m in _persisted_assistants(scenario)
                     if m.get("responseId") and m.get("responseId") == message.get("responseId")]
        if len(persisted) != 1:
            continue  # a turn Pi did not persist (an error retried, a compaction's summary)
        want = persisted[0]
        compared += 1
        for key in COMPARED:
            if want.get(key) != message.get(key):
                mismatches.append(f"{case.id} {key}: {message.get(key)!r} != {want.get(key)!r}")
        for key in TOKENS:
            if want["usage"].get(key) != message["usage"].get(key):
                mismatches.append(f"{case.id} usage.{key}")
    assert compared >= 30
    assert mismatches == []


def test_every_api_has_a_hundred_responses_with_goldens():
    corpus = Corpus(corpus_root())
    counts: dict[str, int] = {}
    for case in corpus.cases:
        for stage in case.response_stages():
            if case.expected_path(stage).is_file():
                api = stage.removeprefix(RESPONSE_PREFIX)
                counts[api] = counts.get(api, 0) + 1
    assert len(counts) == 10 and min(counts.values()) >= 100, counts

