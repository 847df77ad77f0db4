"""The pytest plugin, run with pytester against fake Python implementations: one that
replays the goldens (everything passes) and one with two bugs."""

from __future__ import annotations

import json

import pytest
import report_fakes

from conformance._paths import cache_root
from conformance.corpus.stages import DEFAULT_STAGES

pytest_plugins = ["pytester"]

CASES = ("traps.two-timestamps", "traps.two-timestamps-again")
#: Where the installed releases are (pytester's tests get a HOME of their own).
INSTALLED = cache_root()
#: One item per case and default stage.
ITEMS = len(CASES) * len(DEFAULT_STAGES)


@pytest.fixture
def setup(pytester, tmp_path, monkeypatch):
    corpus = report_fakes.make_corpus(tmp_path)
    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(corpus))
    pytester.makepyfile(test_own="def test_their_own_test():\n    assert True\n")
    return {"corpus": corpus, "replay": report_fakes.impl_file(tmp_path, "replay"),
            "wrong": report_fakes.impl_file(tmp_path, "wrong"), "dir": tmp_path}


def run(pytester, setup, fake, *args):
    return pytester.runpytest("--pi-impl", str(setup[fake]), "--pi-corpus",
                              str(setup["corpus"]), "-p", "no:cacheprovider", *args)


