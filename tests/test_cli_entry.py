"""The installed command's fast help (cli/entry.py): the top-level page written without click
must be click's own page, byte for byte, wherever it is shown, and nothing else may change."""

from __future__ import annotations

import fcntl
import os
import pty
import shlex
import struct
import subprocess
import sys
import termios
import tomllib
from pathlib import Path

import click
import pytest

from conformance.cli import entry
from conformance.cli.listing import SECTIONS
from conformance.cli.main import main

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
# What pip writes for a console script (bin/pi-conformance), for a given entry point.
SCRIPT = """\
import re
import sys
from {module} import {attribute}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({attribute}())
"""


def installed_entry_point() -> str:
    return tomllib.loads(PYPROJECT.read_text())["project"]["scripts"]["pi-conformance"]


@pytest.fixture(scope="module")
def scripts(tmp_path_factory) -> dict[str, Path]:
    """``pi-conformance`` as pip installs it (the fast path), and the same script calling the
    click group directly (the reference), each in its own folder so both are named alike."""
    made = {}
    for label, target in (("installed", installed_entry_point()),
                          ("click", "conformance.cli.main:main")):
        module, _, attribute = target.partition(":")
        path = tmp_path_factory.mktemp(label) / "pi-conformance"
        path.write_text(SCRIPT.format(module=module, attribute=attribute))
        made[label] = path
    return made


def run_script(script: Path, arguments: list[str], env: dict[str, str],
               stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(script), *arguments], stdout=stdout,
                          stderr=subprocess.PIPE, env=env, check=False)


def environment(columns: str | None) -> dict[str, str]:
    """This checkout's code first (the scripts live elsewhere), COLUMNS as asked."""
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYPROJECT.parent),
                                                      os.environ.get("PYTHONPATH")]))
    if columns is not None:
        env["COLUMNS"] = columns
    return env


def test_the_installed_command_is_the_fast_entry_point():
    assert installed_entry_point() == "conformance.cli.entry:main"


@pytest.mark.parametrize("prog", ["pi-conformance",
                                  "a-program-name-long-enough-to-push-the-usage-line-down"])
def test_the_page_is_clicks_at_every_width(prog):
    """click lays help out at least 50 wide (entry.help_width); under 20 a word longer than
    the line would be cut differently, which never happens at 50."""
    for width in range(20, 131):
        context = main.make_context(prog, [], resilient_parsing=True, terminal_width=width)
        expected = main.get_help(context)
        assert entry.top_level_help(prog, width) == expected + "\n", (prog, width)


def test_the_short_help_is_clicks():
    for limit in range(1, 100):
        for rows in SECTIONS.values():
            for _, _, summary in rows:
                assert entry.short_help(summary, limit) == \
                    click.Command(None, help=summary).get_short_help_str(limit), limit


@pytest.mark.parametrize(("arguments", "columns"), [
    (["--help"], None), (["-h"], "40"), ([], None), (["--help"], "200"),
])
def test_the_installed_command_answers_as_click_does(scripts, arguments, columns):
    """stdout, stderr and exit code, with stdout a pipe (no terminal) or COLUMNS set."""
    env = environment(columns)
    fast, reference = (run_script(scripts[label], arguments, env)
                       for label in ("installed", "click"))
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (reference.returncode, reference.stdout, reference.stderr)
    assert b"Maintain the corpus:" in (fast.stdout or fast.stderr)


@pytest.mark.parametrize("columns", [44, 160])
def test_on_a_terminal_the_page_fits_it_as_clicks_does(scripts, columns):
    pages = []
    for label in ("installed", "click"):
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, columns, 0, 0))
        try:
            done = run_script(scripts[label], ["--help"], environment(None), stdout=follower)
        finally:
            os.close(follower)
        page = b""
        try:
            while chunk := os.read(leader, 65536):
                page += chunk
        except OSError:  # the terminal closed: everything was read
            pass
        os.close(leader)
        pages.append((done.returncode, page, done.stderr))
    assert pages[0] == pages[1] and b"Usage: pi-conformance" in pages[0][1]


def test_the_fast_page_imports_neither_click_nor_the_group():
    probe = ("import sys\nsys.argv = ['pi-conformance', '--help']\n"
             "from conformance.cli.entry import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'click'"
             " or m.startswith('conformance.')), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=environment(None), check=True)
    assert done.stderr.strip() == "['conformance.cli', 'conformance.cli.entry', " \
                                  "'conformance.cli.listing']"


@pytest.mark.parametrize("arguments", [["--version"], ["render", "-h"], ["-x"]])
def test_every_other_command_line_goes_to_click(scripts, arguments):
    env = environment("80")
    fast, reference = (run_script(scripts[label], arguments, env)
                       for label in ("installed", "click"))
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (reference.returncode, reference.stdout, reference.stderr)


def test_shell_completion_still_goes_to_click(scripts):
    env = environment("80") | {"_PI_CONFORMANCE_COMPLETE": "bash_complete", "COMP_WORDS":
                               "pi-conformance ru", "COMP_CWORD": "1"}
    done = run_script(scripts["installed"], [], env)
    assert done.returncode == 0 and b"plain,run" in done.stdout


def test_a_closed_pipe_ends_the_fast_page_as_it_ends_clicks(scripts):
    results = []
    for label in ("installed", "click"):
        read, write = os.pipe()
        os.close(read)  # nobody reads: the first write meets a broken pipe
        try:
            results.append(run_script(scripts[label], ["--help"], environment(None),
                                      stdout=write))
        finally:
            os.close(write)
    fast, reference = results
    assert (fast.returncode, fast.stderr) == (reference.returncode, reference.stderr) == (1, b"")


@pytest.mark.parametrize(("arguments", "closed"), [(["--help"], "1"), ([], "2")])
def test_with_its_stream_closed_the_fast_page_exits_as_clicks_does(scripts, arguments, closed):
    answers = []
    for label in ("installed", "click"):
        command = shlex.join([sys.executable, str(scripts[label]), *arguments])
        answers.append(subprocess.run(["sh", "-c", f"exec {closed}>&-; exec {command}"],
                                      capture_output=True, env=environment("80"), check=False))
    fast, reference = answers
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (reference.returncode, reference.stdout, reference.stderr)
    assert fast.returncode == (0 if arguments else 2)
