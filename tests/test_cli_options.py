"""The options several commands share (cli/options.py) refuse what no run could use."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.cli.options import DURATION


@pytest.mark.parametrize("command", [["run", "--impl", "reference"],
                                     ["smoke", "--impl", "reference"]])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "-1", "0", "soon", ""])
def test_a_timeout_that_is_not_a_usable_duration_is_refused(command, value):
    result = CliRunner().invoke(main, [*command, "--timeout", value])
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert line.startswith("Error: Invalid value for '--timeout': ")
    assert f"{value!r} is not" in line and "seconds" in line
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("value", "seconds"), [("30", 30.0), ("0.5", 0.5), (" 2 ", 2.0),
                                                ("86400", 86400.0), (7, 7.0)])
def test_a_usable_timeout_is_its_seconds(value, seconds):
    assert DURATION.convert(value, None, None) == seconds
