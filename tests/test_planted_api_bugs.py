"""A port with one bug in one provider API (tests/fakes/planted_api_bugs.py) fails that API's
request and wire stages, on the cases where the bug shows, and passes every other stage: the
goldens of the six APIs added for issue 28 tell a port which of its API modules is wrong."""

from __future__ import annotations

import shlex
import sys
from collections import Counter
from pathlib import Path

import pytest
from helpers import run_on

from conformance._paths import corpus_root
from conformance.corpus.cases import Corpus
from conformance.corpus.stages import api_of
from conformance.execution.runner import Limits
from conformance.implementations.specs import resolve

FAKE = Path(__file__).resolve().parent / "fakes" / "planted_api_bugs.py"
#: Cases where each planted bug shows: tool calls, system prompts, sessions, Claude on Bedrock.
CASES = ("request.same-model-pipe-ids", "request.cross-model-tool-call-ids",
         "request.tool-result-name-and-output", "request.orphan-tool-call-at-end",
         "request.mid-session-system-collapsed", "request.reasoning-high",
         "edit.last-wins", "content.image-only-user")


@pytest.mark.parametrize("api", ["mistral-conversations", "bedrock-converse-stream",
                                 "azure-openai-responses", "openai-codex-responses",
                                 "google-vertex", "pi-messages"])
def test_a_bug_in_one_api_fails_only_that_apis_stages(api):
    corpus = Corpus(corpus_root())
    command = [sys.executable, str(FAKE), str(corpus.root), "--bug", api]
    with resolve("process:" + shlex.join(command)) as impl:
        _, results = run_on([impl], corpus, corpus.select(CASES), limits=Limits(timeout=30))
    results = [r for r in results if r.stage != "events"]  # not claimed (a turn case has it)
    assert {r.case for r in results} == set(CASES)
    statuses = Counter((api_of(r.stage) == api, r.status) for r in results)
    assert statuses[(True, "fail")] > 0, statuses  # the bug is seen ...
    # ... only on its own API's stages: every other stage of every case passes.
    assert {status for (own, status) in statuses if not own} == {"pass"}, statuses
    failing = {r.stage for r in results if r.status == "fail"}
    assert failing <= {f"request.{api}", f"wire.{api}"}
