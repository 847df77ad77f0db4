"""``pi-conformance corpus discrepancies`` end to end: reports in, drafts and a valid index out."""

from __future__ import annotations

import json
import re
import shutil

import jsonschema
import pytest
from click.testing import CliRunner

from conformance._paths import SCHEMA_DIR, corpus_root
from conformance.cli.main import main
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies.build import merge_same_reproduction


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A corpus copy and a report of the buggy fake port, made by a real run."""
    root = tmp_path_factory.mktemp("ws")
    shutil.copytree(corpus_root(), root / "corpus")
    # The planted bug is the docs' reading of these cases (pi-contradicts-docs), which a run
    # reports as-documented, never as a failure to draft: judged as required here, they fail
    # like any wrong answer, which is what the drafting machinery needs to be tested on.
    for meta in (root / "corpus" / "cases" / "discrepancy").glob("*/case.toml"):
        required = re.sub(r'^(outcome|discrepancy) = .*\n', "", meta.read_text(), flags=re.M)
        meta.write_text(re.sub(r'^\[scope\]\n(?:[^\[\n].*\n?)*', "", required, flags=re.M))
    (root / "reports").mkdir()
    result = CliRunner().invoke(main, [
        "run", "--impl", "python:tests.fake_branch_impl:buggy", "--corpus", str(root / "corpus"),
        "-k", "discrepancy.*", "--stage", "branch", "-q",
        "--report", str(root / "reports" / "fake.jsonl")])
    assert result.exit_code == 1, result.output  # the planted bug fails some cases
    return root


def run(workspace, *extra):
    return CliRunner().invoke(main, [
        "corpus", "discrepancies", "--corpus", str(workspace / "corpus"),
        "--reports", str(workspace / "reports"),
        "--out", str(workspace / "reports" / "discrepancies"), *extra])


@pytest.mark.slow
@pytest.mark.reference
def test_drafts_for_pi_and_for_the_port_with_a_valid_index(workspace):
    result = run(workspace)
    assert result.exit_code == 0, result.output
    out = workspace / "reports" / "discrepancies"
    index = json.loads((out / "index.json").read_text())
    schema = json.loads((SCHEMA_DIR / "discrepancies.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(index)
    by_target = {}
    for entry in index["discrepancies"]:
        by_target.setdefault(entry["target"], []).append(entry)
        draft = (out / entry["draft"]).read_text()
        for heading in ("## Reproducer", "## Reproduce", "Expected"):
            assert heading in draft, (entry["id"], heading)
        assert entry["reproducer"]["session"] in draft
    assert len(by_target["pi"]) >= 9
    port = by_target["fake-branch"]
    # Three cases fail because the port picks the last message as the leaf: one root cause
    # (after shrinking), plus the non-object line, where the port differs in another way.
    leaf = [e for e in port if "discrepancy.leaf-is-last-line" in e["cases"]]
    assert len(leaf) == 1 and len(leaf[0]["cases"]) >= 2
    for entry in port:
        repro = entry["reproducer"]
        assert repro["shrunk"] and repro["verified"]
        assert repro["lines"] <= 3, repro["session"]  # header + at most two entries
        assert (out / entry["draft"]).with_suffix(".jsonl").read_text() == repro["session"]
    assert "fake-branch" in (out / "README.md").read_text()


@pytest.mark.reference
def test_a_second_run_reuses_reproducers_and_changes_nothing(workspace):
    out = workspace / "reports" / "discrepancies"
    if not out.exists():  # this test may run first, or alone (pytest -n, -k)
        assert run(workspace).exit_code == 0
    before = {p: p.read_text() for p in out.rglob("*") if p.is_file()}
    result = run(workspace)
    assert result.exit_code == 0, result.output
    assert "shrinking" not in result.output
    assert {p: p.read_text() for p in out.rglob("*") if p.is_file()} == before


@pytest.mark.slow
@pytest.mark.reference
def test_verify_passes_while_everything_reproduces(workspace):
    result = run(workspace, "--verify")
    assert result.exit_code == 0, result.output


@pytest.mark.slow
@pytest.mark.reference
def test_verify_fails_and_marks_resolved_when_the_port_is_fixed(workspace):
    out = workspace / "reports" / "discrepancies"
    result = run(workspace, "--verify", "--impl",
                 "fake-branch=python:tests.fake_branch_impl:faithful")
    assert result.exit_code == 1, result.output
    assert "no longer reproduces" in result.output
    index = json.loads((out / "index.json").read_text())
    port = [e for e in index["discrepancies"] if e["target"] == "fake-branch"]
    (leaf,) = [e for e in port if "discrepancy.leaf-is-last-line" in e["cases"]]
    assert (leaf["status"], leaf["resolved_in"]) == ("resolved", "0.1.0")
    assert "resolved in 0.1.0" in (out / leaf["draft"]).read_text()
    # The faithful port still skips a non-object line where Pi makes it the leaf.
    assert all(e["status"] == "open" for e in port if e is not leaf)


@pytest.mark.slow
@pytest.mark.reference
def test_verify_fails_when_a_record_no_longer_holds(workspace):
    record = workspace / "corpus" / "discrepancies" / "leaf-is-last-line.toml"
    original = record.read_text()
    record.write_text(original.replace('doc_value = "k3"', 'doc_value = "l1"'))
    try:
        result = run(workspace, "--verify")
        assert result.exit_code == 1
        assert "leaf-is-last-line: no longer reproduces: resolved by behaviour" in result.output
    finally:
        record.write_text(original)


def test_a_bad_impl_option_is_a_clear_error(tmp_path):
    (tmp_path / "reports").mkdir()  # refused before any report or corpus file is read
    result = CliRunner().invoke(main, [
        "corpus", "discrepancies", "--corpus", str(corpus_root()),
        "--reports", str(tmp_path / "reports"), "--out", str(tmp_path / "out"),
        "--impl", "nospec"])
    assert result.exit_code == 2
    assert "NAME=SPEC" in result.output


def test_merge_keeps_the_smallest_reproducer_and_unites_cases():
    def entry(name, lines, cases):
        return {"id": name, "key": name, "stages": ["branch"], "status": "open", "cases": cases,
                "package": {"versions": ["1.0"]},
                "reproducer": {"lines": lines, "signature": [["$.leafId", "changed"]]}}
    merged = merge_same_reproduction([entry("big", 5, ["a"]), entry("small", 2, ["b", "c"])])
    assert [m["id"] for m in merged] == ["small"]
    assert merged[0]["cases"] == ["a", "b", "c"] and merged[0]["merged_keys"] == ["big"]
    assert merged[0]["merged"][0]["reproducer"]["lines"] == 5


def test_older_pi_releases_are_recognised_by_package_or_dependency():
    from conformance.maintenance.discrepancies.build import is_older_pi
    from conformance.maintenance.discrepancies.grouping import Target

    def target(name, version, deps=None):
        t = Target(key="t", name=name, versions=[version])
        t.implementations[version] = {"name": name, "version": version,
                                      "dependencies": deps or {}}
        return t

    assert is_older_pi(target("@earendil-works/pi-coding-agent", "1.0.3"), "1.6.0")
    assert is_older_pi(target("@mariozechner/pi-coding-agent", "0.73.1"), "1.6.0")
    assert is_older_pi(target("wrapper", "2.0.0", {"@earendil-works/pi-coding-agent": "1.0.3"}),
                       "1.6.0") is False  # its own version is not Pi's
    assert not is_older_pi(target("pi-ai-python", "1.6.0"), "1.6.0")
    assert not is_older_pi(target("@earendil-works/pi-coding-agent", "1.7.0"), "1.6.0")


def test_older_pi_releases_in_the_reports_say_whether_a_record_is_theirs_too():
    from conformance.corpus.cases import Corpus
    from conformance.maintenance.discrepancies import records
    from conformance.maintenance.discrepancies.build import _add_older_releases
    from conformance.maintenance.discrepancies.grouping import Target

    record = next(r for r in records.load_records(Corpus()) if r.id == "leaf-is-last-line")
    key = (record.check["case"], record.check["stage"])

    def target(name, version, status):
        t = Target(key=name, name=name, versions=[version])
        t.results[version] = {key: StageResult(key[0], key[1], status)}
        return t

    entry = {"package": {"versions": ["1.6.0"]}, "notes": []}
    _add_older_releases(entry, record, [
        target("@earendil-works/pi-coding-agent", "1.0.3", "pass"),
        target("@mariozechner/pi-coding-agent", "0.73.1", "fail")])
    assert entry["package"]["versions"] == ["1.0.3", "1.6.0"]
    assert entry["notes"] == [
        "@earendil-works/pi-coding-agent 1.0.3 behaves the same (matrix report).",
        "@mariozechner/pi-coding-agent 0.73.1 behaves differently here (matrix report: fail)."]
