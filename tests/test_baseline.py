"""Known failures: listed failures do not fail the run; new failures and stale entries do."""

from __future__ import annotations

import pytest

from conformance.errors import ConformanceError
from conformance.judging.baseline import Baseline, KnownFailure
from conformance.judging.results import BaselineMark, StageResult

GOOD = """
# known failures of the fake
[[known]]
case = "small.*"
stage = "context"
reason = "the port sorts messages by entry timestamp"
issue = "https://example.invalid/port/issues/12"

[[known]]
case = "small.beta"
stage = "stats"
reason = "costs are rounded"
"""


def test_load_reads_entries_with_globs_reasons_and_issues(tmp_path):
    path = tmp_path / "baseline.toml"
    path.write_text(GOOD)
    baseline = Baseline.load(path)
    assert baseline.entries == [
        KnownFailure("small.*", "context", "the port sorts messages by entry timestamp",
                     "https://example.invalid/port/issues/12"),
        KnownFailure("small.beta", "stats", "costs are rounded", ""),
    ]
    assert baseline.find("small.gamma", "context") is baseline.entries[0]
    assert baseline.find("small.gamma", "stats") is None


def test_a_known_failure_does_not_count_a_new_one_does_and_a_stale_entry_does():
    baseline = Baseline([KnownFailure("small.alpha", "context", "sorted by timestamp")])
    known = baseline.judge(StageResult("small.alpha", "context", "fail"))
    assert known.baseline == BaselineMark("known", "sorted by timestamp", "")
    assert not known.counts_as_failure
    new = baseline.judge(StageResult("small.alpha", "llm", "fail"))
    assert new.baseline is None and new.counts_as_failure
    stale = baseline.judge(StageResult("small.alpha", "context", "pass"))
    assert stale.baseline_state == "stale" and stale.counts_as_failure
    errored = baseline.judge(StageResult("small.alpha", "context", "error"))
    assert not errored.counts_as_failure
    for status in ("skip", "info", "as-documented"):
        other = baseline.judge(StageResult("small.alpha", "context", status))
        assert other.baseline is None and not other.counts_as_failure


def test_as_documented_never_counts_as_a_failure():
    assert not StageResult("a.b", "context", "as-documented").counts_as_failure
    assert not StageResult("a.b", "context", "as-documented").failing


@pytest.mark.parametrize(("text", "message"), [
    ('[[known]]\ncase = "a.b"\nstage = "context"\n', ":1: [[known]] entry 1 lacks reason"),
    ('[[known]]\ncase = "a.b"\nstage = "x"\nreason = "r"\n\n[[known]]\ncase = 1\n'
     'stage = "x"\nreason = "r"\n', ":6: [[known]] entry 2: case must be a string"),
    ('known = 3\n', "'known' must be an array of tables"),
    ('[[known]\n', ":1: not valid TOML"),
])
def test_a_malformed_baseline_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "baseline.toml"
    path.write_text(text)
    with pytest.raises(ConformanceError) as caught:
        Baseline.load(path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)
