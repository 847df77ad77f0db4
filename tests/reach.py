"""``reach(strategy, condition)`` and ``reach_all(strategy, conditions)``: the strategy can
produce such values, found by generation alone (shrinking would make the check slow).

``reach_all`` draws one stream of examples and ticks off every condition it meets, stopping
as soon as all are met: one pass instead of one search per condition."""

from collections.abc import Callable

from hypothesis import HealthCheck, Phase, find, given, settings

_FAST = settings(phases=[Phase.generate], max_examples=1000, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))


def reach(strategy, condition):
    return find(strategy, condition, settings=_FAST)


class _AllReached(Exception):
    """Stops the search: every condition has been met."""


def reach_all(strategy, conditions: dict[str, Callable[[object], object]]) -> None:
    """Fails naming each condition no example met within the search's budget."""
    unmet = dict(conditions)

    @_FAST
    @given(strategy)
    def search(value):
        for name, condition in list(unmet.items()):
            if condition(value):
                del unmet[name]
        if not unmet:
            raise _AllReached

    try:
        search()
    except _AllReached:
        return
    assert not unmet, f"never produced: {', '.join(unmet)}"
