"""The runner against fake implementations: none may crash it or lose a result it obtained."""

from __future__ import annotations

import time

import pytest
from helpers import EVERY_STAGE, drive, live_group_members, run_spec, runner_for, settled

from conformance.corpus.selection import Selection
from conformance.corpus.stages import DEFAULT_STAGES

ALL = {"small.alpha", "small.beta", "small.gamma", "small.delta"}


def test_a_correct_implementation_passes_every_stage_of_every_case(corpus, fake):
    outcome = run_spec(corpus, fake("correct"))
    assert len(outcome.by_key) == 4 * len(DEFAULT_STAGES)
    assert {r.status for r in outcome.results} == {"pass"}
    assert outcome.runner.restarts == 0


def test_wrong_stages_fail_with_their_json_paths_and_the_rest_pass(corpus, fake):
    outcome = run_spec(corpus, fake("wrong", "--stage", "context", "--stage", "stats"))
    failing = {(r.case, r.stage) for r in outcome.results if r.status == "fail"}
    assert failing == {(c, s) for c in ALL for s in ("context", "stats")}
    context = outcome.by_key[("small.alpha", "context")]
    assert [(d.path, d.expected, d.actual) for d in context.differences] == [
        ("$.messages[0].role", "system", "wrong-role")]
    stats = outcome.by_key[("small.alpha", "stats")]
    assert [(d.path, d.kind) for d in stats.differences] == [("$.unexpected", "unexpected key")]
    assert all(r.status == "pass" for r in outcome.results if r.stage not in ("context", "stats"))


def test_a_crash_is_an_error_for_its_case_only_and_the_process_is_restarted(corpus, fake):
    outcome = run_spec(corpus, fake("crashing", "--on", "small.beta"))
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "crash")}
    assert "exit code 3" in beta[0].message
    assert "fake: crashing on small.beta" in beta[0].message  # stderr is kept for people
    assert outcome.statuses("small.alpha") == outcome.statuses("small.gamma") == {"pass"}
    assert outcome.statuses("small.delta") == {"pass"}
    assert outcome.runner.restarts == 1
    assert outcome.implementations[0].restarts == 1


def test_a_hung_process_is_killed_within_the_timeout_with_its_children(corpus, fake):
    spec = fake("hanging", "--on", "small.beta")
    pids = []
    from conformance.implementations.transports import PersistentImplementation

    original = PersistentImplementation.run

    def spy(self, request, timeout):
        pids.append(self.connection.pid)
        return original(self, request, timeout)

    PersistentImplementation.run = spy
    try:
        started = time.monotonic()
        outcome = run_spec(corpus, spec, timeout=1.0)
        elapsed = time.monotonic() - started
    finally:
        PersistentImplementation.run = original
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "timeout")}
    assert "no answer within 1s" in beta[0].message
    # It waited the timeout, then stopped waiting: the fake and its child sleep for an hour,
    # so a runner that waited for them would take that long (the bounds are that, not speed).
    assert 1.0 <= sum(r.duration for r in beta) < 60
    assert elapsed < 120
    assert outcome.statuses("small.gamma") == outcome.statuses("small.delta") == {"pass"}
    hung = pids[1]  # alpha and beta ran on the first process
    assert settled(lambda: live_group_members(hung)) == []  # the sleeping child included



def test_garbage_on_stdout_is_a_protocol_error_and_the_run_goes_on(corpus, fake):
    outcome = run_spec(corpus, fake("garbage", "--on", "small.beta"))
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "protocol")}
    assert "answer is not JSON" in beta[0].message and "Loading session" in beta[0].message
    assert outcome.statuses("small.gamma") == outcome.statuses("small.delta") == {"pass"}
    assert outcome.runner.restarts == 1


def test_an_answer_out_of_order_is_a_protocol_error_and_forces_a_restart(corpus, fake):
    outcome = run_spec(corpus, fake("out_of_order", "--on", "small.beta"))
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "protocol")}
    # Requests are numbered from 1 (docs/protocol.md): alpha is 1, beta 2, answered with 1, a
    # second answer to alpha's request, which is blamed for it (tests/hostile/
    # test_protocol_blame.py); beta is asked again (3) on a fresh process, which answers -1.
    alpha = outcome.of("small.alpha")
    assert {(r.status, r.error_kind) for r in alpha} == {("error", "protocol")}
    assert "answer out of order: expected seq 2, got 1" in alpha[0].message
    assert "answer out of order: expected seq 3, got -1" in beta[0].message
    assert outcome.statuses("small.gamma") == outcome.statuses("small.delta") == {"pass"}
    assert outcome.runner.restarts == 2


