"""ProcessConnection: one bounded exchange with a process, whatever the process does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conformance.errors import ProtocolViolation
from conformance.implementations.process import Crashed, ProcessConnection, Timeout


def python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


ECHO = python("""
    import sys
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()
""")


def test_ask_sends_a_line_and_parses_the_answer_line():
    connection = ProcessConnection(ECHO)
    try:
        assert connection.ask({"cmd": "x", "n": 1}, 5) == {"cmd": "x", "n": 1}
        assert connection.ask({"cmd": "y"}, 5) == {"cmd": "y"}
    finally:
        connection.close()
    assert connection.process.returncode is not None


def test_a_large_request_is_written_while_the_answer_is_read():
    big = {"text": "x" * (8 * 1024 * 1024)}  # far beyond a pipe buffer
    connection = ProcessConnection(ECHO)
    try:
        assert connection.ask(big, 20) == big
    finally:
        connection.close()


def test_a_process_that_never_reads_cannot_block_the_runner():
    connection = ProcessConnection(python("import time; time.sleep(60)"))
    started = time.monotonic()
    try:
        with pytest.raises(Timeout, match=r"no answer within 0.5s"):
            connection.ask({"text": "x" * (4 * 1024 * 1024)}, 0.5)
    finally:
        connection.kill()
    # A runner blocked on the write would wait for the child's 60 s sleep (and then see it
    # crash, not time out): the bound is that, not a speed figure.
    assert time.monotonic() - started < 45


def test_a_last_line_without_a_newline_is_an_answer():
    connection = ProcessConnection(python("""
        import sys
        sys.stdin.readline()
        sys.stdout.write('{"ok": true}')
    """))
    try:
        assert connection.ask({"cmd": "x"}, 5) == {"ok": True}
    finally:
        connection.kill()


def test_a_process_that_exits_is_a_crash_with_its_exit_code_and_stderr():
    connection = ProcessConnection(python("""
        import sys
        sys.stdin.readline()
        sys.stderr.write("Error: cannot parse entry 3\\n")
        sys.exit(4)
    """))
    with pytest.raises(Crashed) as caught:
        connection.ask({"cmd": "x"}, 5)
    message = str(caught.value)
    assert "closed its stdout; exit code 4" in message
    assert "Error: cannot parse entry 3" in message
    connection.kill()


def test_a_line_longer_than_the_limit_is_refused_without_holding_it():
    connection = ProcessConnection(python("""
        import sys
        sys.stdin.readline()
        sys.stdout.write("x" * 5_000_000)
        sys.stdout.flush()
        import time; time.sleep(60)
    """), max_line=1_000_000)
    try:
        with pytest.raises(ProtocolViolation,
                           match=r"the answer line exceeds the runner.s limit of 976\.6 KiB"):
            connection.ask({"cmd": "x"}, 10)
        assert len(connection.buffer) == 0
    finally:
        connection.kill()


def test_ask_once_reads_all_of_stdout_and_requires_exit_zero():
    connection = ProcessConnection(python("""
        import sys, json
        request = json.loads(sys.stdin.read())
        sys.stdout.write(json.dumps({"got": request["cmd"]}, indent=2))
    """))
    assert connection.ask_once({"cmd": "hello"}, 5) == {"got": "hello"}
    failing = ProcessConnection(python("import sys; sys.stdin.read(); print('{}'); sys.exit(2)"))
    with pytest.raises(Crashed, match="exit code 2"):
        failing.ask_once({"cmd": "hello"}, 5)


def test_kill_takes_the_whole_process_group():
    connection = ProcessConnection(python("""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(child.pid, flush=True)
        time.sleep(60)
    """))
    child = connection.ask({"cmd": "x"}, 10)
    connection.kill()
    time.sleep(0.2)
    stat = Path(f"/proc/{child}/stat")
    state = stat.read_text().rsplit(")", 1)[1].split()[0] if stat.exists() else "gone"
    assert state in ("Z", "gone")  # dead; a zombie only until init reaps it


MEASURE = """
import resource, sys
from conformance.corpus.cases import Corpus
from conformance.implementations.specs import resolve
from conformance.corpus.selection import Selection
from conformance.execution.goldens import CorpusGoldens
from conformance.execution.runner import Limits, Runner, plan
corpus = Corpus(__import__("pathlib").Path(sys.argv[1]))
impl = resolve(sys.argv[2])
impl.start()
results = []
runner = Runner(corpus, CorpusGoldens(corpus.root), Limits(timeout=60))
planned = plan(impl.hello, corpus.cases, Selection())
planned = runner.prepare(planned, impl.hello.inputs)
runner.run([impl], planned, results.append)
impl.close()
statuses = sorted({(r.case, r.status) for r in results})
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, statuses)
"""


def peak_megabytes(corpus_dir, spec: str) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-c", MEASURE, str(corpus_dir), spec],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    peak, statuses = out.split(" ", 1)
    return int(peak), statuses


@pytest.mark.parametrize("lines", [False, True], ids=["one-line", "many-lines"])
def test_memory_stays_bounded_when_an_implementation_writes_100_megabytes(corpus_dir, fake,
                                                                          lines):
    quiet, _ = peak_megabytes(corpus_dir, fake("correct"))
    args = ["--on", "small.beta", *(["--lines"] if lines else [])]
    flooded, statuses = peak_megabytes(corpus_dir, fake("flood", *args))
    assert "('small.beta', 'error')" in statuses and "('small.gamma', 'pass')" in statuses
    # One answer line at most is held (MAX_LINE, 64 MB), never the 100 MB written.
    limit = 66 if not lines else 4
    print(f"peak RSS: {quiet} MB quiet, {flooded} MB flooded")
    assert flooded - quiet < limit, (quiet, flooded)



def test_output_after_an_answer_is_named_as_unsolicited_not_as_the_next_answer():
    connection = ProcessConnection(python("""
        import sys, time
        for line in sys.stdin:
            sys.stdout.write(line)
            sys.stdout.write("debug: done\\n")
            sys.stdout.flush()
    """))
    try:
        assert connection.ask({"n": 1}, 5) == {"n": 1}
        time.sleep(0.3)
        with pytest.raises(ProtocolViolation,
                           match="wrote to stdout after its last answer, unasked: 'debug: done"):
            connection.ask({"n": 2}, 5)
    finally:
        connection.kill()


def test_a_one_shot_flood_is_refused_at_the_limit():
    connection = ProcessConnection(python("""
        import sys
        sys.stdin.read()
        for _ in range(50):
            sys.stdout.write("x" * 100_000 + "\\n")
    """), max_line=1_000_000)
    try:
        with pytest.raises(ProtocolViolation,
                           match=r"the output exceeds the runner.s limit of 976\.6 KiB"):
            connection.ask_once({"cmd": "hello"}, 10)
    finally:
        connection.kill()
