"""docs/sharding.md's GitHub Actions example works: its shard and merge steps, run here as
the matrix would run them (the adapter swapped for a fake), give the unsharded run's results."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conformance.reporting.stream import read_report

DOC = Path(__file__).resolve().parent.parent / "docs" / "sharding.md"


def workflow() -> dict:
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(), re.S)
    assert block, "docs/sharding.md has a yaml block"
    return yaml.safe_load(block.group(1))


def step(job: dict, name: str) -> str:
    return next(s["run"] for s in job["steps"] if s.get("name", "").startswith(name))


def bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_STEP_SUMMARY": str(cwd / "summary.md")}
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True)


@pytest.mark.slow
def test_the_matrix_shards_upload_and_merge(tmp_path, corpus_dir, fake):
    jobs = workflow()["jobs"]
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    run_step = step(jobs["shard"], "Run shard")
    count = int(re.search(r"--shard \$\{\{ matrix.shard \}\}/(\d+)", run_step).group(1))
    assert shards == list(range(1, count + 1))
    assert jobs["merge"]["needs"] == "shard"
    upload = next(s for s in jobs["shard"]["steps"] if "upload-artifact" in s.get("uses", ""))
    download = next(s for s in jobs["merge"]["steps"]
                    if "download-artifact" in s.get("uses", ""))
    assert download["with"]["pattern"].rstrip("*") in upload["with"]["name"]

    spec = fake("wrong", "--stage", "context", "--on", "small.beta")
    adapter = shlex.quote(spec) + " --corpus " + shlex.quote(str(corpus_dir))
    for shard in shards:  # each matrix entry, on its own "machine", into the shared folder
        script = run_step.replace("${{ matrix.shard }}", str(shard)) \
            .replace("'process:./my-adapter'", adapter)
        done = bash(script, tmp_path)
        assert done.returncode == 0, done.stderr
    merged = bash(step(jobs["merge"], "Merge the shards"), tmp_path)
    assert merged.returncode == 0, merged.stderr
    assert bash(step(jobs["merge"], "Render"), tmp_path).returncode == 0
    assert (tmp_path / "junit.xml").is_file() and (tmp_path / "summary.md").read_text()
    assert bash(step(jobs["merge"], "Fail on failures"), tmp_path).returncode == 1

    whole = tmp_path / "whole.jsonl"
    subprocess.run([sys.executable, "-m", "conformance.cli.main", "run", "--impl", spec,
                    "--corpus", str(corpus_dir), "--report", str(whole), "-q", "--format",
                    "json"], capture_output=True, check=False)
    key = [(r.case, r.stage, r.status) for r in read_report(whole).sorted_results()]
    assert [(r.case, r.stage, r.status)
            for r in read_report(tmp_path / "run.jsonl").results] == key
    assert any(status == "fail" for *_, status in key)


@pytest.mark.slow
@pytest.mark.reference
def test_the_install_steps_install_pi_conformance_from_the_repository(tmp_path):
    """Step by step, as a runner would: a fresh virtual environment (actions/setup-python),
    PI_CONFORMANCE naming this repository, then each job's install step as written."""
    flow = workflow()
    assert flow["env"]["PI_CONFORMANCE"] == "${{ vars.PI_CONFORMANCE }}"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "VIRTUAL_ENV": str(venv), "PI_CONFORMANCE": str(DOC.parent.parent),
           "PYTHONPATH": ""}
    steps = [step(flow["jobs"]["shard"], "Install pi-conformance and the reference"),
             step(flow["jobs"]["merge"], "Install pi-conformance")]
    for script in steps:
        done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    installed = subprocess.run([str(venv / "bin" / "pi-conformance"), "--version"],
                               capture_output=True, text=True, check=True)
    assert "pi-conformance" in installed.stdout
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import conformance; print(conformance.__file__)"],
                           capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    assert where.stdout.startswith(str(venv))  # installed from the repository, not this one