@pytest.mark.parametrize("lines", [False, True], ids=["one-line", "many-lines"])
def test_a_100_megabyte_flood_is_an_error_for_its_case_only(corpus, fake, lines):
    args = ["--on", "small.beta"] + (["--lines"] if lines else [])
    outcome = run_spec(corpus, fake("flood", *args), timeout=20)
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", "protocol")}
    expected = "answer is not JSON" if lines else "answer line exceeds the runner's limit of 64 MiB"
    assert expected in beta[0].message
    assert outcome.statuses("small.alpha") == outcome.statuses("small.gamma") == {"pass"}


def test_an_implementation_that_exits_mid_run_is_restarted_each_time(corpus, fake):
    outcome = run_spec(corpus, fake("exits_mid_run", "--after", "1"))
    # Cases run in id order: alpha, beta, delta, gamma.
    assert outcome.statuses("small.alpha") == outcome.statuses("small.delta") == {"pass"}
    for case in ("small.beta", "small.gamma"):
        results = outcome.of(case)
        assert {(r.status, r.error_kind) for r in results} == {("error", "crash")}
        assert "exited in the middle of an answer" in results[0].message
    assert outcome.runner.restarts == 1  # after beta; gamma is the last case: no restart


def test_no_restart_after_the_last_case(corpus, fake):
    outcome = run_spec(corpus, fake("crashing", "--on", "small.gamma"))
    assert {r.error_kind for r in outcome.of("small.gamma")} == {"crash"}
    assert outcome.runner.restarts == 0


def test_after_the_restart_cap_the_rest_is_reported_not_run_never_dropped(corpus, fake):
    spec = fake("crashing", *[a for c in sorted(ALL) for a in ("--on", c)])
    outcome = run_spec(corpus, spec, max_restarts=1)
    assert len(outcome.by_key) == 4 * len(DEFAULT_STAGES)  # one result per planned stage
    kinds = {case: {r.error_kind for r in outcome.of(case)} for case in ALL}
    assert kinds == {"small.alpha": {"crash"}, "small.beta": {"crash"},
                     "small.delta": {"not-run"}, "small.gamma": {"not-run"}}  # id order
    message = outcome.of("small.gamma")[0].message
    assert message.startswith("not run: gave up after 1 restart(s)")
    assert outcome.runner.restarts == 1


def test_parallel_workers_each_get_a_process_and_share_the_restart_cap(corpus, fake):
    outcome = run_spec(corpus, fake("crashing", "--on", "small.beta"), jobs=3)
    assert len(outcome.by_key) == 4 * len(DEFAULT_STAGES)
    assert {r.error_kind for r in outcome.of("small.beta")} == {"crash"}
    assert {r.status for r in outcome.results if r.case != "small.beta"} == {"pass"}
    # a restart only when some case was still waiting when beta crashed
    assert outcome.runner.restarts in (0, 1)
    pids = {impl.connection.pid for impl in outcome.implementations if impl.connection}
    assert len(pids) in (0, 3)  # closed after the run; three processes while it ran


def test_parallel_workers_get_the_whole_corpus_done(corpus, fake):
    outcome = run_spec(corpus, fake("correct"), jobs=4)
    assert len(outcome.by_key) == 4 * len(DEFAULT_STAGES)
    assert {r.status for r in outcome.results} == {"pass"}


def test_unclaimed_stages_and_features_are_skipped_not_failed(corpus, fake):
    outcome = run_spec(corpus, fake("correct", "--claim-stages", "context,llm"))
    assert {r.stage for r in outcome.results if r.status == "pass"} == {"context", "llm"}
    skipped = [r for r in outcome.results if r.status == "skip"]
    assert len(skipped) == 4 * (len(DEFAULT_STAGES) - 2)
    assert {r.message for r in skipped} == {"stage not claimed"}
    outcome = run_spec(corpus, fake("correct", "--claim-features", "branching"))
    assert {r.status for r in outcome.results} == {"skip"}
    assert {r.message for r in outcome.results} == {"feature(s) not claimed: timestamps"}


def test_stage_and_api_filters_add_up(corpus, fake):
    outcome = run_spec(corpus, fake("correct"), selection=Selection(
        stages=("context",), apis=("openai-responses",)))
    assert {r.stage for r in outcome.results} == {"context", "request.openai-responses",
                                                  "wire.openai-responses"}
    outcome = run_spec(corpus, fake("correct"), selection=Selection(apis=("anthropic-messages",)))
    assert {r.stage for r in outcome.results} == {"request.anthropic-messages",
                                                  "wire.anthropic-messages"}
    assert len(outcome.results) == 8


