"""The fuzzer's sessions drawn in generator processes: every one judged once, generation
overlapping the judging, and shrinking from choices drawn in another process."""

import itertools
import json
import time
from collections import Counter

import pytest

from conformance.errors import ConformanceError
from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.maintenance import fuzz as fuzzer
from conformance.maintenance.fuzz import Finding, fuzz
from conformance.maintenance.fuzz_generation import (
    Generators,
    Share,
    draw_kind,
    fuzz_sessions,
    generators_for,
    shares,
)


def _drawn(kind: str, plan: list[Share]) -> list[bytes]:
    generators = Generators(kind, plan)
    try:
        return [session for session, _ in generators]
    finally:
        generators.close()


class RecordingPair:
    """A stand-in for an implementation and reference pair: records what it is asked."""

    stages = ["entries"]

    def __init__(self, delay: float = 0.0, disagrees: bytes | None = None):
        self.delay = delay
        self.disagrees = disagrees
        self.sessions: list[bytes] = []
        self.times: list[float] = []

    def results(self, session: bytes) -> list[StageResult]:
        self.times.append(time.perf_counter())
        self.sessions.append(session)
        time.sleep(self.delay)
        if self.disagrees is not None and self.disagrees in session:
            changed = Difference("$.n", "changed", 0, 1)
            return [StageResult("fuzz.example", "entries", "fail", "differs", (changed,))]
        return [StageResult("fuzz.example", "entries", "pass")]

    def compare(self, session: bytes) -> Finding | None:
        return fuzzer.finding_of(session, self.results(session))


def test_shares_split_the_examples_without_loss_and_one_generator_keeps_the_seed():
    assert shares(9, 200, 1) == [Share(0, 9, 200)]
    plan = shares(9, 11, 3)
    assert sum(share.examples for share in plan) == 11
    assert sorted(share.examples for share in plan) == [3, 4, 4]
    assert len({share.seed for share in plan}) == 3
    assert len(shares(9, 2, 5)) == 2  # never a generator without a session to draw


def test_a_generator_process_draws_the_same_sessions_for_the_same_share():
    plan = [Share(0, 5, 6)]
    first, second = _drawn("valid", plan), _drawn("valid", plan)
    assert len(first) == 6 and first == second and len(set(first)) > 1


def test_every_drawn_session_is_judged_exactly_once_over_several_pairs():
    pairs = [RecordingPair(), RecordingPair(), RecordingPair()]
    outcome = fuzz(pairs, max_examples=13, seed=4, sessions="valid")  # type: ignore[arg-type]
    judged = [session for pair in pairs for session in pair.sessions]
    assert outcome.examples == 13 and len(judged) == 13
    assert Counter(judged) == Counter(_drawn("valid", shares(4, 13, generators_for(3))))
    assert sum(1 for pair in pairs if pair.sessions) >= 2  # the pairs shared the work


def test_drawing_overlaps_judging(monkeypatch: pytest.MonkeyPatch):
    """The first session is judged while later ones are still being drawn."""
    arrivals: list[float] = []

    class Timed(Generators):
        def __iter__(self):  # type: ignore[no-untyped-def]
            for item in super().__iter__():
                arrivals.append(time.perf_counter())
                yield item

    monkeypatch.setattr(fuzzer, "Generators", Timed)
    pair = RecordingPair(delay=0.02)
    fuzz([pair], max_examples=20, seed=2, sessions="valid")  # type: ignore[list-item]
    assert len(arrivals) == len(pair.times) == 20
    assert pair.times[0] < arrivals[-1]


def test_a_failing_generator_is_a_clear_error():
    with pytest.raises(ConformanceError, match="drawing sessions failed"):
        _drawn("valid", [Share(0, 1, -1)])  # no generator draws max_examples=-1


