"""Whole session trees: structurally valid, and valid for the real Pi (loaded intact)."""

import json

import pytest
from hypothesis import given
from reach import reach, reach_all

from strategies import Session, legacy_sessions, session_files, sessions
from strategies.properties import (
    entries_survive_loading,
    legacy_files_are_migrated,
    parse_session,
)
from strategies.sessions import EDITABLE_ROLES

STAGES = ["entries", "branch", "context", "projection", "llm", "prompt", "stats"]


def _role(entry):
    if entry["type"] == "custom_message":
        return "custom"
    return entry.get("message", {}).get("role") if entry["type"] == "message" else None


def _check_tree(session: Session):
    seen: dict = {}
    for entry in session.entries:
        assert entry["id"] not in seen, "ids are unique"
        assert entry["parentId"] is None or entry["parentId"] in seen, "parents come first"
        seen[entry["id"]] = entry
        # The path at write time: the parent chain of the new entry's parent.
        path_ids = set()
        current = seen.get(entry["parentId"])
        while current is not None:
            path_ids.add(current["id"])
            current = seen.get(current["parentId"])
        if entry["type"] == "compaction":
            assert entry["firstKeptEntryId"] in path_ids | {entry["id"]}
        if entry["type"] == "context_edit":
            assert entry["targetId"] in path_ids
            assert _role(seen[entry["targetId"]]) in (*EDITABLE_ROLES, "custom")
        if entry["type"] == "label":
            assert entry["targetId"] in seen
        if entry["type"] == "branch_summary":
            assert entry["fromId"] == "root" or entry["fromId"] in seen


@given(sessions())
def test_generated_trees_only_reference_entries_that_exist(session):
    _check_tree(session)
    assert session.leaf_id == (session.entries[-1]["id"] if session.entries else None)


@given(legacy_sessions(2))
def test_v2_trees_are_valid_trees_too(session):
    assert session.header["version"] == 2
    _check_tree(session)


@given(legacy_sessions(1))
def test_v1_files_have_no_ids_and_point_back_by_line_index(session):
    assert "version" not in session.header
    for position, entry in enumerate(session.entries, start=1):
        assert "id" not in entry and "parentId" not in entry
        if entry["type"] == "compaction":
            assert 1 <= entry["firstKeptEntryIndex"] < position


def test_legacy_versions_are_one_or_two():
    with pytest.raises(ValueError, match="version 1 or 2"):
        legacy_sessions(3)


@pytest.mark.slow
def test_trees_reach_branches_retain_none_compactions_edits_and_labels():
    reach_all(sessions(), {
        "a branch": lambda s: any(e["parentId"] not in (None, p["id"])
                                  for p, e in zip(s.entries, s.entries[1:], strict=False)),
        "a retain-none compaction": lambda s: any(
            e["type"] == "compaction" and e["firstKeptEntryId"] == e["id"] for e in s.entries),
        "a compaction keeping an earlier entry": lambda s: any(
            e["type"] == "compaction" and e["firstKeptEntryId"] != e["id"] for e in s.entries),
        "a context edit": lambda s: any(e["type"] == "context_edit" for e in s.entries),
        "a label": lambda s: any(e["type"] == "label" for e in s.entries),
    })
    reach(legacy_sessions(2), lambda s: any(e.get("message", {}).get("role") == "hookMessage"
                                           for e in s.entries))


@given(session_files())
def test_files_are_one_json_value_per_line_and_read_back_as_valid_trees(data):
    assert data.endswith(b"\n")
    lines = data.decode("utf-8").split("\n")[:-1]
    assert json.loads(lines[0])["type"] == "session"
    assert all(isinstance(json.loads(line), dict) for line in lines)
    header, entries = parse_session(data)  # read the way Pi reads it: nothing is skipped
    assert header is not None and header["version"] == 3 and len(entries) == len(lines) - 1
    _check_tree(Session(header, entries))


@pytest.mark.reference
@given(session_files())
def test_valid_sessions_load_in_pi_and_survive_the_entries_stage_intact(pi, data):
    outputs = pi.outputs(data, STAGES)  # every stage answers: nothing is rejected
    entries_survive_loading(data, outputs["entries"])


@pytest.mark.reference
@given(legacy_sessions(1) | legacy_sessions(2))
def test_legacy_files_load_in_pi_and_are_migrated(pi, session):
    data = session.to_jsonl()
    outputs = pi.outputs(data, STAGES)
    legacy_files_are_migrated(data, outputs["entries"])
    assert len(outputs["entries"]["entries"]) == len(session.entries)


@given(sessions(seeded=True))
def test_seeded_trees_only_reference_entries_that_exist(session):
    _check_tree(session)


@given(legacy_sessions(1, seeded=True), legacy_sessions(2, seeded=True))
def test_seeded_legacy_files_keep_their_versions_shapes(v1, v2):
    assert "version" not in v1.header and v2.header["version"] == 2
    for position, entry in enumerate(v1.entries, start=1):
        assert "id" not in entry
        if entry["type"] == "compaction":
            assert 1 <= entry["firstKeptEntryIndex"] < position
    _check_tree(v2)


@pytest.mark.reference
@given(session_files(seeded=True))
def test_seeded_sessions_load_in_pi_and_survive_the_entries_stage_intact(pi, data):
    outputs = pi.outputs(data, STAGES)
    entries_survive_loading(data, outputs["entries"])


@pytest.mark.reference
@given(legacy_sessions(1, seeded=True) | legacy_sessions(2, seeded=True))
def test_seeded_legacy_files_load_in_pi_and_are_migrated(pi, session):
    data = session.to_jsonl()
    outputs = pi.outputs(data, STAGES)
    legacy_files_are_migrated(data, outputs["entries"])
    assert len(outputs["entries"]["entries"]) == len(session.entries)
