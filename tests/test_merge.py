"""report merge refuses shards that are not one run: here, shards whose implementation claimed
other stages, and splits past any CI matrix's size."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.shards import MAX_SHARDS, Shard
from conformance.errors import ConformanceError


def shard_report(corpus_dir, spec, shard, path):
    done = CliRunner().invoke(main, ["run", "--impl", spec, "--shard", shard, "--corpus",
                                     str(corpus_dir), "--report", str(path), "-q"])
    assert done.exit_code in (0, 1), done.output
    return path


def test_shards_whose_implementation_claimed_other_stages_are_refused(tmp_path, corpus_dir,
                                                                      fake):
    """The same --impl, but one machine's adapter claimed only stats: its "pass" would hide
    every other stage of its cases."""
    narrow = fake("correct", "--claim-stages", "stats")
    whole = fake("correct")
    first = shard_report(corpus_dir, whole, "1/2", tmp_path / "a.jsonl")
    second = shard_report(corpus_dir, narrow, "2/2", tmp_path / "b.jsonl")
    # The two specs differ only in what the adapter claims: make the headers' specs equal.
    second.write_text(second.read_text().replace(narrow.replace('"', '\\"'),
                                                 whole.replace('"', '\\"'), 1))
    done = CliRunner().invoke(main, ["report", "merge", str(first), str(second),
                                     "-o", str(tmp_path / "m.jsonl")])
    assert done.exit_code == 2, done.output
    assert "claimed other capabilities" in done.output and "b.jsonl" in done.output
    assert "(stages stats vs entries, branch" in done.output
    assert not (tmp_path / "m.jsonl").exists()


def test_a_split_past_any_ci_matrix_is_refused_as_it_is_asked():
    assert Shard(MAX_SHARDS, MAX_SHARDS).count == MAX_SHARDS
    with pytest.raises(ConformanceError, match=f"N may be at most {MAX_SHARDS}"):
        Shard.parse("1/99999999999")
    done = CliRunner().invoke(main, ["run", "--impl", "reference", "--shard", "1/99999999999"])
    assert done.exit_code == 2 and f"at most {MAX_SHARDS}" in done.output
