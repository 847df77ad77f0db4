"""The block matrix in coverage: cells come from goldens and sessions, not case names."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.corpus.cases import Corpus
from conformance.maintenance.block_axes import Cell, all_cells
from conformance.maintenance.coverage import compute
from conformance.maintenance.matrix_coverage import compute_matrix
from tests.corpus_builder import CLAUSES, write_corpus

MODEL = {"id": "claude", "provider": "anthropic", "api": "anthropic-messages"}
SIGNED = {"role": "assistant", "stopReason": "length", "provider": "anthropic",
          "api": "anthropic-messages", "model": "claude",
          "content": [{"type": "thinking", "thinking": "t", "thinkingSignature": "sig"}]}


def _golden(directory: Path, stage: str, result: dict) -> None:
    (directory / "expected").mkdir(exist_ok=True)
    (directory / "expected" / f"{stage}.json").write_text(json.dumps(
        {"stage": stage, "result": result, "provenance": {}}))


def _corpus(tmp_path: Path) -> Corpus:
    root = write_corpus(tmp_path, CLAUSES, {
        # Named for text, holds signed thinking: the name must not count.
        "matrix/text-anthropic": 'features = ["basic"]\n'
                                 'stages = ["llm", "request.anthropic-messages"]\n'
                                 '[options.request]\nreasoning = "high"\n',
        # Same messages but the request was rejected: fills nothing.
        "matrix/rejected": 'features = ["basic"]\nstages = ["llm", "request.anthropic-messages"]\n',
        # No llm golden: the session's messages are read.
        "matrix/session-only": 'features = ["basic"]\nstages = ["request.anthropic-messages"]\n',
    })
    (root / "models.json").write_text(json.dumps({"models": {"anthropic-messages": MODEL}}))
    cases = root / "cases" / "matrix"
    _golden(cases / "text-anthropic", "llm", {"output": [SIGNED]})
    _golden(cases / "text-anthropic", "request.anthropic-messages", {"output": {}})
    _golden(cases / "rejected", "llm", {"output": [SIGNED]})
    _golden(cases / "rejected", "request.anthropic-messages", {"rejected": {"message": "no"}})
    session = cases / "session-only" / "session.jsonl"
    image = {"role": "user", "content": [{"type": "image", "data": "x", "mimeType": "image/png"}]}
    session.write_text(session.read_text() + json.dumps(
        {"type": "message", "id": "a", "parentId": None, "message": image}) + "\n")
    _golden(cases / "session-only", "request.anthropic-messages", {"output": {}})
    return Corpus(root)


def test_cells_come_from_the_messages_behind_a_request_golden(tmp_path: Path):
    corpus = _corpus(tmp_path)
    matrix = compute_matrix(corpus, corpus.cases)
    filled = {cell: cases for cell, cases in matrix.cells.items() if cases}
    assert filled == {
        Cell("thinking-signed", "anthropic-messages", "length", "same", "on"):
            ["matrix.text-anthropic"],
        Cell("image-user", "anthropic-messages", "-", "-", "off"): ["matrix.session-only"],
    }
    assert len(matrix.empty) == len(all_cells()) - 2
    assert Cell("text", "anthropic-messages", "length", "same", "on") in matrix.empty


def test_coverage_json_has_the_matrix_and_follows_the_schema(tmp_path: Path):
    data = compute(_corpus(tmp_path)).to_json()
    jsonschema.Draft202012Validator(
        jsonio.read_json(SCHEMA_DIR / "coverage.schema.json")).validate(data)
    matrix = data["matrix"]
    assert (matrix["total"], matrix["filled"]) == (len(all_cells()), 2)
    assert "text/anthropic-messages/stop/other/off" in matrix["empty"]
    assert matrix["cells"]["image-user/anthropic-messages/-/-/off"] == ["matrix.session-only"]
    assert matrix["beyond"] == {}


def test_the_shipped_corpus_fills_every_cell_pi_can_produce():
    corpus = Corpus()
    matrix = compute_matrix(corpus, corpus.select(["matrix.*"]))
    assert [cell.key for cell in matrix.empty] == []


def test_the_shipped_matrix_spans_every_api_pi_ai_knows():
    """coverage --format json: every API pi-ai knows has request goldens and matrix cells."""
    from conformance.corpus.stages import APIS

    corpus = Corpus()
    report = compute(corpus).to_json()
    assert set(report["apis"]) == set(APIS)
    assert all(count > 0 for count in report["apis"].values())
    matrix = compute_matrix(corpus, corpus.select(["matrix.*"]))
    assert {cell.api for cell in matrix.cells} == set(APIS)
    assert all(matrix.cells[cell] for cell in matrix.cells)
