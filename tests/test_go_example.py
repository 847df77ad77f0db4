"""The worked example of docs/adapters.md: a Go adapter, built and scored for real.

Needs the Go toolchain (Debian: golang-go; .ci/run installs it). Outside CI the test is
skipped without Go; in CI a missing Go is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import RunRequest, execute

from conformance.corpus.cases import Corpus

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "go-adapter"
ADAPTERS_DOC = ROOT / "docs" / "adapters.md"


def documented_score() -> dict[str, int]:
    """The figures docs/adapters.md ("Reading the result") gives for the example's run."""
    text = " ".join(ADAPTERS_DOC.read_text(encoding="utf-8").split())
    found = re.search(r"On the corpus it passes ([\d,]+) of the ([\d,]+) results that can fail"
                      r".*?are ([\d,]+) skips .*?, ([\d,]+) info .*? and ([\d,]+) as-documented",
                      text)
    assert found, "docs/adapters.md no longer states the Go example's score in the known words"
    passed, can_fail, skip, info, documented = (int(n.replace(",", "")) for n in found.groups())
    return {"pass": passed, "fail": can_fail - passed, "skip": skip, "info": info,
            "as-documented": documented}


@pytest.fixture(scope="module")
def adapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    go = shutil.which("go")
    if go is None:
        if os.environ.get("CI"):
            pytest.fail("Go is not installed; .ci/run installs golang-go")
        pytest.skip("Go is not installed (apt-get install golang-go)")
    binary = tmp_path_factory.mktemp("go") / "pi-go-adapter"
    built = subprocess.run([go, "build", "-o", str(binary), "."], cwd=EXAMPLE,
                           capture_output=True, text=True, env={**os.environ, "GOFLAGS": ""})
    assert built.returncode == 0, built.stderr
    return binary


def test_the_go_example_is_gofmt_clean(adapter: Path) -> None:
    gofmt = shutil.which("gofmt") or str(Path(shutil.which("go")).parent / "gofmt")
    listed = subprocess.run([gofmt, "-l", "."], cwd=EXAMPLE, capture_output=True, text=True)
    assert listed.stdout == ""


def test_the_go_example_scores_on_the_corpus(adapter: Path) -> None:
    outcome = execute(RunRequest(corpus=Corpus(), impl_spec=f"process:{adapter}",
                                 validate_protocol=True))
    report = outcome.report
    assert report.implementation["language"] == "go"
    assert report.header.capabilities["stages"] == ["branch", "stats"]
    by_key = {(r.case, r.stage): r for r in report.results}
    assert by_key[("traps.two-timestamps", "branch")].status == "pass"
    assert by_key[("traps.two-timestamps", "stats")].status == "pass"
    # Everything it does not claim is skipped, and it never crashes or breaks the protocol.
    assert {r.status for r in report.results if r.stage not in ("branch", "stats")} \
        == {"skip"}
    assert not [r for r in report.results if r.status == "error"]
    # docs/adapters.md states this run's score; it is measured here, not run a second time.
    claimed = [r.status for r in report.results if r.stage in ("branch", "stats")]
    measured = {status: claimed.count(status) for status in documented_score()}
    assert measured == documented_score(), "docs/adapters.md's figures for the Go example"
    assert len(claimed) == sum(measured.values())  # no other status the doc leaves out


def test_the_documented_go_score_is_readable() -> None:
    """Without Go, at least the figures the slow test checks can still be found in the doc."""
    score = documented_score()
    assert score["pass"] > 0 and score["fail"] >= 0
