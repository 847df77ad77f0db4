"""Usage objects keep the seed's two rules and consistent totals."""

import math

from hypothesis import given

from strategies import costs, usages
from strategies.edge import edge_values


def _consistent(usage):
    assert usage.get("reasoning", 0) <= usage["output"]
    assert usage.get("cacheWrite1h", 0) <= usage["cacheWrite"]
    assert usage["totalTokens"] == (usage["input"] + usage["output"] + usage["cacheRead"]
                                    + usage["cacheWrite"])
    cost = usage["cost"]
    assert math.isclose(cost["total"], cost["input"] + cost["output"] + cost["cacheRead"]
                        + cost["cacheWrite"])


@given(usages())
def test_reasoning_is_inside_output_and_cache_write_1h_inside_cache_write(usage):
    _consistent(usage)


@given(usages(edge_values()))
def test_edge_numbers_keep_the_same_invariants_and_stay_finite(usage):
    _consistent(usage)
    assert math.isfinite(usage["cost"]["total"])


@given(usages(reasoning=True, cache_write_1h=True))
def test_optional_breakdowns_can_be_forced(usage):
    assert "reasoning" in usage and "cacheWrite1h" in usage


@given(usages(reasoning=False, cache_write_1h=False))
def test_optional_breakdowns_can_be_left_out(usage):
    assert "reasoning" not in usage and "cacheWrite1h" not in usage


@given(costs())
def test_costs_total_their_parts(cost):
    assert math.isclose(cost["total"], sum(cost[k] for k in
                                           ("input", "output", "cacheRead", "cacheWrite")))
