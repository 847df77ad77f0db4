"""Public Hypothesis strategies for Pi's messages, session entries and whole session trees.

Import them into your own property tests::

    from hypothesis import given
    import strategies as pis

    @given(pis.session_files())
    def test_my_parser_loads_every_valid_session(data):
        my_parser.load(data)

Valid data (:mod:`.content`, :mod:`.usage`, :mod:`.messages`, :mod:`.entries`,
:mod:`.sessions`) and edge cases (:mod:`.edge`) are separate strategies; every strategy takes
``values=`` (:mod:`.values`) so the edge pools can be swapped into any of them. Invariants
an implementation must keep are in :mod:`.properties`. The session strategies take
``seeded=True`` to draw the same kinds of sessions about ten times faster, each entry's
values from one seed (:mod:`.seeded`).
"""

from strategies.content import (
    assistant_content,
    image_blocks,
    text_blocks,
    thinking_blocks,
    tool_call_ids,
    tool_calls,
    tool_result_content,
    user_content,
)
from strategies.edge import (
    deep_json,
    edge_session_files,
    edge_sessions,
    edge_values,
    empty_strings,
    extreme_iso_timestamps,
    extreme_ms_timestamps,
    extreme_numbers,
    file_variants,
    redacted_thinking_blocks,
    unusual_texts,
)
from strategies.entries import (
    ENTRY_TYPES,
    branch_summary_entries,
    compaction_entries,
    context_edit_entries,
    custom_entries,
    custom_message_entries,
    label_entries,
    message_entries,
    model_change_entries,
    replacements,
    session_entries,
    session_headers,
    session_info_entries,
    thinking_level_change_entries,
    usage_entries,
)
from strategies.messages import (
    agent_messages,
    assistant_messages,
    bash_execution_messages,
    branch_summary_messages,
    compaction_summary_messages,
    custom_messages,
    stored_messages,
    system_messages,
    tool_result_messages,
    tools,
    unknown_role_messages,
    user_messages,
)
from strategies.responses import body_cuts, character_cuts, cut_body, every_byte
from strategies.sessions import Session, hook_messages, legacy_sessions, session_files, sessions
from strategies.usage import costs, usages
from strategies.values import (
    ORDINARY,
    Values,
    entry_ids,
    iso_timestamps,
    json_values,
    ms_timestamps,
    texts,
)

__all__ = [
    "ENTRY_TYPES",
    "ORDINARY",
    "Session",
    "Values",
    "agent_messages",
    "assistant_content",
    "assistant_messages",
    "bash_execution_messages",
    "body_cuts",
    "branch_summary_entries",
    "branch_summary_messages",
    "character_cuts",
    "compaction_entries",
    "compaction_summary_messages",
    "context_edit_entries",
    "costs",
    "custom_entries",
    "custom_message_entries",
    "custom_messages",
    "cut_body",
    "deep_json",
    "edge_session_files",
    "edge_sessions",
    "edge_values",
    "empty_strings",
    "entry_ids",
    "every_byte",
    "extreme_iso_timestamps",
    "extreme_ms_timestamps",
    "extreme_numbers",
    "file_variants",
    "hook_messages",
    "image_blocks",
    "iso_timestamps",
    "json_values",
    "label_entries",
    "legacy_sessions",
    "message_entries",
    "model_change_entries",
    "ms_timestamps",
    "redacted_thinking_blocks",
    "replacements",
    "session_entries",
    "session_files",
    "session_headers",
    "session_info_entries",
    "sessions",
    "stored_messages",
    "system_messages",
    "text_blocks",
    "texts",
    "thinking_blocks",
    "thinking_level_change_entries",
    "tool_call_ids",
    "tool_calls",
    "tool_result_content",
    "tool_result_messages",
    "tools",
    "unknown_role_messages",
    "unusual_texts",
    "usage_entries",
    "usages",
    "user_content",
    "user_messages",
]
