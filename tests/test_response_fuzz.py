"""Chunk-boundary fuzzing: a port whose answer depends on where the body was cut is found,
shrunk to the fewest cuts, and written as a candidate; a port that does not is left alone."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus import http_responses
from conformance.implementations.specs import resolve
from conformance.maintenance.response_fuzz import fuzz_cuts, write_cut_candidate

pytestmark = pytest.mark.reference

FAKES = Path(__file__).parent / "fakes"


def spec(fake: str, corpus: Path) -> str:
    return "process:" + shlex.join([sys.executable, str(FAKES / fake), str(corpus)])


def test_a_port_that_decodes_each_read_apart_is_caught_with_one_cut(regenerated, tmp_path):
    with resolve(spec("splits_characters.py", regenerated.root)) as impl:
        findings = fuzz_cuts(impl, regenerated, regenerated.cases, max_examples=30, seed=1)
    assert {finding.api for finding in findings} == {"anthropic-messages", "openai-completions"}
    for finding in findings:
        body = finding.response.body
        assert len(finding.cuts) == 1  # shrunk: one cut inside one character is enough
        assert body[finding.cuts[0]] & 0xC0 == 0x80
        assert finding.response.chunks[0] + finding.response.chunks[1] == body
    directory = write_cut_candidate(findings[0], tmp_path / "out", "fake", "pi-conformance fuzz")
    metadata = tomllib.loads((directory / "case.toml").read_text())
    assert metadata["stages"] == [findings[0].stage]
    saved = http_responses.load(directory / "responses" / f"{findings[0].api}.json")
    assert saved == findings[0].response


def test_a_port_that_answers_as_pi_is_never_caught(regenerated):
    asked = []
    with resolve(spec("correct.py", regenerated.root)) as impl:
        findings = fuzz_cuts(impl, regenerated, regenerated.cases, max_examples=10, seed=1,
                             on_response=lambda case, api: asked.append(api))
    assert asked == ["anthropic-messages", "openai-completions"]  # both were cut, and ...
    assert findings == []  # ... a port that answers as Pi does is never caught


def test_a_port_wrong_however_the_body_is_cut_is_not_caught(regenerated):
    """Its answer does not depend on the cuts: wrong whole, wrong the same way cut. That is a
    plain failure (run shows it), not a chunk-boundary one (pi-ai-python's missing
    ``totalFromProvider`` was written as 36 "depends on where the body is cut" candidates)."""
    command = [sys.executable, str(FAKES / "wrong.py"), str(regenerated.root),
               "--stage", "response.anthropic-messages"]
    with resolve("process:" + shlex.join(command)) as impl:
        findings = fuzz_cuts(impl, regenerated, regenerated.cases, max_examples=10, seed=1)
    assert findings == []


def test_a_failure_that_does_not_come_again_is_no_finding_and_no_crash(regenerated):
    """Hypothesis replays a failing example before it reports it; one that passes the second
    time (a parser that is not deterministic, or the clock) was a crash of the whole fuzz
    (FlakyFailure) on the 1466 responses of the construction with pi-ai-python."""
    with resolve(spec("fickle_response.py", regenerated.root)) as impl:
        findings = fuzz_cuts(impl, regenerated, regenerated.cases, max_examples=5, seed=1)
    assert findings == []


def test_the_command_exits_1_and_writes_the_candidate(regenerated, tmp_path):
    result = CliRunner().invoke(main, [
        "fuzz", "--responses", "--impl", spec("splits_characters.py", regenerated.root),
        "--corpus", str(regenerated.root), "--max-examples", "20", "--seed", "3",
        "--out", str(tmp_path / "found")])
    assert result.exit_code == 1, result.output
    written = sorted(path.name for path in (tmp_path / "found").iterdir())
    assert written == ["resp-turn-anthropic-messages-cut", "resp-turn-openai-completions-cut"]
    assert "cut at [" in result.output
    assert json.loads((tmp_path / "found" / written[0] / "responses" /
                       "anthropic-messages.json").read_text())["status"] == 200


def test_a_draft_for_a_response_stage_is_reproduced_with_the_cases_response(regenerated,
                                                                          tmp_path):
    # Drafts shrink sessions; a response stage read none of them, so every response draft
    # said "did not reproduce". The case itself, its response included, reproduces it.
    reports = tmp_path / "reports"
    reports.mkdir()
    fake = spec("drops_cost_source.py", regenerated.root)
    ran = CliRunner().invoke(main, ["run", "--impl", fake, "--corpus", str(regenerated.root),
                                    "-q", "--report", str(reports / "port.jsonl")])
    assert ran.exit_code == 1, ran.output
    out = tmp_path / "drafts"
    built = CliRunner().invoke(main, ["corpus", "discrepancies", "--corpus",
                                      str(regenerated.root), "--reports", str(reports),
                                      "--out", str(out), "--impl", f"cost-port={fake}"])
    assert built.exit_code == 0, built.output
    index = json.loads((out / "index.json").read_text())
    drafts = [e for e in index["discrepancies"] if e["target"] == "cost-port"]
    assert drafts
    for entry in drafts:
        reproducer = entry["reproducer"]
        assert reproducer["verified"] and not reproducer["shrunk"]
        assert json.loads(reproducer["response"]["text"])["status"] == 200
        text = (out / entry["draft"]).read_text()
        assert "the provider's response it reads" in text
        assert any("totalFromProvider" in d["path"] for d in entry["differences"])
