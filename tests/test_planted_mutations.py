"""Planted mutations in copies of real goldens: each must now fail. Before exact comparison,
the deterministic ids were hidden as generated, a timestamp or token count a little off
passed the float tolerance, and a dropped message flooded the diff."""

from __future__ import annotations

import copy
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance._paths import corpus_root
from conformance.corpus.answers import parse_answer
from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import Golden, read_golden
from conformance.judging.judge import judge
from conformance.judging.results import StageResult

CORPUS = Corpus(corpus_root())
CASES = {case.id: case for case in CORPUS.cases}


def recorded(case_id: str, stage: str) -> Golden:
    """A copy of the real golden, with the volatile paths regenerate recorded."""
    golden = read_golden(CASES[case_id], stage)
    return replace(golden, result=copy.deepcopy(golden.result))


def judged(case_id: str, stage: str, mutate: Any) -> StageResult:
    golden = recorded(case_id, stage)
    answer = copy.deepcopy(golden.result)
    mutate(answer["output"])
    case = CASES[case_id]
    return judge(case, stage, parse_answer(answer), golden)


def test_the_unmutated_copies_pass():
    for case_id, stage in [("request.responses-msg-pi-ids", "request.openai-responses"),
                           ("request.cross-model-tool-call-ids", "request.anthropic-messages"),
                           ("request.cross-model-tool-call-ids", "context")]:
        assert judged(case_id, stage, lambda output: None).status == "pass"


def test_a_changed_deterministic_request_id_fails():
    def mutate(output):
        item = next(i for i in output["input"] if i.get("id") == "msg_pi_1_1")
        item["id"] = "msg_pi_1_9"

    result = judged("request.responses-msg-pi-ids", "request.openai-responses", mutate)
    assert result.status == "fail"
    assert [(d.expected, d.actual) for d in result.differences] == [("msg_pi_1_1", "msg_pi_1_9")]


def test_a_changed_tool_call_id_fails():
    def mutate(output):
        output["messages"][1]["content"][0]["id"] = "call_other_item_1"

    result = judged("request.cross-model-tool-call-ids", "request.anthropic-messages", mutate)
    assert [(d.path, d.expected) for d in result.differences] == [
        ("$.messages[1].content[0].id", "call_foreign_item_1")]


def test_a_message_timestamp_moved_by_one_millisecond_fails():
    def mutate(output):
        output["messages"][2]["timestamp"] += 1

    result = judged("request.cross-model-tool-call-ids", "context", mutate)
    assert [(d.path, d.kind) for d in result.differences] == [
        ("$.messages[2].timestamp", "changed")]


def test_a_token_count_off_by_one_fails():
    def mutate(output):
        output["messages"][2]["usage"]["input"] += 1

    result = judged("request.cross-model-tool-call-ids", "context", mutate)
    assert [d.path for d in result.differences] == ["$.messages[2].usage.input"]


def test_a_dropped_message_is_one_difference():
    def mutate(output):
        del output["messages"][3]

    result = judged("request.cross-model-tool-call-ids", "context", mutate)
    assert [(d.path, d.kind, d.note) for d in result.differences] == [
        ("$.messages[3]", "missing item", "missing item: toolResult message")]


def test_two_swapped_content_blocks_fail():
    def mutate(output):
        blocks = output["messages"][2]["content"]
        blocks[0], blocks[1] = blocks[1], blocks[0]

    result = judged("request.cross-model-tool-call-ids", "context", mutate)
    assert result.status == "fail"
    assert 1 <= len(result.differences) <= 2


@pytest.fixture(scope="module")
def planted_report(tmp_path_factory):
    """The planted implementation run over the whole corpus (the context stage)."""
    from helpers import RunRequest, execute

    from conformance.reporting.stream import read_report

    report = tmp_path_factory.mktemp("planted") / "drops-first-message.jsonl"
    fake = Path(__file__).resolve().parent / "fakes" / "drops_first_message.py"
    spec = f"process:{sys.executable} {fake} {corpus_root()}"
    execute(RunRequest(corpus=CORPUS, report_path=report, impl_spec=spec,
                       stages=("context",)))
    return report, read_report(report)


def test_the_planted_implementation_shows_one_difference_per_failing_case(planted_report):
    _, report = planted_report
    judged_ = [r for r in report.results if r.differences or r.status == "fail"]
    assert len(judged_) > 50
    for result in judged_:
        assert [(d.path, d.kind) for d in result.differences] == [
            ("$.messages[0]", "missing item")], result.case


def test_discrepancy_grouping_finds_one_root_cause_for_it(planted_report):
    from conformance.maintenance.discrepancies import grouping

    path, _ = planted_report
    targets = grouping.load_targets([path])
    causes = [cause for target in targets.values() for cause in grouping.root_causes(target)]
    assert len(causes) == 1
    assert grouping.describe(causes[0]) == "drops the first message of the context"
