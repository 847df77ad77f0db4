"""Usage objects whose numbers are consistent the way Pi's providers write them.

Invariants of every generated ``Usage`` (pi-ai 1.6.0; the seed's two rules):

* ``reasoning`` is a breakdown of ``output``: never above it;
* ``cacheWrite1h`` is the subset of ``cacheWrite`` kept one hour: never above it;
* ``totalTokens == input + output + cacheRead + cacheWrite`` (reasoning is not added again);
* ``cost.total`` is the sum of the four category costs.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from strategies.values import BOOLEANS, ORDINARY, Values

__all__ = ["costs", "usages"]


@st.composite
def _costs(draw: st.DrawFn, values: Values) -> dict[str, Any]:
    parts = {key: draw(values.cost) for key in ("input", "output", "cacheRead", "cacheWrite")}
    cost: dict[str, Any] = {**parts, "total": sum(parts.values())}
    if draw(BOOLEANS):
        cost["totalFromProvider"] = draw(BOOLEANS)
    return cost


@cache
def costs(values: Values = ORDINARY) -> SearchStrategy[dict[str, Any]]:
    """``{"input", "output", "cacheRead", "cacheWrite", "total", "totalFromProvider"?}``.

    Example: ``{"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3}``.
    """
    return _costs(values)


@st.composite
def _usages(draw: st.DrawFn, values: Values, reasoning: bool | None,
            cache_write_1h: bool | None) -> dict[str, Any]:
    usage: dict[str, Any] = {
        key: draw(values.tokens) for key in ("input", "output", "cacheRead", "cacheWrite")}
    if cache_write_1h or (cache_write_1h is None and draw(BOOLEANS)):
        usage["cacheWrite1h"] = draw(st.integers(0, usage["cacheWrite"]))
    if reasoning or (reasoning is None and draw(BOOLEANS)):
        usage["reasoning"] = draw(st.integers(0, usage["output"]))
    usage["totalTokens"] = (usage["input"] + usage["output"] + usage["cacheRead"]
                            + usage["cacheWrite"])
    usage["cost"] = draw(costs(values))
    return usage


@cache
def usages(values: Values = ORDINARY, *, reasoning: bool | None = None,
           cache_write_1h: bool | None = None) -> SearchStrategy[dict[str, Any]]:
    """A ``Usage`` obeying the invariants in the module docstring.

    ``reasoning`` / ``cache_write_1h``: ``True`` always include that optional field, ``False``
    never, ``None`` either. Example: ``{"input": 100, "output": 10, "cacheRead": 5,
    "cacheWrite": 2, "cacheWrite1h": 1, "reasoning": 3, "totalTokens": 117, "cost": {...}}``.
    """
    return _usages(values, reasoning, cache_write_1h)
