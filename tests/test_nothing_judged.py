"""A run in which nothing is judged is never PASSED: it says what was skipped and why, and
exits 5 unless the user asks for that selection (``--allow-empty``). A shard is not judged
empty on its own; its merged report is."""

from __future__ import annotations

import json

from click.testing import CliRunner

from conformance.cli.main import main
from conformance.reporting.stream import read_report


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_an_adapter_claiming_none_of_the_selected_stages_judges_nothing(corpus_dir, fake,
                                                                        tmp_path):
    spec = fake("correct", "--claim-stages", "stats")
    report = tmp_path / "r.jsonl"
    done = run("run", "--impl", spec, "--corpus", str(corpus_dir), "--stage", "context",
               "--report", str(report))
    assert done.exit_code == 5, done.output
    assert "NOTHING JUDGED" in done.output and "PASSED" not in done.output
    assert "stage not claimed" in done.output  # the skip reasons, said
    assert read_report(report).footer.verdict == "nothing-judged"
    rendered = run("render", str(report), "--format", "json")
    assert rendered.exit_code == 5 and json.loads(rendered.output)["verdict"] == "nothing-judged"
    allowed = run("run", "--impl", spec, "--corpus", str(corpus_dir), "--stage", "context",
                  "--allow-empty", "-q")
    assert allowed.exit_code == 0, allowed.output


def test_a_shard_of_skips_passes_and_the_merge_of_such_shards_judges_nothing(corpus_dir, fake,
                                                                            tmp_path):
    spec = fake("correct", "--claim-stages", "stats")
    shards = [tmp_path / f"shard-{k}.jsonl" for k in (1, 2)]
    for k, path in enumerate(shards, start=1):
        done = run("run", "--impl", spec, "--corpus", str(corpus_dir), "--stage", "context",
                   "--shard", f"{k}/2", "--report", str(path), "-q")
        assert done.exit_code == 0, done.output
    assert sum(len(read_report(path).results) for path in shards) == 4  # every case, skipped
    merged = run("report", "merge", *map(str, shards), "-o", str(tmp_path / "merged.jsonl"))
    assert merged.exit_code == 5, merged.output
    assert read_report(tmp_path / "merged.jsonl").footer.verdict == "nothing-judged"


def test_one_judged_result_is_enough(corpus_dir, fake):
    spec = fake("correct", "--claim-stages", "stats,context")
    done = run("run", "--impl", spec, "--corpus", str(corpus_dir), "-q")
    assert done.exit_code == 0, done.output
