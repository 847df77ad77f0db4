"""What a person reads on a terminal: control characters that implementations, sessions and
file names carry are shown as visible escapes (never sent raw, where they would retitle the
window, clear the screen or hide text), and no text is read as Rich markup or emoji codes.
Machine output (JSON) keeps the exact data."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.table import Table
from rich.text import Text

from conformance.cli.main import main

SOURCE_CASE = Path(__file__).resolve().parents[2] / "corpus" / "cases" / "traps" / "two-timestamps"

# Every C0 control but tab and newline, DEL and the C1 controls: what must never be printed.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ESCAPE_NAME = "a\x1b]0;pwned\x07b\x1b[2Jc\x7fd.jsonl"  # no NUL: POSIX names hold none
MARKUP_NAME = "foo[/bar] [bold]x :smile:.jsonl"  # a file in the directory "foo["


def assert_shown_not_sent(text: str) -> None:
    assert not RAW_CONTROL.search(text), repr(text)
    assert "\\x1b" in text, repr(text)


def invoke(*arguments: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(arguments))
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result.exit_code, result.stdout, result.stderr


def test_smoke_shows_the_escapes_in_what_an_adapter_says(corpus_dir, fake):
    spec = fake("escapes", "--in-hello", "--on", "small.alpha", "--on", "small.beta")
    code, out, _ = invoke("smoke", "--impl", spec, "--corpus", str(corpus_dir))
    assert code == 1
    assert_shown_not_sent(out)
    assert "fake\\x1b]0;pwned\\x07\\x1b[2J\\x00\\x9b31m\\x0d" in out


def test_a_handshake_error_shows_the_escapes_of_the_adapters_stderr(corpus_dir, fake):
    code, out, err = invoke("run", "--impl", fake("escapes", "--die-at-hello"),
                            "--corpus", str(corpus_dir))
    assert code == 2
    assert "handshake failed" in err and "cannot start" in err
    assert_shown_not_sent(out + err)


def test_the_run_report_shows_the_escapes_of_an_error_message(corpus_dir, fake, tmp_path):
    report = tmp_path / "run.jsonl"
    code, out, _ = invoke("run", "--impl", fake("escapes", "--on", "small.beta"), "-q",
                          "--corpus", str(corpus_dir), "--report", str(report))
    assert code == 1
    assert_shown_not_sent(out)
    assert "small.beta [context]" in out and "\\[" not in out  # no markup escapes shown
    kept = [json.loads(line) for line in report.read_text().splitlines()]
    assert any("refused\x1b]0;pwned" in str(line.get("message")) for line in kept)


def rendered(*objects: object) -> str:
    from conformance.cli.terminal import SafeConsole

    buffer = io.StringIO()
    SafeConsole(file=buffer, width=200, color_system=None).print(*objects)
    return buffer.getvalue()


def test_the_console_reads_no_markup_and_no_emoji_codes():
    assert rendered("[bold]x[/bold] foo[/bar] :smile:") == "[bold]x[/bold] foo[/bar] :smile:\n"


def test_the_console_shows_control_characters_in_strings_texts_and_tables():
    table = Table(title=f"t{ESCAPE_NAME}")
    table.add_column("c")
    table.add_row(ESCAPE_NAME)
    for shown in (rendered(ESCAPE_NAME), rendered(table)):
        assert_shown_not_sent(shown)
        assert "a\\x1b]0;pwned\\x07b\\x1b[2Jc\\x7fd.jsonl" in shown.replace("\n", "")
    assert_shown_not_sent(rendered(Text(ESCAPE_NAME)))  # (rich's Text drops BEL itself)


def test_the_console_keeps_newlines_and_tabs():
    assert rendered("a\tb\nc") in ("a\tb\nc\n", "a       b\nc\n")  # rich expands tabs


@pytest.mark.reference
def test_reference_run_shows_odd_file_names_and_keeps_them_in_json(tmp_path: Path):
    (tmp_path / "foo[").mkdir()
    for name in (ESCAPE_NAME, MARKUP_NAME):
        shutil.copy(SOURCE_CASE / "session.jsonl", tmp_path / name)
    code, out, err = invoke("reference", "run", "--stage", "branch", str(tmp_path))
    assert code == 0, err
    assert_shown_not_sent(out)
    assert_shown_not_sent(err)
    assert MARKUP_NAME in out and MARKUP_NAME in err  # as it is: not markup, not an emoji
    code, out, err = invoke("reference", "run", "--stage", "branch", "--format", "json",
                            str(tmp_path))
    assert code == 0, err
    paths = {Path(item["file"]).relative_to(tmp_path).as_posix()
             for item in json.loads(out)["files"]}
    assert paths == {ESCAPE_NAME, MARKUP_NAME}


CLI = Path(__file__).resolve().parents[2] / "conformance" / "cli"


@pytest.mark.parametrize("module", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_every_command_prints_through_the_safe_console(module: Path):
    """No command makes a console of its own, nor writes markup a SafeConsole would print as
    it is: styles are ``style=`` or ``support.styled``."""
    source = module.read_text()
    if module.name != "terminal.py":
        assert not re.search(r"\bConsole\(", source), "use support.console() or stderr()"
    assert "[/]" not in source and "markup=True" not in source
