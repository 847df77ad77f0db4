"""against: which Pi release a run judges with (``--against``, the plugin's
``--pi-against``, a hello's ``targets``), and that release's goldens built once, then cached."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import report_fakes

from conformance.errors import ConformanceError, ImplementationError
from conformance.implementations.protocol import Hello

HELLO = {"protocol": 1, "implementation": {"name": "port", "version": "1", "language": "py"},
         "capabilities": {"stages": ["entries"]}}


def hello(**extra: object) -> Hello:
    return Hello.parse({**HELLO, **extra})


def test_a_hello_may_name_the_release_it_follows():
    assert hello(targets="pi@1.3.0").targets == "pi@1.3.0"
    assert hello().targets is None


@pytest.mark.parametrize("bad", ["latest", "pi@1.3", "ccusage-pi@18.0.11", 3])
def test_a_target_that_is_no_release_of_pi_is_refused(bad: object):
    with pytest.raises(ImplementationError, match=r"targets"):
        hello(targets=bad)


def test_a_later_hello_that_targets_another_release_is_a_difference():
    assert hello(targets="pi@1.3.0").differences(hello(targets="pi@1.4.0")) == [
        "targets: pi@1.3.0, now pi@1.4.0"]


@pytest.mark.parametrize(("against", "targets", "judged"), [
    (None, None, None),                      # the corpus's goldens
    (None, "pi@1.3.0", "pi@1.3.0"),          # the release the hello names
    ("pi@1.4.0", "pi@1.3.0", "pi@1.4.0"),    # the command line first
    ("reference", "pi@1.3.0", None),         # the pinned release: the corpus's goldens
    (None, "pi@1.6.0", None),                # the pinned release named by its version
    ("mariozechner@0.73.1", None, "pi-mariozechner@0.73.1"),
])
def test_the_release_judged_against(against: str | None, targets: str | None,
                                    judged: str | None):
    from conformance.execution.against import judged_release

    assert judged_release(against, hello(targets=targets) if targets else hello()) == judged


@pytest.mark.parametrize("bad", ["ccusage-pi", "pi@latest", "nobody@1.0.0"])
def test_against_something_else_than_a_release_of_pi_is_a_usage_error(bad: str):
    from conformance.execution.against import judged_release

    with pytest.raises(ConformanceError, match=r"release of Pi to judge against"):
        judged_release(bad, hello())


def _run(tmp_path: Path, impl: str, *extra: str) -> tuple[subprocess.CompletedProcess[str],
                                                            list[dict[str, object]]]:
    report = tmp_path / "run.jsonl"
    done = subprocess.run([sys.executable, "-m", "conformance.cli.main", "run", "--impl", impl,
                           "-k", "traps.two-timestamps", "--stage", "context", "-q",
                           "--report", str(report), *extra], capture_output=True, text=True,
                          timeout=600, check=False, cwd=report_fakes.TESTS)
    return done, [json.loads(line) for line in report.read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.reference
def test_a_port_is_judged_against_the_release_its_hello_targets(tmp_path: Path):
    impl = str(report_fakes.impl_file(tmp_path, "targeting"))
    done, lines = _run(tmp_path, impl)
    assert "judged against pi@1.0.3" in lines[0]["corpus"]["reference"][0], done.stderr
    assert "pi@1.0.3, the release the implementation targets" in done.stderr
    assert "goldens for pi@1.0.3:" in done.stderr
    pinned, lines = _run(tmp_path, impl, "--against", "reference")
    assert "judged against" not in " ".join(lines[0]["corpus"]["reference"]), pinned.stderr
    assert "goldens for" not in pinned.stderr


@pytest.mark.slow
@pytest.mark.reference
def test_a_second_run_against_a_release_reuses_its_goldens(tmp_path: Path, monkeypatch):
    """A session nobody asked about before (its id is new): built, then cached."""
    import uuid

    corpus = report_fakes.make_corpus(tmp_path)
    session = corpus / "cases" / "traps" / "two-timestamps" / "session.jsonl"
    session.write_text(session.read_text().replace('"sess-1"', f'"{uuid.uuid4()}"', 1))
    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(corpus))
    first, _ = _run(tmp_path, "reference", "--against", "pi@1.0.3")
    assert "goldens for pi@1.0.3: built in" in first.stderr, first.stderr
    second, _ = _run(tmp_path, "reference", "--against", "pi@1.0.3")
    assert "goldens for pi@1.0.3: cached" in second.stderr, second.stderr