def test_protocol_validation_catches_what_the_lenient_path_tolerates(corpus, fake):
    lenient = run_spec(corpus, fake("sloppy"))
    assert {r.status for r in lenient.results} == {"pass"}
    strict = run_spec(corpus, fake("sloppy"), validate_protocol=True)
    assert {(r.status, r.error_kind) for r in strict.results} == {("error", "protocol")}
    message = strict.results[0].message
    assert "Additional properties are not allowed ('debug' was unexpected)" in message
    assert ("run-response $.results.not-a-stage: a result for a stage that was not asked for"
            in message)
    assert strict.runner.restarts == 0  # still in step: no reason to restart
    correct = run_spec(corpus, fake("correct"), validate_protocol=True)
    assert {r.status for r in correct.results} == {"pass"}


def test_a_runner_bug_in_one_stage_is_a_harness_error_and_loses_nothing(corpus, fake,
                                                                         monkeypatch):
    from conformance.judging import judge as judge_module

    real = judge_module.identical

    def broken(expected, actual):
        if isinstance(expected, dict) and "leafId" in expected:  # the branch stage
            raise RuntimeError("boom")
        return real(expected, actual)

    monkeypatch.setattr(judge_module, "identical", broken)
    outcome = run_spec(corpus, fake("correct"))
    assert len(outcome.by_key) == 4 * len(DEFAULT_STAGES)
    branch = [r for r in outcome.results if r.stage == "branch"]
    assert {(r.status, r.error_kind) for r in branch} == {("error", "harness")}
    assert "RuntimeError('boom')" in branch[0].message
    assert {r.status for r in outcome.results if r.stage != "branch"} == {"pass"}


@pytest.mark.parametrize("target", ["callable_impl:run", "callable_impl:implementation"])
def test_a_python_callable_passes_in_both_forms(corpus, callable_env, target):
    callable_env("correct")
    outcome = run_spec(corpus, f"python:{target}")
    assert {r.status for r in outcome.results} == {"pass"}


@pytest.mark.parametrize(("mode", "kind", "text"), [
    ("raise", "implementation", "ValueError: the fake was told to fail here"),
    ("unserialisable", "implementation", "returned a result that is not JSON"),
    ("exit", "crash", "exit code 7"),
])
def test_a_failing_python_callable_cannot_take_the_runner_down(corpus, callable_env, mode,
                                                               kind, text):
    callable_env(mode, on="small.beta")
    outcome = run_spec(corpus, "python:callable_impl:run")
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", kind)}
    assert text in beta[0].message
    assert {r.status for r in outcome.results if r.case != "small.beta"} == {"pass"}
    assert outcome.runner.restarts == (1 if kind == "crash" else 0)


def test_a_python_callable_that_prints_cannot_corrupt_its_answers(corpus, callable_env):
    callable_env("print", on="small.beta")
    outcome = run_spec(corpus, "python:callable_impl:run")
    assert {r.status for r in outcome.results} == {"pass"}


def test_a_one_shot_implementation_passes(corpus, fake):
    outcome = run_spec(corpus, fake("oneshot", kind="oneshot"))
    assert {r.status for r in outcome.results} == {"pass"}


@pytest.mark.parametrize(("mode", "kind", "text"), [
    ("crash", "crash", "exit code 3"),
    ("hang", "timeout", "no answer within 1s"),
    ("garbage", "protocol", "answer is not JSON"),
])
def test_a_failing_one_shot_case_is_an_error_for_that_case_alone(corpus, fake, mode, kind, text):
    outcome = run_spec(corpus, fake("oneshot", "--on", "small.beta", "--mode", mode,
                                    kind="oneshot"), timeout=1.0, max_restarts=0)
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("error", kind)}
    assert text in beta[0].message
    # One process per case: nothing to restart, so a cap of 0 abandons nothing.
    assert {r.status for r in outcome.results if r.case != "small.beta"} == {"pass"}


