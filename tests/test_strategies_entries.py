"""Entries of every type, in Pi's key order, with the two timestamp forms kept apart."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reach import reach_all

import strategies as pis
from strategies.entries import ENTRY_TYPES, assemble

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T")

BY_TYPE = {
    "message": pis.message_entries,
    "thinking_level_change": pis.thinking_level_change_entries,
    "model_change": pis.model_change_entries,
    "usage": pis.usage_entries,
    "compaction": pis.compaction_entries,
    "branch_summary": pis.branch_summary_entries,
    "custom": pis.custom_entries,
    "custom_message": pis.custom_message_entries,
    "context_edit": pis.context_edit_entries,
    "label": pis.label_entries,
    "session_info": pis.session_info_entries,
}


def test_there_is_a_strategy_for_every_entry_type():
    assert set(BY_TYPE) == set(ENTRY_TYPES)


@pytest.mark.parametrize("kind", ENTRY_TYPES)
@given(data=st.data())
def test_every_entry_type_has_the_envelope_in_pis_order(kind, data):
    entry = data.draw(BY_TYPE[kind]())
    assert entry["type"] == kind
    assert re.fullmatch(r"[0-9a-f]{8}", entry["id"])
    assert ISO.match(entry["timestamp"]), "entry timestamps are ISO strings"
    keys = list(entry)
    envelope = keys.index("id"), keys.index("parentId"), keys.index("timestamp")
    assert list(envelope) == sorted(envelope) and envelope[1] == envelope[0] + 1
    if kind in ("custom", "custom_message"):
        assert keys[-3:] == ["id", "parentId", "timestamp"]
    else:
        assert keys[:4] == ["type", "id", "parentId", "timestamp"]


@given(pis.message_entries())
def test_message_entries_hold_millisecond_message_timestamps(entry):
    assert isinstance(entry["message"]["timestamp"], int)


@given(pis.context_edit_entries(target_role="assistant"))
def test_edits_of_assistant_content_are_stored_as_blocks(entry):
    replacement = entry["replacement"]
    assert replacement is None or isinstance(replacement["content"], list)


@given(pis.compaction_entries(first_kept_ids=st.just("a1b2c3d4")))
def test_compactions_keep_the_entry_they_are_given(entry):
    assert entry["firstKeptEntryId"] == "a1b2c3d4"
    assert isinstance(entry["tokensBefore"], int)


@given(pis.session_info_entries())
def test_session_names_are_one_line(entry):
    assert "\n" not in entry.get("name", "") and "\r" not in entry.get("name", "")


@given(pis.session_headers())
def test_headers_are_version_3_with_an_id_and_iso_time(header):
    assert header["type"] == "session" and header["version"] == 3
    assert isinstance(header["id"], str) and ISO.match(header["timestamp"])


def test_session_entries_reach_every_entry_type():
    reach_all(pis.session_entries(),
              {kind: (lambda e, kind=kind: e["type"] == kind) for kind in ENTRY_TYPES})


def test_assemble_follows_pis_key_order():
    assert list(assemble("label", "a", None, "t", {"targetId": "b"})) == [
        "type", "id", "parentId", "timestamp", "targetId"]
    assert list(assemble("custom", "a", None, "t", {"customType": "x"})) == [
        "type", "customType", "id", "parentId", "timestamp"]
