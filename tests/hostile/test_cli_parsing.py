"""Command-line values no run could use are usage errors (exit 2, one line), never tracebacks:
a shard count too long for Python's int conversion, an empty or unbalanced --impl command."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.shards import Shard
from conformance.errors import ConformanceError
from conformance.implementations.specs import resolve

HUGE = "9" * 5000  # past Python's 4300-digit int-string conversion limit


def refused(arguments: list[str]) -> str:
    """The one error line of a command that must be refused with exit 2."""
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "Traceback" not in result.output
    (line,) = [line for line in result.output.splitlines()
               if line.startswith(("Error:", "error:"))]
    return line


@pytest.mark.parametrize("shard", [f"1/{HUGE}", f"{HUGE}/4", f"{HUGE}/{HUGE}"],
                         ids=["huge N", "huge K", "both huge"])
def test_a_shard_with_thousands_of_digits_is_a_usage_error(shard):
    line = refused(["run", "--impl", "reference", "--shard", shard])
    assert "--shard" in line and "at most 1000" in line
    assert len(line) < 300  # the 5000 digits are not echoed back


def test_a_huge_shard_in_a_report_header_is_a_conformance_error():
    with pytest.raises(ConformanceError, match="at most 1000"):
        Shard.parse(f"1/{HUGE}")


@pytest.mark.parametrize("spec", ["process:   ", "oneshot:\t", "process:''", 'oneshot:""'])
def test_an_empty_impl_command_is_a_usage_error(spec):
    line = refused(["run", "--impl", spec])
    assert "no command" in line


@pytest.mark.parametrize("spec", ["process:python3 'x", 'oneshot:python3 "x', "process:a\\"])
def test_an_unbalanced_quote_in_impl_is_a_usage_error(spec):
    line = refused(["smoke", "--impl", spec])
    assert "cannot split" in line and spec.partition(":")[2] in line


@pytest.mark.parametrize("command", ["''", "'python3 \"x'", "[]", "['']"])
def test_an_unusable_command_in_an_implementation_file_names_the_file(tmp_path: Path, command):
    path = tmp_path / "impl.toml"
    path.write_text(f'kind = "process"\ncommand = {command}\n')
    with pytest.raises(ConformanceError) as caught:
        resolve(str(path))
    assert caught.value.path == path
