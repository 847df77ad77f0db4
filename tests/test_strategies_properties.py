"""The implementer-facing properties: the real Pi keeps every one of them on generated
sessions, and each one catches the bug it is named for."""

import copy

import pytest
from hypothesis import given

from strategies import edge_session_files, legacy_sessions, properties, session_files
from strategies.properties import PROPERTIES, PropertyViolation, check, same_json

STAGES = ["entries", "branch", "context", "projection", "llm", "prompt", "stats"]


@pytest.mark.reference
@given(session_files() | edge_session_files()
       | (legacy_sessions(1) | legacy_sessions(2)).map(lambda s: s.to_jsonl()))
def test_pi_keeps_every_property_on_generated_sessions(pi, data):
    outputs = pi.outputs(data, STAGES)
    assert check(data, outputs) == []


# A small real session and Pi's own outputs for it, to plant bugs into.
SESSION = b"\n".join([
    b'{"type":"session","version":3,"id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}',
    b'{"type":"message","id":"00000001","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z",'
    b'"message":{"role":"system","content":"S","sections":{"a":"A","b":null},"timestamp":1}}',
    b'{"type":"message","id":"00000002","parentId":"00000001","timestamp":"2024-12-03T14:00:01.000Z",'
    b'"message":{"role":"user","content":"hi","timestamp":1733234401000}}',
    b'{"type":"custom","customType":"todo","data":{"x":1},"id":"00000003","parentId":"00000002",'
    b'"timestamp":"2024-12-03T14:00:02.000Z"}',
    b'{"type":"message","id":"00000004","parentId":"00000003","timestamp":"2024-12-03T14:00:03.000Z",'
    b'"message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"a","provider":"p",'
    b'"model":"m","usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":4,"cacheWrite1h":2,'
    b'"reasoning":3,"totalTokens":20,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,'
    b'"total":0.5}},"stopReason":"stop","timestamp":1733234403000}}',
    b'{"type":"compaction","id":"00000005","parentId":"00000004","timestamp":"2024-12-03T14:00:04.000Z",'
    b'"summary":"sum","firstKeptEntryId":"00000002","tokensBefore":9}',
    b'{"type":"thinking_level_change","id":"00000006","parentId":"00000005",'
    b'"timestamp":"2024-12-03T14:00:05.000Z","thinkingLevel":"high"}',
    b'{"type":"message","id":"00000007","parentId":"00000006","timestamp":"2024-12-03T14:00:06.000Z",'
    b'"message":{"role":"system","content":"","sections":{"c":"C","d":null},"timestamp":7}}',
]) + b"\n"


@pytest.fixture(scope="module")
def outputs(pi):
    found = pi.outputs(SESSION, STAGES)
    assert check(SESSION, found) == []
    return found


def _broken(outputs, stage, change):
    planted = copy.deepcopy(outputs)
    change(planted[stage])
    return [v.property for v in check(SESSION, planted)]


@pytest.mark.reference
def test_every_property_runs_on_a_full_set_of_outputs(outputs):
    assert len(PROPERTIES) >= 10
    for prop in PROPERTIES:
        assert all(need in {"session", *outputs} for need in prop.needs)


@pytest.mark.reference
def test_counting_reasoning_twice_is_caught(outputs):
    def add_reasoning(stats):
        stats["tokens"]["output"] += 3
        stats["tokens"]["total"] += 3
    assert _broken(outputs, "stats", add_reasoning) == ["stats_count_every_usage_once"]


@pytest.mark.reference
def test_counting_cache_write_1h_twice_is_caught(outputs):
    def add(stats):
        stats["tokens"]["cacheWrite"] += 2
    assert "stats_count_every_usage_once" in _broken(outputs, "stats", add)


@pytest.mark.reference
def test_a_custom_entry_in_the_context_is_caught(outputs):
    def leak(projection):
        for item in projection["entries"]:
            if item["sourceEntryId"] == "00000003":
                item["messages"] = [{"role": "user", "content": "{'x': 1}", "timestamp": 2}]
    assert "custom_entries_never_reach_the_context" in _broken(outputs, "projection", leak)


@pytest.mark.reference
def test_iso_message_timestamps_are_caught(outputs):
    def iso(context):
        context["messages"][-1]["timestamp"] = "2024-12-03T14:00:03.000Z"
    assert "message_timestamps_are_numbers" in _broken(outputs, "context", iso)


@pytest.mark.reference
def test_a_wrong_leaf_is_caught(outputs):
    def latest(branch):
        branch["leafId"] = "00000006"
    assert _broken(outputs, "branch", latest) == ["leaf_is_the_last_entry"]


@pytest.mark.reference
def test_settings_from_the_trimmed_context_instead_of_the_path_are_caught(outputs):
    def reset(context):
        context["thinkingLevel"] = "off"
    assert "settings_follow_the_active_path" in _broken(outputs, "context", reset)


@pytest.mark.reference
def test_a_missing_compaction_summary_is_caught(outputs):
    def drop(context):
        context["messages"] = [m for m in context["messages"]
                               if m["role"] != "compactionSummary"]
    assert "compaction_summary_leads_the_context" in _broken(outputs, "context", drop)


@pytest.mark.reference
def test_unconverted_roles_in_the_llm_stage_are_caught(outputs):
    def keep(llm):
        llm.append({"role": "compactionSummary", "summary": "sum", "timestamp": 0})
    assert _broken(outputs, "llm", keep) == ["llm_has_only_provider_roles"]


@pytest.mark.reference
def test_a_removed_section_left_in_the_prompt_is_caught(outputs):
    def keep_null(prompt):
        prompt["system"]["sections"].append(["b", None])
    assert _broken(outputs, "prompt", keep_null) == ["prompt_sections_are_a_set"]


@pytest.mark.reference
def test_entries_changed_on_load_are_caught(outputs):
    def rewrite(entries):
        entries["entries"][1]["message"]["timestamp"] = "2024-12-03T14:00:01.000Z"
    assert _broken(outputs, "entries", rewrite)[0] == "entries_survive_loading"


def test_an_unmigrated_legacy_file_is_caught():
    legacy = (b'{"type":"session","id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}\n'
              b'{"type":"message","timestamp":"2024-12-03T14:00:00.000Z","message":'
              b'{"role":"hookMessage","customType":"x","content":"c","display":true,'
              b'"timestamp":1}}\n')
    header, entries = properties.parse_session(legacy)
    with pytest.raises(PropertyViolation, match="version 3"):
        properties.legacy_files_are_migrated(legacy, {"header": header, "entries": entries})


def test_same_json_is_javascripts_equality():
    assert same_json({"a": 1, "b": [1.0]}, {"b": [1], "a": 1})
    assert same_json(6.26307708786294e16, 62630770878629400)
    assert not same_json(True, 1) and not same_json([1, 2], [2, 1])
    assert not same_json(None, 0)
