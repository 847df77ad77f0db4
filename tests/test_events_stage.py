"""The events stage of the captured cases end to end: recorded streams in, Pi's persisted
messages as goldens (the cases with a turn script: tests/test_events_turns.py)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from helpers import run_spec

from conformance.corpus.cases import Corpus
from conformance.corpus.selection import Selection

READER = Path(__file__).parent / "fakes" / "events_reader.py"


def spec(*args: str) -> str:
    return "process:" + shlex.join([sys.executable, str(READER), *args])


def events_cases(corpus: Corpus) -> list[str]:
    return [c.id for c in corpus.cases if "events" in c.captured_stages]


def test_captured_cases_carry_a_stream_and_an_events_golden():
    corpus = Corpus()
    ids = events_cases(corpus)
    assert len(ids) >= 15
    for case in corpus.cases:
        if case.id in ids:
            assert case.events_path.is_file() and case.expected_path("events").is_file()


def test_message_end_messages_are_what_pi_persisted():
    corpus = Corpus()
    outcome = run_spec(corpus, spec(), selection=Selection(stages=("events",)))
    captured = set(events_cases(corpus))
    events = [r for r in outcome.results if r.stage == "events" and r.case in captured]
    assert len(events) == len(captured)
    assert {r.status for r in events} == {"pass"}, [
        (r.case, r.message) for r in events if r.status != "pass"]


def test_keeping_the_pending_start_snapshot_fails_and_says_why():
    corpus = Corpus()
    outcome = run_spec(corpus, spec("--keep-start"), selection=Selection(stages=("events",)))
    captured = set(events_cases(corpus))
    events = {r.case: r for r in outcome.results if r.stage == "events" and r.case in captured}
    assert events and {r.status for r in events.values()} == {"fail"}
    pending = {c.id for c in corpus.cases if c.id in events
               and '"stopReason":"pending"' in c.events_path.read_text()}
    # A provider error fails before streaming: its message_start already says "error".
    assert len(pending) >= len(events) - 3
    for case in pending:
        assert "pending assistant message would be persisted" in events[case].message