def test_hanging_where_pi_itself_misbehaves_is_info_and_spends_no_restart(corpus_dir, fake,
                                                                         monkeypatch):
    from conformance.corpus.cases import Corpus
    from conformance.execution import runner as runner_module

    # The timeouts leave the passing cases time to answer on a loaded machine; the two that
    # hang do so for an hour, so which timeout each got is read from its message.
    monkeypatch.setattr(runner_module, "MISBEHAVING_TIMEOUT", 1.0)
    meta = corpus_dir / "cases" / "small" / "beta" / "case.toml"
    meta.write_text(meta.read_text() + 'outcome = "reference-misbehaves"\n' + EVERY_STAGE)
    spec = fake("hanging", "--on", "small.beta", "--on", "small.gamma")
    started = time.monotonic()
    outcome = run_spec(Corpus(corpus_dir), spec, timeout=6.0, max_restarts=0)
    beta = outcome.of("small.beta")
    assert {(r.status, r.error_kind) for r in beta} == {("info", "timeout")}
    assert "no answer within 1s" in beta[0].message
    # Run in id order: alpha, beta, delta, gamma. With a cap of 0, delta only runs because
    # the restart after beta was free.
    assert outcome.statuses("small.alpha") == outcome.statuses("small.delta") == {"pass"}
    gamma = outcome.of("small.gamma")  # a required case: an error, and no restart left
    assert {(r.status, r.error_kind) for r in gamma} == {("error", "timeout")}
    assert "no answer within 6s" in gamma[0].message  # the required case gets the full timeout
    assert outcome.runner.restarts == 1
    assert time.monotonic() - started < 120  # not the hour the fake hangs


def test_a_crash_on_the_last_case_is_restarted_when_the_next_run_brings_a_case(corpus, fake):
    from conformance.implementations.specs import resolve
    runner = runner_for(corpus, timeout=10)
    impl = resolve(fake("crashing", "--on", "small.alpha"))
    impl.start()
    try:
        first, second = [], []
        drive(runner, [impl], corpus.select(["small.alpha"]), first.append)
        assert runner.restarts == 0  # nothing left to run: no restart
        drive(runner, [impl], corpus.select(["small.beta"]), second.append)
        assert {r.status for r in second} == {"pass"} and runner.restarts == 1
    finally:
        impl.close()


def test_a_bug_of_ours_costs_one_case_and_the_run_goes_on(corpus, fake, monkeypatch):
    from conformance.execution.runner import Runner
    from conformance.implementations.specs import resolve

    real = Runner._run_case

    def broken(self, impl, item, **kwargs):
        if item.case.id == "small.beta":
            raise KeyError("planted")
        return real(self, impl, item, **kwargs)

    monkeypatch.setattr(Runner, "_run_case", broken)
    impl = resolve(fake("correct"))
    results = []
    with impl:
        drive(runner_for(corpus, timeout=10), [impl], corpus.cases, results.append)
    beta = [r for r in results if r.case == "small.beta"]
    assert beta and {(r.status, r.error_kind) for r in beta} == {("error", "harness")}
    assert "runner error: KeyError('planted')" in beta[0].message
    assert {r.status for r in results if r.case != "small.beta"} == {"pass"}


def test_the_next_case_is_asked_while_the_last_answer_is_judged(corpus, fake, monkeypatch):
    """Judging is ours and asking waits on the implementation: one overlaps the other, so a
    run with one worker keeps the implementation busy instead of idle while we judge."""
    import threading

    from conformance.execution import runner
    from conformance.implementations.specs import resolve

    asked: set[str] = set()
    next_asked = threading.Event()
    overlapped: list[bool] = []
    real_judge = runner.judge

    def slow_judge(case, stage, *args, **kwargs):
        if case.id == "small.alpha" and not overlapped:
            overlapped.append(next_asked.wait(timeout=10))
        return real_judge(case, stage, *args, **kwargs)

    monkeypatch.setattr(runner, "judge", slow_judge)
    impl = resolve(fake("correct"))
    results = []
    with impl:
        real_run = impl.run

        def run(request, timeout):
            asked.add(request["case"]["id"])
            if len(asked) > 1:
                next_asked.set()
            return real_run(request, timeout)

        impl.run = run
        drive(runner_for(corpus, timeout=10), [impl], corpus.cases, results.append)
    assert overlapped == [True]
    assert len(results) == 4 * len(DEFAULT_STAGES)
    assert {r.status for r in results} == {"pass"}


def test_a_failure_to_emit_ends_the_run_with_that_error_and_no_worker_waits(corpus, fake):
    from conformance.implementations.specs import resolve
    emitted = []

    def emit(result):
        if len(emitted) == 3:
            raise OSError("no space left on device")
        emitted.append(result)

    impl = resolve(fake("correct"))
    asked = []
    with impl, pytest.raises(OSError, match="no space left"):
        real_run = impl.run
        impl.run = lambda request, timeout: (asked.append(request["seq"]),
                                             real_run(request, timeout))[1]
        drive(runner_for(corpus, timeout=10), [impl], corpus.cases, emit)
    assert len(emitted) == 3
    assert len(asked) < len(corpus.cases)  # it stopped asking
