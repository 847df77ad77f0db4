"""Drafts by root cause: a port with several planted, independent defects gets exactly one
draft per defect, each with a reproducer that shows it (tests/fakes/multi_defect.py)."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance._paths import corpus_root
from conformance.cli.main import main
from conformance.execution.sessions import SessionJudge
from conformance.implementations.transports import PersistentImplementation
from conformance.maintenance.discrepancies.shrink import Atom, Oracle

FAKE = Path(__file__).parent / "fakes" / "multi_defect.py"
COMMAND = [sys.executable, str(FAKE)]
SPEC = "process:" + shlex.join(COMMAND)
DEFECTS = ("reasoning", "summary", "custom", "model", "label")
# A handful of cases that between them trigger every defect, some several at once
# (stats.basic: reasoning beside a compaction's usage; entries.all-types: a label beside a
# model change and a custom message; shapes.fork-fields: a model change and a custom message).
CASES = ("stats.basic", "stats.usage-ignored-fields", "stats.branch-summary-usage",
         "traps.custom-entry-vs-custom-message", "edit.array-custom",
         "shapes.dozens-of-model-changes", "shapes.fork-fields", "branch.leaf-label",
         "branch.labels-set-and-clear", "entries.all-types")


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    """The fake's report, and the drafts written from it to a directory of the test's own
    (not reports/discrepancies), with the time the build took."""
    root = tmp_path_factory.mktemp("causes")
    (root / "reports").mkdir()
    selection = [arg for case in CASES for arg in ("-k", case)]
    ran = CliRunner().invoke(main, ["run", "--impl", SPEC, *selection, "-q",
                                    "--report", str(root / "reports" / "multi.jsonl")])
    assert ran.exit_code == 1, ran.output
    out = root / "elsewhere" / "drafts"
    started = time.monotonic()
    built = CliRunner().invoke(main, [
        "corpus", "discrepancies", "--corpus", str(corpus_root()),
        "--reports", str(root / "reports"), "--out", str(out),
        "--impl", f"multi-defect={SPEC}"])
    elapsed = time.monotonic() - started
    assert built.exit_code == 0, built.output
    index = json.loads((out / "index.json").read_text())
    entries = [e for e in index["discrepancies"] if e["target"] == "multi-defect"]
    print(f"multi-defect: {len(entries)} draft(s) in {elapsed:.1f}s")
    return out, entries


def _planted(defect: str) -> PersistentImplementation:
    return PersistentImplementation(f"multi-defect[{defect}]", COMMAND,
                                    env={**os.environ, "DEFECTS": defect})


@pytest.mark.slow
@pytest.mark.reference
def test_one_draft_per_planted_defect_each_reproducing_it(drafted, shared_reference):
    _out, entries = drafted
    shown_by: dict[str, set[str]] = {e["id"]: set() for e in entries}
    # Each reproducer judged again, against a port with one defect planted at a time: the
    # defect a draft is about is the one that makes its reproducer fail as the draft says.
    for defect in DEFECTS:
        with SessionJudge(_planted(defect), shared_reference) as judge:
            oracle = Oracle(judge)
            for entry in entries:
                made_for = entry["reproducer"]["made_for"]
                atom = Atom(made_for["stage"], made_for["path"], made_for["kind"])
                if oracle.shows(entry["reproducer"]["session"], atom):
                    shown_by[entry["id"]].add(defect)
    assert all(len(found) == 1 for found in shown_by.values()), shown_by
    assert sorted(d for found in shown_by.values() for d in found) == sorted(DEFECTS), shown_by
    by_defect = {next(iter(found)): e for e in entries
                 for found in [shown_by[e["id"]]]}
    # One cause over two paths, over two stages, over every stage.
    assert {tuple(p) for p in by_defect["reasoning"]["signature"]} >= {
        ("$.tokens.output", "changed"), ("$.tokens.total", "changed")}
    assert by_defect["custom"]["stages"] == ["context", "projection"]
    assert by_defect["label"]["stages"] == ["entries", "context", "projection", "stats"]
    for entry in entries:
        assert entry["reproducer"]["shrunk"] and entry["reproducer"]["verified"], entry["id"]


@pytest.mark.slow
@pytest.mark.reference
def test_the_reproduce_block_names_where_the_drafts_were_written(drafted):
    out, entries = drafted
    for entry in entries:
        draft = (out / entry["draft"]).read_text()
        reproducer = (out / entry["draft"]).with_suffix(".jsonl")
        assert reproducer.is_file()
        block = draft.split("## Reproduce\n", 1)[1]
        assert str(reproducer) in block, block
        assert "reports/discrepancies/" not in block