def test_without_pi_impl_the_plugin_adds_nothing(pytester, setup):
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_one_item_per_case_and_stage_with_readable_ids(pytester, setup):
    result = run(pytester, setup, "replay", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert "traps.two-timestamps::context" in ids
    assert "traps.two-timestamps-again::request.google-generative-ai" in ids
    assert len([i for i in ids if "test_own" not in i]) == ITEMS
    result.stdout.fnmatch_lines([f"{ITEMS + 1} tests collected*"])


def test_a_faithful_implementation_passes_everything(pytester, setup):
    result = run(pytester, setup, "replay")
    result.assert_outcomes(passed=ITEMS + 1)


def test_a_wrong_implementation_fails_with_the_readable_diff(pytester, setup):
    result = run(pytester, setup, "wrong")
    result.assert_outcomes(passed=ITEMS + 1 - 4, failed=4)
    result.stdout.fnmatch_lines([
        "*traps.two-timestamps [[]context[]] fail: 1 difference(s)",
        "*$.messages[[]1[]].timestamp (type changed)",
        "*expected: 1733234401000",
        '*actual:   "2024-12-03T14:00:01.000Z"',
    ])
    result.stdout.fnmatch_lines(
        ["*traps.two-timestamps [[]stats[]] error (implementation): stats: not implemented"])
    assert "Traceback" not in result.stdout.str()


def test_selection_by_case_glob_stage_and_keyword(pytester, setup):
    result = run(pytester, setup, "wrong", "--pi-case", "*-again", "--pi-stage", "context",
                 "--pi-stage", "llm")
    result.assert_outcomes(passed=2, failed=1)
    result = run(pytester, setup, "wrong", "-k", "two-timestamps-again and stats")
    result.assert_outcomes(failed=1)


def baseline(setup, entries):
    path = setup["dir"] / "baseline.toml"
    path.write_text("".join("[[known]]\n" + "".join(f"{k} = {json.dumps(v)}\n"
                                                    for k, v in e.items()) for e in entries))
    return str(path)


def test_known_failures_are_xfail_and_the_run_passes(pytester, setup):
    entries = [{"case": c, "stage": s, "reason": "not yet", "issue": "https://ex.org/1"}
               for c in CASES for s in ("context", "stats")]
    result = run(pytester, setup, "wrong", "--pi-baseline", baseline(setup, entries), "-rx")
    result.assert_outcomes(passed=ITEMS + 1 - 4 + 1, xfailed=4)  # + the baseline check item
    result.stdout.fnmatch_lines(["*known failure: not yet (https://ex.org/1)*"])
    assert result.ret == 0


def test_a_known_failure_that_passes_fails_strictly(pytester, setup):
    entries = [{"case": "traps.two-timestamps", "stage": "context", "reason": "was broken"}]
    result = run(pytester, setup, "replay", "--pi-baseline", baseline(setup, entries))
    result.assert_outcomes(passed=ITEMS + 1, failed=1)  # all stages but one, ours, the baseline
    result.stdout.fnmatch_lines(["*traps.two-timestamps::context*",
                                 "[[]XPASS(strict)[]] known failure: was broken"])


def test_a_baseline_entry_for_a_missing_case_fails_the_baseline_item(pytester, setup):
    entries = [{"case": "traps.gone", "stage": "context", "reason": "r"}]
    result = run(pytester, setup, "replay", "--pi-baseline", baseline(setup, entries))
    result.assert_outcomes(passed=ITEMS + 1, failed=1)
    result.stdout.fnmatch_lines(["*stale baseline entries:*", "*traps.gone context: no such case*"])


def test_stages_the_implementation_does_not_claim_are_skipped(pytester, setup, tmp_path):
    (tmp_path / "narrow.py").write_text(
        "from report_fakes import Replay, HELLO\n"
        "class Narrow(Replay):\n"
        "    def hello(self):\n"
        "        return {**HELLO, 'capabilities': {'stages': ['entries', 'context']}}\n"
        "narrow = Narrow()\n")
    impl = tmp_path / "narrow.toml"
    impl.write_text(f'kind = "python"\ncallable = "narrow:narrow"\ncwd = "{tmp_path}"\n'
                    f'env = {{ PYTHONPATH = "{report_fakes.TESTS}" }}\n')
    setup["narrow"] = impl
    result = run(pytester, setup, "narrow", "-rs")
    result.assert_outcomes(passed=5, skipped=ITEMS - 4)
    result.stdout.fnmatch_lines(["*stage not claimed*"])


def test_an_implementation_that_cannot_start_fails_each_item_once_clearly(pytester, setup):
    result = pytester.runpytest("--pi-impl", "process:/nonexistent/impl", "-p",
                                "no:cacheprovider", "--pi-case", "traps.two-timestamps",
                                "--pi-stage", "context")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*cannot start process:/nonexistent/impl*"])


def test_a_bad_corpus_or_baseline_is_a_usage_error(pytester, setup, tmp_path):
    result = pytester.runpytest("--pi-impl", "reference", "--pi-corpus", str(tmp_path / "no"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pi-conformance:*not a corpus*"])
    bad = tmp_path / "bad.toml"
    bad.write_text("[[known]]\ncase = 1\n")
    result = run(pytester, setup, "replay", "--pi-baseline", str(bad))
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_the_plugin_can_write_the_canonical_report(pytester, setup, tmp_path):
    from conformance.reporting.stream import read_report

    out = tmp_path / "plugin.jsonl"
    run(pytester, setup, "wrong", "--pi-report", str(out))
    report = read_report(out)
    assert len(report.results) == ITEMS and report.footer.counts["fail"] == 2
    assert report.implementation["name"] == "fake-port"


@pytest.mark.slow
def test_an_interrupted_session_marks_the_reports_footer(pytester, setup, tmp_path):
    from conformance.reporting.stream import read_report

    pytester.makepyfile(interrupter=(  # a plugin, since corpus items are not under a conftest
        "def pytest_runtest_teardown(item):\n"
        "    if item.nodeid.endswith('::context'):\n"
        "        raise KeyboardInterrupt\n"))
    out = tmp_path / "plugin.jsonl"
    result = pytester.runpytest_subprocess(  # in-process, the interrupt would reach us
        "--pi-impl", str(setup["replay"]), "--pi-corpus", str(setup["corpus"]),
        "-p", "no:cacheprovider", "--pi-report", str(out), "-p", "interrupter")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = read_report(out)
    assert report.interrupted and report.failed()
    assert 0 < len(report.results) < ITEMS


def test_stages_claimed_given_their_input_are_fed_inside_pytest_too(pytester, setup):
    import shlex
    import sys
    from pathlib import Path

    recorder = Path(__file__).resolve().parent / "fakes" / "input_recorder.py"
    record = setup["dir"] / "requests.jsonl"
    command = [sys.executable, str(recorder), str(setup["corpus"]), "--record", str(record),
               "--inputs", "prompt,request.openai-completions"]
    result = pytester.runpytest("--pi-impl", "process:" + shlex.join(command), "--pi-corpus",
                                str(setup["corpus"]), "-p", "no:cacheprovider",
                                "--pi-stage", "prompt", "--pi-stage", "context")
    result.assert_outcomes(passed=5)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert {tuple(sorted(line["inputs"])) for line in lines} == {("llm",)}


def test_pi_against_anything_but_a_release_of_pi_is_a_usage_error(pytester, setup):
    result = run(pytester, setup, "replay", "--pi-against", "ccusage-pi")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pi-conformance:*ccusage-pi*release of Pi*"])


@pytest.mark.slow
@pytest.mark.reference
def test_the_plugin_judges_against_the_release_asked_for_or_targeted(pytester, setup,
                                                                       tmp_path, monkeypatch):
    """``--pi-against pi@1.0.3``, or a hello that targets it: that release's answers judge,
    the report's header says so, and the session's summary says where the goldens came
    from."""
    from conformance.reporting.stream import read_report

    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(INSTALLED))  # pytester moved HOME
    for fake, extra in (("replay", ["--pi-against", "pi@1.0.3"]), ("targeting", [])):
        out = tmp_path / f"{fake}.jsonl"
        setup[fake] = report_fakes.impl_file(setup["dir"], fake)
        result = run(pytester, setup, fake, "--pi-case", "traps.two-timestamps",
                     "--pi-stage", "context", "--pi-report", str(out), *extra)
        result.stdout.fnmatch_lines(["*goldens for pi@1.0.3: *"])
        assert "judged against pi@1.0.3" in read_report(out).header.corpus.reference[0]
