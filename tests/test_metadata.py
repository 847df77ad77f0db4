"""Typed case metadata: what every command writes as a case.toml is a case the loader reads."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conformance.corpus.cases import Corpus
from conformance.corpus.metadata import CaseMetadata
from conformance.errors import CorpusError


def test_a_written_case_round_trips_through_the_loader(tmp_path: Path):
    (tmp_path / "cases" / "area" / "a").mkdir(parents=True)
    directory = tmp_path / "cases" / "area" / "a"
    (directory / "session.jsonl").write_text('{"type":"session","version":3,"id":"s"}\n')
    meta = CaseMetadata(id="area.a", title="t", features=("basic",), stages=("entries", "stats"),
                        outcome="implementation-defined",
                        scope={"stats": ("$.totalMessages",)}, source="test")
    path = meta.write(directory)
    assert path.stat().st_mode & 0o777 == 0o644
    assert CaseMetadata.from_table(tomllib.loads(path.read_text())) == meta
    case = Corpus(tmp_path).load_case(directory)
    assert case.scope == {"stats": ("$.totalMessages",)} and case.stages == ("entries", "stats")


def test_defaults_are_left_out_and_keys_keep_the_schema_order():
    text = CaseMetadata(id="area.a", title="t", features=("basic",), source="s").to_toml()
    assert list(tomllib.loads(text)) == ["id", "title", "features", "source"]


def test_a_case_the_loader_would_refuse_is_never_written(tmp_path: Path):
    refused = CaseMetadata(id="area.a", title="t", features=("basic",),
                           outcome="implementation-defined")  # a class needs its scope
    with pytest.raises(CorpusError, match=r"would not load: .*'scope' is a required property"):
        refused.write(tmp_path)
    assert list(tmp_path.iterdir()) == []
