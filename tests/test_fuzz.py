"""The differential fuzzer finds a planted bug, shrinks it, and writes a loadable candidate."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.cases import Corpus
from conformance.errors import ConformanceError
from conformance.implementations.specs import resolve
from conformance.implementations.transports import python_callable, reference
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.maintenance.fuzz import (
    Differential,
    Finding,
    finding_of,
    fuzz,
    fuzz_sessions,
    write_candidate,
)

FAKES = Path(__file__).resolve().parent / "fakes"
HEADER = b'{"type":"session","version":3,"id":"s","timestamp":"2024-01-01T00:00:00.000Z"}\n'


def stats_double(which: str):
    return python_callable(f"stats-double-{which}", f"stats_impl:{which}", cwd=FAKES)


def _entries(session: bytes) -> int:
    return len([line for line in session.split(b"\n") if line.strip()]) - 1


@pytest.mark.slow
@pytest.mark.reference
def test_the_fuzzer_finds_a_planted_bug_and_shrinks_it_to_a_small_session(shared_reference):
    with Differential(stats_double("buggy"), shared_reference) as differential:
        outcome = fuzz(differential, max_examples=30, seed=7)
    assert outcome.stages == ["stats"]
    assert outcome.findings, "the planted bug (reasoning added to output) was not found"
    finding = outcome.findings[0]
    assert "stats" in finding.stages and "$.tokens.output" in finding.stages["stats"]
    assert _entries(finding.session) <= 3, finding.session.decode()
    assert b'"reasoning":' in finding.session  # the shrunk session still shows the cause


@pytest.mark.reference
def test_a_correct_implementation_gives_no_finding(shared_reference):
    with Differential(stats_double("correct"), shared_reference) as differential:
        outcome = fuzz(differential, max_examples=30, seed=3)
    assert outcome.examples == 30 and outcome.findings == []


@pytest.mark.reference
def test_the_reference_agrees_with_itself_on_every_session_stage(shared_reference):
    with Differential(reference(), shared_reference) as differential:
        assert differential.stages == ["entries", "branch", "context", "projection", "llm",
                                       "prompt", "stats"]
        outcome = fuzz(differential, max_examples=25, seed=1)
    assert outcome.findings == []


@pytest.mark.reference
def test_an_implementation_without_a_shared_stage_is_a_clear_error(shared_reference):
    impl = stats_double("correct")
    pair = Differential(impl, shared_reference, stages=("context",))
    with pytest.raises(ConformanceError, match="answers none of the stages"), pair:
        pass
    assert impl.connection is None  # stopped, though the pair was never entered
    assert not pair.judge.scratch.exists()


@pytest.mark.parametrize(("stages", "told"), [
    ((), "entries,branch,context,projection,llm,prompt,stats"),
    (("branch", "request.openai-responses"), "branch,request.openai-responses"),
])
def test_both_sides_are_told_the_stages_they_will_be_asked(fake, tmp_path, stages, told):
    """So the reference loads no provider's code for session stages alone."""
    record = tmp_path / "hints"
    pair = Differential(resolve(fake("hint_recorder", "--record", str(record))), stages=stages)
    assert pair.reference.plain.impl.stages_hint == tuple(told.split(","))
    pair.impl.start()
    pair.impl.close()
    pair.judge.close()
    assert record.read_text().splitlines() == [told]


def test_a_pair_never_entered_leaves_no_scratch_behind():
    pair = Differential(stats_double("correct"))
    scratch = pair.judge.scratch
    assert scratch.is_dir()
    del pair
    assert not scratch.exists()


def _result(stage: str, status: str = "pass", **fields) -> StageResult:
    return StageResult("fuzz.example", stage, status, **fields)


def test_a_finding_names_every_failing_stage_and_is_keyed_by_the_first_exact_difference():
    """Hypothesis shrinks each key on its own: the key is the first failing stage (in stage
    order), the kind of its first difference and its path with indices generalized."""
    changed = Difference("$.messages[3].content", "changed", "a", "b")
    results = [_result("stats", "fail", message="differs", differences=(changed,)),
               _result("entries"),
               _result("branch", "fail", message="Pi rejected it, the implementation not",
                       expected_kind="rejected", actual_kind="output"),
               _result("context", "skip")]
    finding = finding_of(HEADER, results)
    assert finding is not None and list(finding.stages) == ["branch", "stats"]
    assert finding.key == "branch rejected-vs-output"
    assert finding.details["stats"][0]["path"] == "$.messages[3].content"
    assert finding_of(HEADER, results[3:] + results[1:2]) is None
    only_stats = finding_of(HEADER, results[:1])
    assert only_stats is not None and only_stats.key == "stats changed $.messages[*].content"
    crashed = finding_of(HEADER, [_result("entries", "error", message="boom")])
    assert crashed is not None and crashed.key == "entries error"
    assert crashed.stages["entries"] == "the implementation failed: boom"


