"""A cache that cannot be written is one line naming it, exit 2: never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main


@pytest.fixture
def read_only(tmp_path) -> Path:
    """A directory nothing can be created in (root ignores modes: then /sys, which refuses
    even root)."""
    if os.geteuid() != 0:
        directory = tmp_path / "read-only"
        directory.mkdir()
        directory.chmod(0o555)
        yield directory
        directory.chmod(0o755)
        return
    try:
        (Path("/sys") / "pi-conformance-probe").mkdir()
    except OSError:
        yield Path("/sys")
        return
    pytest.skip("no directory here refuses writes")


@pytest.mark.parametrize("command", [["reference", "install"],
                                     ["run", "--impl", "pi@1.0.3", "-q"]])
@pytest.mark.parametrize("variable", ["PI_CONFORMANCE_CACHE", "XDG_CACHE_HOME", "HOME"])
def test_a_read_only_cache_is_one_line_naming_it_and_exit_2(read_only, command, variable,
                                                             monkeypatch):
    for name in ("PI_CONFORMANCE_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    value = read_only / "pi-conformance" if variable == "PI_CONFORMANCE_CACHE" else read_only
    monkeypatch.setenv(variable, str(value))
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: {read_only}")
    assert "cannot write to the install cache" in line and "PI_CONFORMANCE_CACHE" in line
