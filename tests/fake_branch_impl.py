"""A tiny Python implementation of the ``branch`` stage, for the discrepancy tests.

``buggy`` has a planted bug a real port might have: it takes the leaf to be the last *message*
entry, where Pi takes the last entry of any type. ``faithful`` follows Pi's rule.
Used as ``python:tests.fake_branch_impl:buggy``.
"""

from __future__ import annotations

from typing import Any

from strategies.properties import parse_session


def _branch(text: str, leaf_types: tuple[str, ...] | None) -> dict[str, Any]:
    header, entries = parse_session(text.encode())
    if header is None:
        return {"rejected": {"message": "Session file is not a valid pi session"}}
    by_id = {e.get("id"): e for e in entries if isinstance(e, dict)}
    candidates = [e for e in entries if isinstance(e, dict)
                  and (leaf_types is None or e.get("type") in leaf_types)]
    leaf = candidates[-1] if candidates else None
    path = []
    seen = set()
    while isinstance(leaf, dict) and id(leaf) not in seen:
        seen.add(id(leaf))
        path.append(leaf)
        leaf = by_id.get(leaf.get("parentId")) if leaf.get("parentId") is not None else None
    path.reverse()
    return {"output": {
        "leafId": path[-1].get("id") if path else None,
        "path": [{"index": next(i for i, e in enumerate(entries) if e is entry),
                  "id": entry.get("id"), "type": entry.get("type")} for entry in path],
    }}


class _Impl:
    def __init__(self, name: str, leaf_types: tuple[str, ...] | None):
        self.name = name
        self.leaf_types = leaf_types

    def hello(self) -> dict[str, Any]:
        return {"protocol": 1,
                "implementation": {"name": self.name, "version": "0.1.0", "language": "python",
                                   "issues": "https://example.invalid/issues"},
                "capabilities": {"stages": ["branch"]}}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        return {stage: _branch(request["session"]["text"], self.leaf_types)
                for stage in request["stages"]}


buggy = _Impl("fake-branch", ("message",))
faithful = _Impl("fake-branch", None)
