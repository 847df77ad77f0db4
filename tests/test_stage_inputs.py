"""Stages claimed given their input: the runner sends the feeding goldens (docs/protocol.md)."""

from __future__ import annotations

import json

import pytest
from helpers import run_spec

from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.selection import Selection
from conformance.corpus.stages import ALL_STAGES, STAGE_INPUTS, inputs_of
from conformance.errors import CorpusError, ImplementationError
from conformance.implementations import protocol


def recorded(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_feeding_stage_comes_before_what_it_feeds_and_is_a_stage():
    for stage, sources in STAGE_INPUTS.items():
        assert stage in ALL_STAGES
        for source in sources:
            assert ALL_STAGES.index(source) < ALL_STAGES.index(stage)
    assert inputs_of("entries") == inputs_of("events") == ()


def test_fed_stages_get_their_feeding_goldens_and_others_none(corpus, fake, tmp_path):
    record = tmp_path / "requests.jsonl"
    fed = "prompt,request.openai-completions,stats"
    outcome = run_spec(corpus, fake("input_recorder", "--record", str(record), "--inputs", fed),
                       validate_protocol=True)
    assert {r.status for r in outcome.results} == {"pass"}
    case = corpus.cases[0]
    for line in recorded(record):
        assert set(line["inputs"]) == {"llm", "prompt", "entries"}
        for source, value in line["inputs"].items():
            assert value == read_golden(case, source).result
    only_unfed = run_spec(corpus, fake("input_recorder", "--record", str(tmp_path / "b.jsonl"),
                                       "--inputs", fed),
                          selection=Selection(stages=("context", "llm")))
    assert {r.status for r in only_unfed.results} == {"pass"}
    assert all(line["inputs"] is None for line in recorded(tmp_path / "b.jsonl"))


def test_a_case_without_the_feeding_golden_is_a_corpus_error_naming_it(corpus_dir, fake,
                                                                        tmp_path):
    """Never a silent skip: the user sees which case lacks which input, before anything runs
    (``corpus check`` refuses such a case too: Corpus.lint_inputs)."""
    case_dir = next((corpus_dir / "cases").rglob("case.toml")).parent
    meta = case_dir / "case.toml"
    meta.write_text(meta.read_text().replace("features =", 'stages = ["prompt", '
                                             '"request.openai-completions"]\nfeatures =', 1))
    for golden in (case_dir / "expected").glob("*.json"):
        if golden.stem not in ("prompt", "request.openai-completions"):
            golden.unlink()
    corpus = Corpus(corpus_dir)
    record = tmp_path / "requests.jsonl"
    spec = fake("input_recorder", "--record", str(record), "--inputs",
                "request.openai-completions")
    with pytest.raises(CorpusError, match=r"request.openai-completions is claimed given its "
                       r"input, but the case has no golden for llm") as raised:
        run_spec(corpus, spec)
    assert raised.value.path == meta
    assert not record.exists() or record.read_text() == ""  # nothing was asked
    withheld = meta.read_text() + 'withheld_inputs = ["llm"]\n'
    meta.write_text(withheld)
    outcome = run_spec(Corpus(corpus_dir), spec)
    case = Corpus(corpus_dir).load_case(case_dir)
    skipped = outcome.by_key[(case.id, "request.openai-completions")]
    assert skipped.status == "skip" and "withholds the golden of llm" in skipped.message
    assert outcome.by_key[(case.id, "prompt")].status == "pass"


def test_a_hello_that_claims_inputs_for_an_unclaimed_stage_is_invalid():
    hello = {"protocol": 1, "implementation": {"name": "x", "version": "1", "language": "c"},
             "capabilities": {"stages": ["prompt"], "inputs": ["prompt", "llm"]}}
    with pytest.raises(ImplementationError, match="inputs names stages not in"):
        protocol.Hello.parse(hello)
    hello["capabilities"]["inputs"] = ["entries"]
    hello["capabilities"]["stages"] = ["entries"]
    with pytest.raises(ImplementationError, match=r"capabilities\.inputs"):
        protocol.Hello.parse(hello)  # entries reads the file: it has no feeding stage


def test_inputs_in_a_run_request_are_checked_by_the_schema():
    good = protocol.run_request(1, "c", (), "/p", "", ["prompt"], {},
                                inputs={"llm": {"output": []}})
    assert protocol.schema_errors("run-request", good) == []
    bad = protocol.run_request(1, "c", (), "/p", "", ["prompt"], {},
                               inputs={"llm": {"output": [], "rejected": {"message": "x"}}})
    assert protocol.schema_errors("run-request", bad)