def test_a_generator_writing_much_on_stderr_is_never_blocked(monkeypatch):
    """PYTHONVERBOSE makes the child write well over a pipe's 64 KB to stderr."""
    import threading

    monkeypatch.setenv("PYTHONVERBOSE", "1")
    drawn: list[bytes] = []
    worker = threading.Thread(target=lambda: drawn.extend(_drawn("valid", shares(5, 3, 1))),
                              daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "the generator blocked on its stderr"
    assert len(drawn) == 3


def test_unknown_kinds_are_rejected_before_any_process_starts():
    with pytest.raises(ConformanceError, match="unknown session kind"):
        Generators("nonsense", shares(1, 1, 1))


def test_a_disagreement_drawn_in_another_process_is_shrunk_here():
    pair = RecordingPair(disagrees=b'"reasoning":')
    outcome = fuzz([pair], max_examples=30, seed=7, sessions="valid")  # type: ignore[list-item]
    assert outcome.findings and not outcome.flaky
    session = outcome.findings[0].session
    assert b'"reasoning":' in session
    assert len(session.splitlines()) <= 4, session.decode()  # the header and 3 entries


def test_the_thread_generator_still_serves_an_explicit_strategy():
    pair = RecordingPair()
    outcome = fuzz([pair], max_examples=5, seed=1,  # type: ignore[list-item]
                   sessions=fuzz_sessions("valid"))
    assert outcome.examples == 5 and len(pair.sessions) == 5


def test_a_failure_to_ask_stops_the_generators():
    class Broken(RecordingPair):
        def results(self, session: bytes) -> list[StageResult]:
            raise RuntimeError("asking broke")

    with pytest.raises(RuntimeError, match="asking broke"):
        fuzz([Broken()], max_examples=200, seed=3, sessions="valid")  # type: ignore[list-item]


def test_a_judging_failure_stops_the_run(monkeypatch: pytest.MonkeyPatch):
    def broken(*args: object) -> None:
        raise RuntimeError("judge broke")

    monkeypatch.setattr(fuzzer, "finding_of", broken)
    pair = RecordingPair()
    with pytest.raises(RuntimeError, match="judge broke"):
        fuzz([pair], max_examples=200, seed=3, sessions="valid")  # type: ignore[list-item]
    assert len(pair.sessions) < 200  # stopped early, not after asking everything


def test_a_pair_asks_its_next_session_while_the_last_one_is_judged(
        monkeypatch: pytest.MonkeyPatch):
    """The first judgement waits for the second ask: judged in line, it would wait in vain."""
    import threading

    second_asked = threading.Event()
    waited: list[bool] = []
    real = fuzzer.finding_of

    class Pair(RecordingPair):
        def results(self, session: bytes) -> list[StageResult]:
            if self.sessions:
                second_asked.set()
            return super().results(session)

    def judge_after_the_next_ask(*args):  # type: ignore[no-untyped-def]
        if not waited:
            waited.append(second_asked.wait(timeout=60))
        return real(*args)

    monkeypatch.setattr(fuzzer, "finding_of", judge_after_the_next_ask)
    outcome = fuzz([Pair()], max_examples=3, seed=2, sessions="valid")  # type: ignore[list-item]
    assert outcome.examples == 3 and waited == [True]


def test_generators_started_before_the_pairs_serve_the_run():
    """The CLI starts the generators while Node starts; the run judges what they draw."""
    from conformance.maintenance.fuzz import start_generators

    generators = start_generators("valid", 7, 5, 2)
    pairs = [RecordingPair(), RecordingPair()]
    try:
        outcome = fuzz(pairs, max_examples=7, seed=5, sessions=generators)  # type: ignore[arg-type]
    finally:
        generators.close()
    judged = [session for pair in pairs for session in pair.sessions]
    assert outcome.examples == 7
    assert Counter(judged) == Counter(_drawn("valid", shares(5, 7, generators_for(2))))


def _lines(session: bytes) -> list[dict]:
    """The JSON objects of a session file, quirks (CRLF, garbage lines) skipped."""
    out = []
    for line in session.split(b"\n"):
        try:
            value = json.loads(line.strip(b"\r"))
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _features(session: bytes) -> set[str]:
    """What one session file exercises: entry types, roles, blocks, tree shapes, quirks."""
    lines = _lines(session)
    header, entries = lines[0], lines[1:]
    found = {f"v{header.get('version', 1)}"}
    found |= {f"entry {e['type']}" for e in entries}
    for previous, entry in itertools.pairwise(entries):
        if "id" in entry and entry.get("parentId") not in (None, previous.get("id")):
            found.add("a branch")
    for entry in entries:
        message = entry.get("message") or {}
        if message:
            found.add(f"role {message['role'] if message['role'] in ROLES else 'unknown'}")
        content = message.get("content") if isinstance(message.get("content"), list) else []
        found |= {f"block {b.get('type')}" + (" redacted" if b.get("redacted") else "")
                  for b in content if isinstance(b, dict)}
        if (message.get("usage") or {}).get("reasoning"):
            found.add("reasoning")
        if entry["type"] == "compaction" and entry.get("firstKeptEntryId") == entry.get("id"):
            found.add("a retain-none compaction")
    found |= {name for name, marker in EDGE_MARKERS.items() if marker in session}
    if not session.endswith(b"\n"):
        found.add("no final newline")
    return found


ROLES = ("user", "assistant", "toolResult", "system", "bashExecution", "custom", "hookMessage")
EDGE_MARKERS = {"CRLF line ends": b"}\r\n", "a garbage line": b"\n{not json",
                "an astral character": "\U0001f600".encode(),
                "an unparsable timestamp": b'"not a date"'}


def test_the_fuzzers_sessions_still_reach_every_kind_of_session():
    """Seeded drawing draws the same kinds of sessions: every entry type, every role, every
    block, branches, retain-none compactions, legacy files and the edge cases."""
    from strategies.entries import ENTRY_TYPES

    sessions: list[bytes] = []
    draw_kind("all", 600, 1, lambda session, choices: sessions.append(session))
    found = set().union(*map(_features, sessions))
    wanted = ({f"entry {kind}" for kind in ENTRY_TYPES} | {f"role {r}" for r in ROLES}
              | {"role unknown", "block text", "block thinking", "block thinking redacted",
                 "block image", "block toolCall", "a branch", "a retain-none compaction",
                 "reasoning", "v1", "v2", "v3", "no final newline"} | set(EDGE_MARKERS))
    assert wanted - found == set()
    assert len(set(sessions)) > 550  # hardly ever the same session twice


def test_a_seed_draws_the_same_sessions_and_choices_in_any_process():
    first: list[tuple[bytes, bytes]] = []
    second: list[tuple[bytes, bytes]] = []
    draw_kind("all", 20, 3, lambda *item: first.append(item))
    draw_kind("all", 20, 3, lambda *item: second.append(item))
    assert first == second and len(set(first)) == 20
    assert _drawn("all", [Share(0, 3, 20)]) == [session for session, _ in first]


def test_sessions_recorded_as_this_hypothesis_draws_are_recorded_without_its_engine():
    from conformance.maintenance.fuzz_generation import recording_matches, replayed

    assert recording_matches(fuzz_sessions("all"))
    got = []
    draw_kind("valid", 3, 5, lambda session, choices: got.append((session, choices)))
    assert [replayed(fuzz_sessions("valid"), choices) for _, choices in got] == [
        [session] for session, _ in got]


@pytest.mark.parametrize("breakage", ["other choices", "an internal gone"])
def test_a_hypothesis_the_recording_does_not_follow_draws_with_its_own_engine(monkeypatch,
                                                                              breakage):
    """A Hypothesis release may draw differently from what strategies.seeded writes down;
    then the sessions still come, each with choices that replay it (so it can be shrunk)."""
    import strategies.seeded as seeded
    from conformance.maintenance.fuzz_generation import recording_matches, replayed

    real = seeded.recorded

    def broken(strategy, seed):
        if breakage == "an internal gone":
            raise AttributeError("'SampledFromStrategy' object has no attribute 'elements'")
        value, choices = real(strategy, seed)
        return value, [0, *choices]

    monkeypatch.setattr(seeded, "recorded", broken)
    assert not recording_matches(fuzz_sessions("valid"))
    got = []
    draw_kind("valid", 3, 5, lambda session, choices: got.append((session, choices)))
    assert len(got) == 3
    assert [replayed(fuzz_sessions("valid"), choices) for _, choices in got] == [
        [session] for session, _ in got]
