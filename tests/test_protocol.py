"""Protocol checks come from the JSON Schemas alone: the lenient path and --validate-protocol
agree on what a stage result may be, and every problem names the message and the JSON path."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance._paths import SCHEMA_DIR
from conformance.errors import ImplementationError, ProtocolViolation
from conformance.implementations import protocol

STAGES = ["entries", "context", "request.openai-completions"]

# (stage result, valid?) from the table in docs/protocol.md: exactly one of four keys.
EXAMPLES = [
    ({"output": {"anything": [1, None]}}, True),
    ({"output": None}, True),
    ({"rejected": {"message": "not a session"}}, True),
    ({"skipped": "images are not supported yet"}, True),
    ({"error": {"message": "boom"}}, True),
    ({"bogus": 1}, False),
    ({}, False),
    ({"output": 1, "skipped": "both"}, False),
    ({"rejected": "no message object"}, False),
    ({"error": {}}, False),
    ({"skipped": 3}, False),
    ("output", False),
    (None, False),
]


def answer(result: object, stage: str = "entries") -> dict:
    return {"seq": 1, "results": {stage: result}}


@pytest.mark.parametrize(("result", "valid"), EXAMPLES)
def test_the_schema_accepts_exactly_the_four_documented_result_kinds(result, valid):
    assert (protocol.schema_errors("run-response", answer(result)) == []) is valid


@pytest.mark.parametrize(("result", "valid"), EXAMPLES)
def test_the_lenient_path_marks_a_stage_malformed_exactly_when_the_schema_does(result, valid):
    checked = protocol.check_run_answer(answer(result), 1, ["entries"])["entries"]
    assert ("protocol-error" not in checked) is valid
    if valid:
        assert checked == result


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["output", "rejected", "skipped", "error", "message",
                                       "bogus"]), inner, max_size=3),
    max_leaves=8)


@given(json_values)
def test_lenient_and_strict_agree_on_any_stage_result(result):
    strict = protocol.run_answer_problems(answer(result), ["entries"])
    lenient = protocol.check_run_answer(answer(result), 1, ["entries"])["entries"]
    assert ("protocol-error" in lenient) == bool(strict)


def test_a_problem_names_the_message_and_its_json_path():
    checked = protocol.check_run_answer(
        {"seq": 4, "results": {"entries": {"bogus": 1}, "context": {"rejected": "x"},
                               "request.openai-completions": {"skipped": "no"}}}, 4, STAGES)
    assert checked["entries"]["protocol-error"]["message"] == (
        "malformed stage result: run-response $.results.entries: Additional properties are "
        "not allowed ('bogus' was unexpected)")
    assert checked["context"]["protocol-error"]["message"] == (
        "malformed stage result: run-response $.results.context.rejected: 'x' is not of type "
        "'object'")
    assert checked["request.openai-completions"] == {"skipped": "no"}


def test_a_missing_stage_result_costs_that_stage_only():
    checked = protocol.check_run_answer(answer({"output": 1}), 1, ["entries", "context"])
    assert checked["entries"] == {"output": 1}
    assert "no result for this stage" in checked["context"]["protocol-error"]["message"]


def test_strict_validation_also_refuses_what_the_lenient_path_ignores():
    problems = protocol.run_answer_problems(
        {"seq": 1, "debug": True, "results": {"entries": {"output": 1}, "llm": {"output": 2}}},
        ["entries"])
    assert problems == [
        "run-response $: Additional properties are not allowed ('debug' was unexpected)",
        "run-response $.results.llm: a result for a stage that was not asked for"]


def test_an_invalid_hello_names_the_message_and_path():
    with pytest.raises(ImplementationError) as caught:
        protocol.Hello.parse({"protocol": 1, "implementation": {"name": "x", "version": "1",
                                                                "language": ""},
                              "capabilities": {"stages": ["entries"]}})
    assert "hello-response $.implementation.language: '' should be non-empty" in str(caught.value)


def test_the_runners_own_requests_are_valid():
    request = protocol.run_request(3, "a.b", ("f",), "/tmp/s.jsonl", "{}", ["entries"], {},
                                   ("/tmp/e.jsonl", ""))
    assert protocol.schema_errors("run-request", request) == []
    assert protocol.schema_errors("hello-request", protocol.hello_request()) == []
    assert protocol.schema_errors("bye-request", protocol.bye_request()) == []


def test_each_validator_is_compiled_once():
    assert protocol.validator("run-response") is protocol.validator("run-response")


def test_an_unknown_message_is_a_programming_error():
    with pytest.raises(ValueError, match="no protocol schema named 'nope'"):
        protocol.validator("nope")


@pytest.mark.parametrize("path", sorted((SCHEMA_DIR / "protocol").glob("*.json")),
                         ids=lambda p: p.stem)
def test_every_protocol_schema_is_a_valid_draft_2020_12_schema(path):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(f"/schemas/protocol/{path.name}")


@pytest.mark.parametrize(("seq", "answered"), [(1, True), (0, False), (1, "1"), (1, None),
                                             (1, 1.5)])
def test_a_seq_that_only_compares_equal_is_out_of_order(seq, answered):
    answer = {"seq": answered, "results": {"entries": {"output": {}}}}
    with pytest.raises(ProtocolViolation, match=f"expected seq {seq}, got {answered!r}"):
        protocol.check_run_answer(answer, seq, ["entries"])
    assert protocol.check_run_answer({**answer, "seq": seq}, seq, ["entries"]) == {
        "entries": {"output": {}}}