def test_a_candidate_is_a_case_directory_without_goldens(tmp_path: Path):
    finding = Finding(HEADER, "stats changed $.n", {"stats": 'changed: "é" \x7f'})
    directory = write_candidate(finding, tmp_path / "out", "my-port", "pi-conformance fuzz",
                                ["stats"])
    assert sorted(p.name for p in directory.iterdir()) == ["case.toml", "session.jsonl"]
    assert (directory / "session.jsonl").read_bytes() == HEADER
    (tmp_path / "corpus" / "cases").mkdir(parents=True)
    case = Corpus(tmp_path / "corpus").load_case(directory)  # validates against the schema
    assert case.id == f"fuzz.{directory.name}" and case.stages == ("stats",)
    assert case.features == ("generated",) and "my-port" in case.title


def test_unknown_session_kinds_are_rejected():
    with pytest.raises(ConformanceError, match="unknown session kind"):
        fuzz_sessions("nonsense")


@pytest.mark.slow
@pytest.mark.reference
def test_the_cli_writes_a_shrunk_candidate_and_fails(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(FAKES))
    out = tmp_path / "candidates"
    result = CliRunner().invoke(main, ["fuzz", "--impl", "python:stats_impl:buggy",
                                       "--max-examples", "30", "--seed", "7",
                                       "--sessions", "valid", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "disagreement" in result.output and "$.tokens.output" in result.output
    [candidate] = list(out.iterdir())
    meta = (candidate / "case.toml").read_text()
    assert 'source = "pi-conformance fuzz --impl python:stats_impl:buggy' in meta
    lines = (candidate / "session.jsonl").read_bytes().splitlines()
    assert json.loads(lines[0])["version"] == 3 and len(lines) <= 4


@pytest.mark.reference
def test_the_cli_passes_a_correct_implementation(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(FAKES))
    result = CliRunner().invoke(main, ["fuzz", "--impl", "python:stats_impl:correct",
                                       "--max-examples", "30", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "no disagreement in 30 sessions" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_seed_draws_the_same_sessions_twice():
    """A seed makes a run reproducible: the same seed draws the same sessions."""
    from conformance.maintenance.fuzz import _draw

    first: list[bytes] = []
    second: list[bytes] = []
    _draw(fuzz_sessions("valid"), 10, 11, lambda session, choices: first.append(session))
    _draw(fuzz_sessions("valid"), 10, 11, lambda session, choices: second.append(session))
    assert first == second and len(set(first)) > 1


@pytest.mark.reference
@pytest.mark.slow
def test_two_pairs_explore_together_and_still_shrink_the_planted_bug(shared_reference):
    pairs = [Differential(stats_double("buggy")),
             Differential(stats_double("buggy"), shared_reference)]
    with pairs[0], pairs[1]:
        outcome = fuzz(pairs, max_examples=40, seed=7)
    assert outcome.examples == 40 and outcome.findings
    # Exploring finds sessions of any size; only the replayed, shrinking phase makes them small.
    assert _entries(outcome.findings[0].session) <= 3, outcome.findings[0].session.decode()


def test_what_comparison_imports_is_imported_before_the_generator_thread_draws():
    # deepdiff (imported by comparison on first use) imports numpy; half imported in a judging
    # thread, it broke Hypothesis's sampled_from in the generating thread (AttributeError:
    # partially initialized module 'numpy'), which ended a fuzz run of the reference.
    code = textwrap.dedent("""
        import sys, types
        import conformance.maintenance.fuzz as fuzz
        seen = []
        fuzz._draw = lambda strategy, examples, seed, put: seen.append("deepdiff" in sys.modules)
        fuzz.fuzz([types.SimpleNamespace(stages=("entries",))], max_examples=1, seed=1,
                  sessions=fuzz.fuzz_sessions("valid"))  # a strategy: drawn in a thread
        print(seen)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[True]"


@pytest.mark.slow
@pytest.mark.reference
def test_a_candidate_that_cannot_be_written_is_printed_not_lost(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    """``--out`` where nothing can be written (here: under a file) used to end all the work
    in a traceback; now the finding's session is printed and the exit code is 2."""
    monkeypatch.syspath_prepend(str(FAKES))
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    result = CliRunner().invoke(main, ["fuzz", "--impl", "python:stats_impl:buggy",
                                       "--max-examples", "30", "--seed", "7",
                                       "--sessions", "valid", "--out", str(blocked / "out")])
    assert result.exit_code == 2, result.output
    assert "-> not written (" in result.output and "Not a directory" in result.output
    assert '"type":"session"' in result.output.replace(" ", "")
    assert "could not be written" in result.output
