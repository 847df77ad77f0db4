"""Seeded draws: the same strategies' values from one seed, and the choices Hypothesis replays."""

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes

import strategies as pis
from strategies.edge import edge_values
from strategies.seeded import SeededDraw, recorded


def _replayed(strategy, choices):
    """What Hypothesis draws from ``strategy`` when it replays ``choices`` (as shrinking does)."""
    database = InMemoryExampleDatabase()
    database.save(b"replay.secondary", choices_to_bytes(choices))
    drawn = []

    @settings(database=database, phases=[Phase.reuse], max_examples=1, deadline=None)
    @given(strategy)
    def probe(value):
        drawn.append(value)

    probe._hypothesis_internal_database_key = b"replay"
    probe()
    return drawn


def test_a_seed_gives_the_same_value_every_time_and_seeds_differ():
    files = pis.session_files()
    assert SeededDraw(7)(files) == SeededDraw(7)(files)
    assert len({SeededDraw(seed)(files) for seed in range(1, 40)}) > 30


def test_seed_zero_gives_the_simplest_value_of_each_strategy():
    draw = SeededDraw(0)
    assert draw(pis.user_messages()) == {"role": "user", "content": "",
                                         "timestamp": 946_684_800_000}
    assert draw(pis.usages()) == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                                  "totalTokens": 0, "cost": {"input": 0.0, "output": 0.0,
                                                             "cacheRead": 0.0,
                                                             "cacheWrite": 0.0, "total": 0.0}}
    assert draw(pis.entry_ids()) == "00000000"
    assert draw(pis.sessions()).entries == []


@given(st.integers(1, 2**32 - 1))
def test_seeded_values_keep_the_strategies_own_invariants(seed):
    draw = SeededDraw(seed)
    usage = draw(pis.usages(edge_values()))
    assert usage.get("reasoning", 0) <= usage["output"]
    assert usage.get("cacheWrite1h", 0) <= usage["cacheWrite"]
    assert usage["totalTokens"] == sum(usage[k] for k in ("input", "output", "cacheRead",
                                                          "cacheWrite"))
    block = draw(pis.redacted_thinking_blocks())
    assert block["thinking"] == "" and block["thinkingSignature"]
    message = draw(pis.unknown_role_messages())
    assert message["role"] not in ("user", "assistant", "system", "toolResult", "custom")


@pytest.mark.parametrize("strategy", [
    pis.session_files(seeded=True),
    pis.edge_session_files(seeded=True),
    pis.legacy_sessions(1, seeded=True).map(pis.Session.to_jsonl),
    pis.legacy_sessions(2, seeded=True),
], ids=["valid", "edge", "v1", "v2"])
def test_recorded_choices_replay_the_same_value_in_hypothesis(strategy):
    for seed in range(1, 26):
        value, choices = recorded(strategy, seed)
        assert _replayed(strategy, choices) == [value], seed


def test_a_recorded_draw_refuses_what_it_cannot_record_as_hypothesis_would():
    with pytest.raises(TypeError, match="recorded draw"):
        recorded(pis.session_files(), 1)  # not seeded: texts drawn with Hypothesis's own choices


def test_an_unknown_strategy_is_a_clear_error():
    with pytest.raises(TypeError, match="does not know"):
        SeededDraw(1)(st.dates())
