"""The ``reference`` marker cannot drift: tests/reference_guard.py fails a test that starts Pi
or Node without it, whether in process, in a child process or through the ``pi`` fixture."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reference_guard import TRIPPED, tripwire

from conformance.errors import ImplementationError
from conformance.implementations.transports import reference

pytest_plugins = ["pytester"]
HERE = Path(__file__).resolve().parent


def test_starting_the_reference_in_process_hits_the_tripwire():
    with pytest.raises(ImplementationError, match="handshake failed"):
        reference().start()
    started = tripwire().started()
    tripwire().clear()  # this test means to trip it
    assert len(started) == 1 and "harness.mjs" in started[0]
    assert started[0].startswith(str(tripwire().cache))


def test_node_from_the_path_and_the_cli_in_a_child_process_hit_the_tripwire(tmp_path):
    assert subprocess.run(["node", "--version"], capture_output=True).returncode == TRIPPED
    child = subprocess.run([sys.executable, "-m", "conformance.cli.main", "smoke", "--impl",
                            "reference"], capture_output=True, text=True, cwd=tmp_path)
    started = tripwire().started()
    tripwire().clear()
    assert child.returncode == 1 and "[FAIL] handshake" in child.stdout, child.stderr
    assert len(started) == 2 and started[0] == f"{tripwire().bin / 'node'} --version"
    assert started[1].startswith(str(tripwire().cache)) and "harness.mjs" in started[1]


@pytest.mark.reference
def test_a_marked_test_sees_the_real_cache_and_path():
    assert os.environ.get("PI_CONFORMANCE_CACHE") != str(tripwire().cache)
    assert str(tripwire().bin) not in os.environ["PATH"].split(os.pathsep)


def test_the_guard_fails_unmarked_tests_and_passes_marked_ones(pytester):
    for helper in ("conftest.py", "reference_guard.py"):
        shutil.copy(HERE / helper, pytester.path / helper)
    pytester.makepyfile(test_inner='''
import subprocess

import pytest

from conformance.implementations.transports import reference


def test_starts_pi_unmarked():
    try:
        reference().start()
    except Exception:
        pass  # a test may even swallow the failure: the guard still sees the start


def test_asks_for_pi_unmarked(pi):
    pass


def test_runs_npm_unmarked():
    subprocess.run(["npm", "--version"], capture_output=True)


def test_reads_files_only():
    assert True


@pytest.mark.reference
def test_marked_and_starting_nothing():
    assert True
''')
    pytester.makeini("[pytest]\nmarkers =\n    reference: starts Pi\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "0")
    result.assert_outcomes(passed=4, errors=3)
    result.stdout.fnmatch_lines([
        "*ERROR at teardown of test_starts_pi_unmarked*",
        "started */harness.mjs * but is not marked reference: mark it @pytest.mark.reference*",
        "*ERROR at setup of test_asks_for_pi_unmarked*",
        "*test_asks_for_pi_unmarked uses pi, which starts Pi: mark it @pytest.mark.reference",
        "*ERROR at teardown of test_runs_npm_unmarked*",
        "started */bin/npm --version but is not marked reference*",
    ])
