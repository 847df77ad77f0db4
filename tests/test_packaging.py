"""The wheel carries the corpus, the schemas and the reference harness, so an installed
pi-conformance works outside this repository."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(ROOT)], check=True, capture_output=True)
    (wheel,) = out.glob("pi_conformance-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_every_corpus_file_is_in_the_wheel(wheel_names):
    tracked = subprocess.run(["git", "ls-files", "corpus"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked, "the corpus is not tracked by git"
    missing = [p for p in tracked if "conformance/_corpus/" + p[len("corpus/"):] not in wheel_names]
    assert missing == []


def test_reference_and_schemas_are_in_the_wheel(wheel_names):
    reference = "conformance/implementations/reference"
    for name in (f"{reference}/harness.mjs", f"{reference}/package-lock.json",
                 f"{reference}/package.json", f"{reference}/models.mjs",
                 "conformance/schemas/case.schema.json",
                 "conformance/schemas/protocol/run-response.json"):
        assert name in wheel_names
    assert not any("node_modules" in name for name in wheel_names)
