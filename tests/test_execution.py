"""execute(): one run from request to report, with the implementation's lifetime around it."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import RunRequest, execute, live_group_members, settled

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES
from conformance.errors import ConformanceError, CorpusError
from conformance.reporting.stream import read_report

STAGES = len(DEFAULT_STAGES)  # a case's stages, every API's included


def test_a_run_writes_a_complete_report_stream(corpus, fake, tmp_path):
    path = tmp_path / "out" / "report.jsonl"
    outcome = execute(RunRequest(corpus=corpus, impl_spec=fake("crashing", "--on", "small.beta"),
                                 report_path=path))
    report = read_report(path)  # header, one line per result, a footer that agrees
    assert report.header.name == "fake"
    assert len(report.results) == 4 * STAGES == len(outcome.report.results)
    beta = [r for r in report.results if r.case == "small.beta"]
    assert {(r.status, r.error_kind) for r in beta} == {("error", "crash")}
    assert report.footer.counts["error"] == STAGES and report.footer.verdict == "failed"
    assert outcome.failed and outcome.restarts == 1


def test_a_missing_golden_stops_the_run_before_any_case_is_run(corpus, corpus_dir):
    golden = corpus_dir / "cases" / "small" / "beta" / "expected" / "context.json"
    golden.unlink()
    with pytest.raises(CorpusError) as caught:
        execute(RunRequest(corpus=corpus, impl_spec="process:no-such-adapter-xyz"))
    assert str(caught.value) == (f"{golden}: missing golden for stage context; run: "
                                 "pi-conformance corpus regenerate small.beta")


def test_a_golden_that_is_not_json_names_its_line(corpus, corpus_dir):
    golden = corpus_dir / "cases" / "small" / "gamma" / "expected" / "stats.json"
    golden.write_text('{\n  "stage": "stats",\n  "result": {oops}\n}\n')
    with pytest.raises(CorpusError, match=rf"{golden}:3: not valid JSON"):
        execute(RunRequest(corpus=corpus, impl_spec="process:no-such-adapter-xyz"))


def test_more_jobs_than_cases_start_only_the_processes_needed(corpus, fake):
    outcome = execute(RunRequest(corpus=corpus, impl_spec=fake("correct"), jobs=8,
                                 cases=("small.a*", "small.b*")))
    assert {r.case for r in outcome.report.results} == {"small.alpha", "small.beta"}
    assert not outcome.failed


@pytest.mark.parametrize(("stages", "apis", "hint"), [
    ((), (), "<unset>"),
    (("branch",), (), "branch"),
    (("context",), ("openai-responses",),
     "context,request.openai-responses,wire.openai-responses,response.openai-responses"),
])
def test_every_process_of_a_narrowed_run_is_told_the_stages_it_may_ask(corpus, fake, tmp_path,
                                                                       stages, apis, hint):
    """So an implementation that loads lazily loads ahead only what they need."""
    record = tmp_path / "hints"
    execute(RunRequest(corpus=corpus, impl_spec=fake("hint_recorder", "--record", str(record)),
                       stages=stages, apis=apis, jobs=2))
    assert record.read_text().splitlines() == [hint, hint]


def test_a_one_shot_implementation_is_told_the_stages_in_every_process(corpus, fake, tmp_path):
    record = tmp_path / "hints"
    execute(RunRequest(corpus=corpus, cases=("small.alpha",), stages=("branch",),
                       impl_spec=fake("hint_recorder", "--record", str(record),
                                      kind="oneshot")))
    told = record.read_text().splitlines()
    assert len(told) == 2 and set(told) == {"branch"}  # the hello's process, the case's


def test_the_run_command_tells_the_implementation_it_starts_early_the_stages(corpus_dir, fake,
                                                                             tmp_path):
    record = tmp_path / "hints"
    done = CliRunner().invoke(main, [
        "run", "--impl", fake("hint_recorder", "--record", str(record)), "--corpus",
        str(corpus_dir), "-q", "-k", "small.alpha", "--stage", "branch", "--api",
        "anthropic-messages"])
    assert done.exit_code == 0, done.output
    assert record.read_text().splitlines() == [
        "branch,request.anthropic-messages,wire.anthropic-messages,response.anthropic-messages"]


def test_an_empty_selection_is_an_input_error(corpus, fake):
    with pytest.raises(ConformanceError, match="no case matches the selection"):
        execute(RunRequest(corpus=corpus, impl_spec=fake("correct"), cases=("nothing.*",)))


def test_an_input_error_stops_the_implementation_started_beside_it(corpus, fake):
    # The implementation starts while the corpus is read; an input error found meanwhile
    # must not leave it running.
    marker = f"marker-{uuid.uuid4().hex}"
    with pytest.raises(ConformanceError, match="no case matches the selection"):
        execute(RunRequest(corpus=corpus, impl_spec=fake("correct", "--on", marker),
                           cases=("nothing.*",)))
    assert processes_naming(marker) == []


def processes_naming(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_baseline_keeps_known_failures_from_failing_the_run(corpus, fake, tmp_path):
    baseline = tmp_path / "baseline.toml"
    baseline.write_text('[[known]]\ncase = "small.*"\nstage = "context"\n'
                        'reason = "the first role is wrong"\n')
    wrong = fake("wrong", "--stage", "context")
    outcome = execute(RunRequest(corpus=corpus, impl_spec=wrong, baseline=baseline))
    assert not outcome.failed
    states = {r.baseline_state for r in outcome.report.results if r.baseline}
    assert states == {"known"}
    baseline.write_text(baseline.read_text() + '\n[[known]]\ncase = "small.alpha"\n'
                        'stage = "stats"\nreason = "fixed long ago"\n\n[[known]]\n'
                        'case = "small.removed"\nstage = "stats"\nreason = "gone"\n')
    outcome = execute(RunRequest(corpus=corpus, impl_spec=wrong, baseline=baseline))
    assert outcome.failed
    stale = [r for r in outcome.report.results if r.baseline_state == "stale"]
    assert [(r.case, r.stage) for r in stale] == [("small.alpha", "stats")]
    assert outcome.stale_baseline == ["small.removed stats: no such case"]


def test_a_failing_start_of_one_worker_closes_the_others(corpus, fake, tmp_path):
    flag = tmp_path / "started-once"
    script = tmp_path / "once.py"
    script.write_text(
        "import pathlib, runpy, sys\n"
        f"flag = pathlib.Path({str(flag)!r})\n"
        "if flag.exists(): sys.exit(9)\n"
        "import os; flag.write_text(str(os.getpid()))\n"
        f"sys.argv = [{str(fake.__globals__['FAKES'] / 'correct.py')!r}] + sys.argv[1:]\n"
        f"sys.path.insert(0, {str(fake.__globals__['FAKES'])!r})\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    spec = fake("correct").replace(str(fake.__globals__["FAKES"] / "correct.py"), str(script))
    with pytest.raises(ConformanceError, match="handshake failed"):
        execute(RunRequest(corpus=corpus, impl_spec=spec, jobs=2))
    first = int(flag.read_text())
    assert settled(lambda: live_group_members(first)) == []  # the first worker was closed


def test_the_run_command_starts_the_implementation_before_importing_the_runner(corpus_dir,
                                                                                fake):
    """Its handshake (a second for Node) overlaps loading the runner and the corpus."""
    probe = (
        "import sys\n"
        "from conformance.implementations import early\n"
        "begin = early.EarlyStart.begin.__func__\n"
        "def spy(cls, spec, *hint):\n"
        "    loaded = 'conformance.execution.executor' in sys.modules\n"
        "    print('runner imported at the start:', loaded)\n"
        "    return begin(cls, spec, *hint)\n"
        "early.EarlyStart.begin = classmethod(spy)\n"
        "from conformance.cli.main import main\n"
        "main()\n")
    done = subprocess.run([sys.executable, "-c", probe, "run", "--impl", fake("correct"),
                           "--corpus", str(corpus_dir), "-q", "-k", "small.alpha"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "runner imported at the start: False" in done.stdout


@pytest.mark.parametrize("problem", ["not a corpus", "a broken baseline"])
def test_an_input_error_stops_the_implementation_the_run_command_started_early(
        corpus_dir, fake, tmp_path, problem):
    marker = f"marker-{uuid.uuid4().hex}"
    args = ["run", "--impl", fake("correct", "--on", marker), "-q"]
    if problem == "not a corpus":
        args += ["--corpus", str(tmp_path)]
    else:
        baseline = tmp_path / "baseline.toml"
        baseline.write_text("[[known]\n")
        args += ["--corpus", str(corpus_dir), "--baseline", str(baseline)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert processes_naming(marker) == []
