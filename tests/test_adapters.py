"""The registry of known implementations, their isolated installs, and each adapter for real.

The tests marked ``reference`` install the pinned implementations from the registries (npm,
PyPI) on first use and run a case through each; they run in CI.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from helpers import drive, runner_for

from conformance.corpus.cases import Corpus
from conformance.errors import ConformanceError
from conformance.implementations import protocol
from conformance.implementations.known import KNOWN, lookup
from conformance.implementations.known.install import (
    AdapterInstallError,
    NpmPrefix,
    Virtualenv,
    pins_sha256,
)
from conformance.implementations.specs import resolve


def test_lookup_by_name_and_version():
    assert lookup("pi@1.0.3").version == "1.0.3"
    assert lookup("pi-mariozechner@0.73.1").name == "pi-mariozechner"
    assert lookup("pi-ai-python").spec == "pi-ai-python@1.6.0"
    assert lookup("ccusage-pi").spec == "ccusage-pi@18.0.11"
    assert lookup("not-an-adapter") is None


def test_an_ambiguous_or_unknown_version_is_a_clear_error():
    with pytest.raises(ConformanceError, match=r"several versions.*pi@1\.6\.0.*pi@1\.0\.3"):
        lookup("pi")
    with pytest.raises(ConformanceError, match=r"ccusage-pi 9\.9\.9 is not a known version"):
        resolve("ccusage-pi@9.9.9")
    with pytest.raises(ConformanceError, match=r"pi 9\.x is not a known version.*any release"):
        resolve("pi@9.x")  # pi@9.9.9 would be a release, installed on first use


def test_every_adapter_directory_commits_its_pins():
    for entry in KNOWN:
        if entry.installer is None:
            continue
        for pin in entry.installer.pins:
            assert pin.is_file(), pin
        text = "".join(p.read_text() for p in entry.installer.pins)
        assert entry.version in text


def test_requirements_pin_every_package_exactly():
    pins = Path(lookup("pi-ai-python").installer.pins[0]).read_text().splitlines()
    packages = [line for line in pins if line and not line.startswith("#")]
    assert packages and all("==" in line for line in packages)


def test_a_changed_pin_file_gets_its_own_install_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "adapter"
    source.mkdir()
    (source / "requirements.txt").write_text("a==1\n")
    first = Virtualenv("demo", source).prefix
    (source / "requirements.txt").write_text("a==2\n")
    assert Virtualenv("demo", source).prefix != first
    assert first.parent == tmp_path / "cache" / "adapters" / "demo"
    assert len(pins_sha256([source / "requirements.txt"])) == 64


def test_a_failing_npm_is_reported_with_its_output(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text("#!/bin/sh\necho 'npm error code ETARGET: no matching version'\nexit 1\n")
    npm.chmod(npm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "adapter"
    source.mkdir()
    (source / "package.json").write_text("{}")
    (source / "package-lock.json").write_text("{}")
    with pytest.raises(AdapterInstallError, match=r"(?s)npm ci for demo failed.*ETARGET"):
        NpmPrefix("demo", source).install()


def test_a_missing_npm_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "package-lock.json").write_text("{}")
    with pytest.raises(AdapterInstallError, match="npm was not found on PATH"):
        NpmPrefix("demo", tmp_path).install()


# ---------------------------------------------------------------------------------------------
# Each adapter for real: install (cached after the first time), hello, one case.

CASE = "traps.two-timestamps"


def run_case(spec: str) -> tuple[protocol.Hello, dict[str, dict]]:
    corpus = Corpus()
    cases = corpus.select((CASE,))
    results: dict[str, dict] = {}
    impl = resolve(spec)
    with impl:
        drive(runner_for(corpus, timeout=120), [impl], cases,
              lambda r: results.__setitem__(r.stage, r.to_json()))
        return impl.hello, results


@pytest.mark.reference
def test_pi_1_0_3_claims_every_stage_its_exports_answer():
    hello, results = run_case("pi@1.0.3")
    assert hello.version == "1.0.3"
    assert hello.implementation["dependencies"]["node"].startswith("22.")
    assert {"entries", "projection", "prompt", "stats"} <= hello.stages
    assert results["entries"]["status"] == "pass"
    assert results["stats"]["status"] == "pass"


@pytest.mark.reference
def test_pi_0_73_1_claims_no_projection_and_no_prompt():
    hello, results = run_case("pi-mariozechner@0.73.1")
    assert hello.implementation["name"] == "@mariozechner/pi-coding-agent"
    assert "projection" not in hello.stages and "prompt" not in hello.stages
    assert results["projection"]["status"] == "skip"
    assert results["entries"]["status"] == "pass"
    # 0.73.1 has no system messages: convertToLlm drops them, a documented drift.
    assert results["llm"]["status"] == "fail"
    assert any(d["path"].startswith("$[0]") for d in results["llm"]["differences"])


@pytest.mark.slow
@pytest.mark.reference
def test_pi_ai_python_answers_prompt_requests_and_responses_only():
    hello, results = run_case("pi-ai-python")
    assert hello.implementation["language"] == "python"
    # Every API pi-ai knows: pi-ai-python ports each; Bedrock's request goes out with boto3,
    # which the adapter cannot catch, so only its parameters are claimed.
    from conformance.corpus.stages import APIS

    caught = [api for api in APIS if api != "bedrock-converse-stream"]
    fed = {"prompt", *(f"request.{api}" for api in APIS), *(f"wire.{api}" for api in caught)}
    assert hello.stages == fed | {f"response.{api}" for api in caught}
    # Fed the golden llm messages: no reference needed; a response is its own input.
    assert hello.inputs == fed
    assert results["prompt"]["status"] == "pass"
    assert results["llm"]["status"] == "skip"
    # The case has no response: its claimed stages are the fed ones.
    assert {results[s]["status"] for s in fed} <= {"pass", "fail"}


@pytest.mark.reference
def test_ccusage_pi_claims_only_the_stats_fields_it_really_has():
    hello, results = run_case("ccusage-pi")
    assert hello.stages == {"stats"}
    assert set(hello.fields["stats"]) == {"tokens.input", "tokens.output", "tokens.cacheRead",
                                          "tokens.cacheWrite", "cost"}
    assert results["stats"]["status"] == "pass"
    assert "partial claim" in results["stats"]["message"]
