"""The wheel carries the corpus, the schemas and the reference harness, so an installed
pi-conformance works outside this repository; it says it is typed and POSIX-only; tox and CI
run what the README says."""

from __future__ import annotations

import configparser
import email
import subprocess
import sys
import tomllib
import zipfile
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHONS = ("3.11", "3.12", "3.13")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel as pyproject.toml's build backend builds it, called as pip calls it without
    build isolation (the same wheel, without pip's own second of start-up)."""
    out = tmp_path_factory.mktemp("wheel")
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    module = backend["build-backend"]
    subprocess.run([sys.executable, "-c", f"import sys, {module}; "
                    f"{module}.build_wheel(sys.argv[1])", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    (path,) = out.glob("pi_conformance-*.whl")
    with zipfile.ZipFile(path) as archive:
        yield archive


@pytest.fixture(scope="module")
def wheel_names(wheel) -> set[str]:
    return set(wheel.namelist())


@pytest.fixture(scope="module")
def metadata(wheel) -> Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(wheel.read(name))


def readme_commands() -> list[str]:
    """The commands of the README's first code block (install and run; install and test)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


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


def test_both_packages_are_typed_in_the_wheel(wheel_names, metadata):
    assert {"conformance/py.typed", "strategies/py.typed"} <= wheel_names
    assert "Typing :: Typed" in metadata.get_all("Classifier")


def test_the_supported_pythons_and_posix_only_are_declared(metadata):
    classifiers = metadata.get_all("Classifier")
    for version in PYTHONS:
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert metadata["Requires-Python"] == f">={PYTHONS[0]}"
    assert "Operating System :: POSIX" in classifiers
    assert not any(c.startswith("Operating System ::") and c != "Operating System :: POSIX"
                   for c in classifiers)
    assert "POSIX systems only" in (ROOT / "README.md").read_text()


def test_the_test_extra_brings_pytest_xdist(metadata):
    test_extra = [r for r in metadata.get_all("Requires-Dist")
                  if r.replace('"', "'").endswith("extra == 'test'")]
    assert any(r.startswith("pytest-xdist") for r in test_extra), test_extra


def test_tox_runs_the_suite_on_every_supported_python():
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    envs = [e.strip() for e in tox["tox"]["env_list"].split(",")]
    assert [e for e in envs if e.startswith("py")] == [
        "py" + v.replace(".", "") for v in PYTHONS]


def test_ci_runs_the_readmes_test_command_and_fails_when_no_test_ran():
    install_and_test = readme_commands()[1]
    assert "pytest" in install_and_test
    script = (ROOT / ".ci" / "run").read_text()
    assert install_and_test in script.splitlines()
    assert '"$status" -eq 5' in script
