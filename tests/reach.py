"""``reach(strategy, condition)``: the strategy can produce such a value (found by
generation alone, without shrinking, which would make the check slow)."""

from hypothesis import HealthCheck, Phase, find, settings

_FAST = settings(phases=[Phase.generate], max_examples=1000, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck))


def reach(strategy, condition):
    return find(strategy, condition, settings=_FAST)
