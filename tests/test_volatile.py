"""Normalization of recordings: by identity, so equal runs give equal bytes."""

from __future__ import annotations

from conformance.maintenance.captures.volatile import SESSION_ID, Normalizer

SANDBOX = "/tmp/pi-capture-x1"
RAW_SESSION = [
    {"type": "session", "version": 3, "id": "0199-uuid", "timestamp": "2026-12-02T11:00:00.100Z",
     "cwd": f"{SANDBOX}/work"},
    {"type": "message", "id": "a1b2c3d4", "parentId": None,
     "timestamp": "2026-12-02T11:00:00.200Z",
     "message": {"role": "user", "content": "hi", "timestamp": 1796208000150}},
    {"type": "message", "id": "e5f6a7b8", "parentId": "a1b2c3d4",
     "timestamp": "2026-12-02T11:00:00.200Z",
     "message": {"role": "assistant", "content": [], "stopReason": "stop",
                 "timestamp": 1796208000150, "durationMs": 123}},
    {"type": "compaction", "id": "c0c0c0c0", "parentId": "e5f6a7b8",
     "timestamp": "2026-12-02T11:00:05.000Z", "summary": "s", "firstKeptEntryId": "e5f6a7b8"},
]


def normalizer() -> Normalizer:
    return Normalizer(session_path=f"{SANDBOX}/sessions/x_0199-uuid.jsonl",
                      work=f"{SANDBOX}/work", sandbox=SANDBOX, prefix="/opt/pi", port=4242,
                      session_lines=RAW_SESSION)


def test_session_lines_get_timestamps_by_position_and_ids_by_order():
    lines = normalizer().session_lines()
    assert lines[0]["id"] == SESSION_ID and lines[0]["cwd"] == "/pi-conformance/cwd"
    assert [line["timestamp"] for line in lines] == [
        "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z",
        "2026-01-01T00:00:03.000Z"]
    # equal raw timestamps in different lines still get different, ordered values
    assert lines[1]["message"]["timestamp"] == 1767225601000
    assert lines[2]["message"]["timestamp"] == 1767225602000
    assert (lines[2]["id"], lines[2]["parentId"]) == ("00000002", "00000001")
    assert lines[3]["firstKeptEntryId"] == "00000002"
    assert lines[2]["message"]["durationMs"] == 0


def test_other_surfaces_take_the_normalized_form_of_the_equal_message():
    norm = normalizer()
    answer = {"messages": [RAW_SESSION[1]["message"], RAW_SESSION[2]["message"],
                           {"role": "compactionSummary", "summary": "s",
                            "timestamp": 1796209205000},
                           {"role": "custom", "timestamp": 5}],
              "sessionFile": f"{SANDBOX}/sessions/x_0199-uuid.jsonl", "sessionId": "0199-uuid"}
    out = norm(answer)
    assert [m["timestamp"] for m in out["messages"]] == [
        1767225601000, 1767225602000, 1767225603000, "<timestamp>"]
    assert out["sessionFile"] == "/pi-conformance/sessions/session.jsonl"
    assert out["sessionId"] == SESSION_ID


def test_events_keep_only_stable_fields_of_a_pending_start_and_drop_update_usage():
    final = RAW_SESSION[2]["message"]
    pending = {**final, "content": [{"type": "text", "text": "par"}], "stopReason": "pending",
               "responseId": "r1", "usage": {"input": 1}}
    events = normalizer().events([
        {"type": "message_start", "message": pending},
        {"type": "message_update", "usage": {"input": 1}, "assistantMessageEvent": {"type": "x"}},
        {"type": "message_end", "message": final},
    ])
    assert events[0]["message"] == {"role": "assistant", "stopReason": "pending",
                                    "timestamp": 1767225602000}
    assert "usage" not in events[1]
    assert events[2]["message"]["stopReason"] == "stop"


def test_parallel_tool_ends_are_put_in_call_order():
    events = normalizer().events([
        {"type": "tool_execution_start", "toolCallId": "a"},
        {"type": "tool_execution_start", "toolCallId": "b"},
        {"type": "tool_execution_end", "toolCallId": "b", "durationMs": 3},
        {"type": "tool_execution_end", "toolCallId": "a", "durationMs": 9},
    ])
    assert [(e["type"][15:], e["toolCallId"]) for e in events] == [
        ("start", "a"), ("start", "b"), ("end", "a"), ("end", "b")]
    assert {e.get("durationMs") for e in events[2:]} == {0}


def test_paths_and_port_are_replaced_inside_strings():
    out = normalizer()({"text": f"see {SANDBOX}/work/a.txt and /opt/pi/docs at "
                                "http://127.0.0.1:4242/v1"})
    assert out["text"] == ("see /pi-conformance/cwd/a.txt and /pi-conformance/pi/docs at "
                           "http://127.0.0.1:0/v1")
