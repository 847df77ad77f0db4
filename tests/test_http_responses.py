"""HTTP responses as inputs: round trips, re-splitting, and errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.corpus import http_responses
from conformance.corpus.http_responses import HttpResponse
from conformance.errors import CorpusError

SSE = HttpResponse(200, (("content-type", "text/event-stream"),),
                   (b"data: {\"a\":1}\n\n", "data: \"é\"\n\n".encode(), b"\xff\x01binary"))


def test_a_file_round_trips_with_text_and_binary_chunks(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(http_responses.dumps(SSE))
    raw = json.loads(path.read_text())
    assert raw["chunks"][1] == {"text": "data: \"é\"\n\n"}
    assert "base64" in raw["chunks"][2]
    assert http_responses.load(path) == SSE


@given(st.lists(st.integers(min_value=-5, max_value=60)))
def test_split_anywhere_keeps_the_body(offsets: list[int]) -> None:
    split = SSE.split_at(offsets)
    assert split.body == SSE.body
    assert all(split.chunks)
    assert split.boundaries() == tuple(sorted({o for o in offsets if 0 < o < len(SSE.body)}))


def test_a_split_inside_a_character_is_written_as_base64(tmp_path: Path) -> None:
    cut = SSE.body.index("é".encode()) + 1
    split = SSE.split_at([cut])
    assert "base64" in split.serializable()["chunks"][1]
    path = tmp_path / "r.json"
    path.write_text(http_responses.dumps(split))
    assert http_responses.load(path).body == SSE.body


@pytest.mark.parametrize(("data", "problem"), [
    ([], "must be a JSON object"),
    ({"status": 99, "chunks": []}, "status must be"),
    ({"status": True, "chunks": []}, "status must be"),
    ({"status": 200, "chunks": [{"text": "a", "base64": "YQ=="}]}, "chunk 0 must be"),
    ({"status": 200, "chunks": [{"base64": "***"}]}, "chunk 0: not base64"),
    ({"status": 200, "headers": [["a"]], "chunks": []}, "headers must be"),
    ({"status": 200, "chunks": [], "body": ""}, "unknown keys"),
])
def test_bad_files_are_named(tmp_path: Path, data: object, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CorpusError, match=problem) as raised:
        http_responses.load(path)
    assert str(path) in str(raised.value)


def test_broken_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "status": 200,\n  "chunks": [\n')
    with pytest.raises(CorpusError, match=r"bad.json:\d"):
        http_responses.load(path)
