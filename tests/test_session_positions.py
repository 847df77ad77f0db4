"""The positions of Pi's session format: every key Pi writes is known where it writes it,
so nothing of Pi's is taken for user data (and its name replaced)."""

from __future__ import annotations

from typing import Any

from hypothesis import given

import strategies as pis
from conformance.maintenance.session_positions import ENTRY, Field, Kind, Named, Obj


def unknown_keys(value: Any, field: Field, path: str = "$") -> list[str]:
    if isinstance(value, list):
        return [k for i, item in enumerate(value) for k in unknown_keys(item, field,
                                                                           f"{path}[{i}]")]
    if not isinstance(value, dict) or isinstance(field, Kind):
        return []
    if isinstance(field, Named):
        return [k for key, item in value.items()
                for k in unknown_keys(item, field.values, f"{path}.{key}")]
    found = [f"{path}.{key}" for key in value if key not in field.fields]
    return found + [k for key, item in value.items() if key in field.fields
                    for k in unknown_keys(item, field.fields[key], f"{path}.{key}")]


@given(pis.session_entries())
def test_every_key_of_a_generated_entry_is_known_at_its_position(entry):
    assert unknown_keys(entry, ENTRY) == []


@given(pis.session_headers())
def test_every_key_of_a_generated_header_is_known(header):
    assert unknown_keys(header, ENTRY) == []


def test_user_data_positions_are_not_tables():
    assert isinstance(ENTRY, Obj)
    message = ENTRY.fields["message"]
    assert isinstance(message, Obj)
    block = message.fields["content"]
    assert isinstance(block, Obj)
    assert block.fields["arguments"] is Kind.DATA and message.fields["details"] is Kind.DATA
    assert ENTRY.fields["data"] is Kind.DATA
