"""Fuzz, shrink and drafts for a port that takes its inputs (tests/fakes/request_library.py,
with a planted bug: Anthropic requests without ``max_tokens``): every candidate session reaches
it with Pi's ``llm`` and ``prompt`` answers for that session, so the bug reproduces on each."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance._paths import corpus_root
from conformance.cli.main import main
from conformance.execution.sessions import SessionJudge
from conformance.implementations.transports import PersistentImplementation
from conformance.maintenance.discrepancies.shrink import Atom, Oracle, shrink
from conformance.maintenance.fuzz import Differential, fuzz

LIBRARY = [sys.executable, str(Path(__file__).parent / "fakes" / "request_library.py")]
BUGGY = [*LIBRARY, "--drop-max-tokens"]
STAGE = "request.anthropic-messages"
ATOM = Atom(STAGE, "$.max_tokens", "missing key")


def port(command: list[str]) -> PersistentImplementation:
    return PersistentImplementation("process:" + shlex.join(command), command)


@pytest.mark.slow
@pytest.mark.reference
def test_fuzz_shrink_and_drafts_reproduce_for_an_input_taking_port(shared_reference, tmp_path):
    with Differential(port(BUGGY), shared_reference, stages=(STAGE,)) as differential:
        outcome = fuzz(differential, max_examples=10, seed=11)
    found = [f for f in outcome.findings if STAGE in f.stages]
    assert found, outcome.findings
    text = found[0].session.decode("utf-8")
    with SessionJudge(port(BUGGY), shared_reference, stages=(STAGE,)) as judge:
        oracle = Oracle(judge)
        assert oracle.shows(text, ATOM), found[0].summary()
        shrunk = shrink(text, lambda t: oracle.compare(t, (STAGE,))[STAGE],
                        (ATOM.path, ATOM.kind), max_tests=120)
        assert oracle.shows(shrunk.text, ATOM)
        assert shrunk.lines <= len(text.splitlines())
    with SessionJudge(port(LIBRARY), shared_reference, stages=(STAGE,)) as judge:
        assert not Oracle(judge).shows(shrunk.text, ATOM)  # the planted bug, not the toy

    reports = tmp_path / "reports"
    reports.mkdir()
    spec = "process:" + shlex.join(BUGGY)
    ran = CliRunner().invoke(main, ["run", "--impl", spec, "-k", "stats.basic", "--stage", STAGE,
                                    "-q", "--report", str(reports / "toy.jsonl")])
    assert ran.exit_code == 1, ran.output
    out = tmp_path / "drafts"
    built = CliRunner().invoke(main, ["corpus", "discrepancies", "--corpus", str(corpus_root()),
                                      "--reports", str(reports), "--out", str(out),
                                      "--impl", f"toy-request-library={spec}"])
    assert built.exit_code == 0, built.output
    index = json.loads((out / "index.json").read_text())
    toy = [e for e in index["discrepancies"] if e["target"] == "toy-request-library"]
    assert toy and all(e["reproducer"]["shrunk"] for e in toy)
    with SessionJudge(port(BUGGY), shared_reference, stages=(STAGE,)) as judge:
        oracle = Oracle(judge)
        showing = [e for e in toy if oracle.shows(e["reproducer"]["session"], ATOM)]
    assert showing, [e["reproducer"]["session"] for e in toy]
