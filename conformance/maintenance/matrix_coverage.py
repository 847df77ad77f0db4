"""Which cells of the content-block x provider matrix the corpus fills, read from the cases.

A cell is filled by a case that has a ``request.<api>`` golden holding a request (not a
rejection) and whose messages put the block variant there: the messages are the ``llm``
golden's (what the request was built from), else the ``context`` golden's, else every message
entry of the session. Case names and metadata are not trusted: a case called ``matrix.text-...``
whose session lost its text block fills nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from conformance import jsonio
from conformance.corpus.cases import Case, Corpus
from conformance.corpus.goldens import read_golden
from conformance.errors import ConformanceError
from conformance.maintenance.block_axes import Cell, all_cells, cells_of


class _Keyed(Protocol):
    @property
    def key(self) -> str: ...


CellT = TypeVar("CellT", bound=_Keyed)


@dataclass
class FilledCells(Generic[CellT]):
    """Every cell Pi can produce with the cases filling it; cells seen that it cannot."""

    cells: dict[CellT, list[str]]
    beyond: dict[CellT, list[str]] = field(default_factory=dict)

    @property
    def empty(self) -> list[CellT]:
        return [cell for cell, cases in self.cells.items() if not cases]

    def to_json(self) -> dict[str, Any]:
        return {
            "total": len(self.cells),
            "filled": len(self.cells) - len(self.empty),
            "empty": [cell.key for cell in self.empty],
            "cells": {cell.key: cases for cell, cases in self.cells.items()},
            "beyond": {cell.key: cases for cell, cases in
                       sorted(self.beyond.items(), key=lambda item: item[0].key)},
        }


class BlockMatrix(FilledCells[Cell]):
    """The content-block x provider matrix."""


def _golden_output(case: Case, stage: str) -> Any:
    if stage not in case.stages:
        return None
    try:
        golden = read_golden(case, stage)
    except ConformanceError:
        return None
    return golden.result.get("output")


def case_messages(case: Case) -> list[Any]:
    """The messages the case's requests are built from (see the module docstring)."""
    llm = _golden_output(case, "llm")
    if isinstance(llm, list):
        return llm
    context = _golden_output(case, "context")
    if isinstance(context, dict) and isinstance(context.get("messages"), list):
        return list(context["messages"])
    messages = []
    try:
        lines = case.session_bytes().splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            entry = jsonio.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message":
            messages.append(entry.get("message"))
    return messages


def case_cells(corpus: Corpus, case: Case) -> Iterable[Cell]:
    """The cells one case fills."""
    apis = [api for api in case.apis if _golden_output(case, f"request.{api}") is not None]
    if not apis:
        return
    request = corpus.request_options(case)["request"]
    reasoning = "on" if request.get("reasoning") else "off"
    messages = case_messages(case)
    for api in apis:
        yield from cells_of(messages, api, request["models"].get(api, {}), reasoning)


def compute_matrix(corpus: Corpus, cases: Iterable[Case]) -> BlockMatrix:
    matrix = BlockMatrix({cell: [] for cell in all_cells()})
    for case in cases:
        for cell in sorted(set(case_cells(corpus, case))):
            target = matrix.cells if cell in matrix.cells else matrix.beyond
            target.setdefault(cell, []).append(case.id)
    return matrix
