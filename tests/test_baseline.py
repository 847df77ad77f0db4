"""Known failures: listed failures do not fail the run; new failures and stale entries do."""

from __future__ import annotations

import pytest

from conformance.errors import ConformanceError
from conformance.judging.baseline import Baseline, KnownFailure, counts_as_failure

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


def line(case: str, stage: str, status: str) -> dict:
    return {"case": case, "stage": stage, "status": status}


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
    known = line("small.alpha", "context", "fail")
    baseline.judge(known)
    assert known["baseline"] == {"state": "known", "reason": "sorted by timestamp", "issue": ""}
    assert not counts_as_failure(known)
    new = line("small.alpha", "llm", "fail")
    baseline.judge(new)
    assert "baseline" not in new and counts_as_failure(new)
    stale = line("small.alpha", "context", "pass")
    baseline.judge(stale)
    assert stale["baseline"]["state"] == "stale" and counts_as_failure(stale)
    errored = line("small.alpha", "context", "error")
    baseline.judge(errored)
    assert not counts_as_failure(errored)
    skipped = line("small.alpha", "context", "skip")
    baseline.judge(skipped)
    assert "baseline" not in skipped and not counts_as_failure(skipped)


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
