"""Rendering drafts: every part an upstream issue needs, safe Markdown."""

from __future__ import annotations

from conformance.maintenance.discrepancies import drafts


def failure_entry(**extra):
    entry = {
        "id": "llm-content-abc123", "target": "port", "kind": "implementation-failure",
        "title": "port: llm differs from Pi at $.messages[*].content: changed",
        "status": "open", "resolved_in": None, "resolved_how": None,
        "package": {"name": "port", "versions": ["0.2.0", "0.3.0"],
                    "issues": "https://example.invalid/issues"},
        "stages": ["llm", "request.openai-completions"], "cases": ["a.one", "a.two"],
        "signature": [["$.messages[*].content", "changed"]],
        "expected_source": {"kind": "pi-output", "version": "1.6.0"},
        "differences": [{"path": "$.messages[1].content", "kind": "changed",
                         "expected": "a|b", "actual": "```"}],
        "outputs": {"expected": {"output": [1]}, "actual": {"output": [2]}},
        "reproducer": {"session": '{"type":"session"}\n{"type":"message"}\n', "lines": 2,
                       "original_lines": 9, "source_case": "a.one", "shrunk": True,
                       "tests": 31},
        "commands": ["pi-conformance run --impl process:./port -k a.one --stage llm"],
        "draft": "port/llm-content-abc123.md",
    }
    entry.update(extra)
    return entry


def test_a_failure_draft_has_every_part_of_an_issue():
    text = drafts.failure_draft(failure_entry())
    for part in ("# port: llm differs", "`port` 0.2.0, 0.3.0", "| Status | open |",
                 "`llm`, `request.openai-completions`", "2: `a.one`, `a.two`",
                 "https://example.invalid/issues", "Shrunk from case `a.one` (9 -> 2 lines",
                 '{"type":"message"}', "## Expected (Pi 1.6.0) and actual",
                 "pi-conformance run --impl process:./port"):
        assert part in text, part
    # A pipe or backticks in a value cannot break the table or the code spans.
    assert "`\"a\\|b\"`" in text and "`\"'''\"`" in text


def test_a_resolved_failure_says_in_which_version():
    entry = failure_entry(status="resolved", resolved_in="0.4.0", resolved_how="behaviour")
    assert "| Status | resolved in 0.4.0 (behaviour) |" in drafts.failure_draft(entry)


def test_a_session_holding_a_fence_gets_a_longer_fence():
    entry = failure_entry()
    entry["reproducer"]["session"] = '{"text":"```"}\n'
    text = drafts.failure_draft(entry)
    assert '````jsonl\n{"text":"```"}\n````' in text


def test_the_readme_lists_drafts_by_target_pi_first():
    index = {"reference": {"@earendil-works/pi-coding-agent": "1.6.0"}, "discrepancies": [
        failure_entry(),
        {**failure_entry(), "target": "pi", "id": "x", "title": "Pi thing", "kind":
         "contradiction", "draft": "pi/x.md", "package": {"name": "pi", "versions": ["1.6.0"]}},
    ]}
    text = drafts.readme(index)
    assert text.index("## pi:") < text.index("## port:")
    assert "[Pi thing](pi/x.md)" in text


def test_node_snippets_exist_only_for_stages_pi_exposes_directly():
    assert "SessionManager.open" in drafts.node_snippet("1.6.0", "branch")
    assert "@earendil-works/pi-coding-agent@1.6.0" in drafts.node_snippet("1.6.0", "llm")
    assert drafts.node_snippet("1.6.0", "stats") is None
