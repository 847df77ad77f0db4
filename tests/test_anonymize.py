"""Anonymizing a session: what is kept (structure, vocabulary where Pi's schema gives it
meaning, counted numbers, time as spacing, shape) and what is replaced (everything else),
under a key that differs for each anonymization."""

from __future__ import annotations

import base64
import json

import pytest

from conformance.maintenance.anonymize import anonymize

KEY = b"k" * 32
HEADER = ('{"type":"session","version":3,"id":"sess-1","timestamp":"2025-03-04T10:00:00.000Z",'
          '"cwd":"/work"}\n')


def entry(message: dict[str, object], id_: str = "a1b2c3d4") -> str:
    return json.dumps({"type": "message", "id": id_, "parentId": None,
                       "timestamp": "2025-03-04T10:00:01.000Z", "message": message}) + "\n"


def hidden_message(message: dict[str, object]) -> dict[str, object]:
    out = anonymize(HEADER + entry(message), KEY).splitlines()[1]
    result: dict[str, object] = json.loads(out)["message"]
    return result


def strings(value: object, key: str | None = None) -> list[tuple[str | None, str]]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings(v, k)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item, key)]
    return [(key, value)] if isinstance(value, str) else []


def test_anonymizing_keeps_structure_vocabulary_ids_pairing_and_timestamp_order():
    text = (
        '{"type":"session","version":3,"id":"sess-private-1","timestamp":'
        '"2025-03-04T10:00:00.000Z","cwd":"/home/alice/secret-project"}\n'
        '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":'
        '"2025-03-04T10:00:01.500Z","message":{"role":"user","content":"My password is '
        'hunter22, please read /home/alice/secret-project/notes.txt","timestamp":'
        '1741082401500}}\n'
        '{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":'
        '"2025-03-04T10:00:02.000Z","message":{"role":"assistant","content":[{"type":'
        '"toolCall","id":"call_secret","name":"read","arguments":{"path":'
        '"/home/alice/secret-project/notes.txt"}},{"type":"image","mimeType":"image/png",'
        '"data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}],'
        '"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",'
        '"stopReason":"toolUse","timestamp":1741082402000}}\n')
    hidden = anonymize(text, KEY)
    assert anonymize(text, KEY) == hidden  # one key, one mapping
    before = [json.loads(line) for line in text.splitlines()]
    after = [json.loads(line) for line in hidden.splitlines()]
    for secret in ("alice", "secret", "password", "hunter22", "notes", "sess-private-1",
                   "a1b2c3d4", "2025-03-04"):
        assert secret not in hidden
    assert after[2]["parentId"] == after[1]["id"] != before[1]["id"]
    call = after[2]["message"]["content"][0]
    assert call["id"].startswith("call_") and call["name"] == "read"
    assert list(call["arguments"]) != ["path"], "an argument's name is user data"
    path = next(iter(call["arguments"].values()))
    assert path.startswith(after[0]["cwd"] + "/")
    for b, a in zip(strings(before), strings(after), strict=True):
        assert len(a[1]) == len(b[1])
    kept = {k: after[2]["message"][k] for k in ("role", "api", "provider", "model",
                                                "stopReason")}
    assert kept == {k: before[2]["message"][k] for k in kept}
    image = base64.b64decode(after[2]["message"]["content"][1]["data"])
    assert image.startswith(b"\x89PNG\r\n\x1a\n")
    assert image != base64.b64decode(before[2]["message"]["content"][1]["data"])
    times = [a["timestamp"] for a in after]
    assert times == sorted(times) and times[0] == "2001-01-01T00:00:00.000Z"
    moved = after[1]["message"]["timestamp"] - before[1]["message"]["timestamp"]
    assert after[2]["message"]["timestamp"] - before[2]["message"]["timestamp"] == moved


def test_each_anonymization_has_its_own_key():
    text = HEADER + entry({"role": "user", "content": "private words", "timestamp": 1})
    assert anonymize(text) != anonymize(text)
    assert anonymize(text, KEY) != anonymize(text, b"j" * 32)


def test_vocabulary_is_kept_only_where_pi_gives_it_meaning():
    message = hidden_message({"role": "assistant", "content": [
        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {
            "type": "text", "role": "user", "model": "gpt-5"}}],
        "api": "openai-responses", "provider": "openai", "model": "gpt-5",
        "stopReason": "stop", "timestamp": 1741082402000})
    block = message["content"][0]  # type: ignore[index]
    assert block["type"] == "toolCall" and message["model"] == "gpt-5"
    assert not {"type", "role", "model", "text", "user", "gpt-5"} & (
        set(block["arguments"]) | set(block["arguments"].values()))


def test_a_vocabulary_value_shaped_like_a_secret_is_replaced():
    message = hidden_message({"role": "assistant", "content": [], "api": "x",
                              "provider": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng",
                              "model": "alice@example.com", "timestamp": 1741082402000})
    assert "R4nd0m" not in message["provider"] and "alice" not in message["model"]


def test_counted_numbers_are_kept_and_numbers_in_user_data_replaced():
    usage = {"input": 6419, "output": 12, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 6431,
             "cost": {"input": 0.5, "output": 0.25, "cacheRead": 0, "cacheWrite": 0,
                      "total": 0.75}}
    message = hidden_message({"role": "assistant", "content": [
        {"type": "toolCall", "id": "c", "name": "pay", "arguments": {"pin": 987654321,
                                                                     "ratio": 0.0036}}],
        "usage": usage, "timestamp": 1741082402000})
    assert message["usage"] == usage
    pin, ratio = message["content"][0]["arguments"].values()  # type: ignore[index]
    assert pin != 987654321 and len(str(pin)) == 9 and isinstance(pin, int)
    assert ratio != 0.0036 and 0.001 <= ratio < 0.01


def test_every_script_emoji_and_non_ascii_punctuation_is_replaced_at_the_same_length():
    secret = "秘密のパスワード「開けゴマ」、🔑🐉 naïve"
    content = hidden_message({"role": "user", "content": secret, "timestamp": 1})["content"]
    assert isinstance(content, str)
    assert not {ch for ch in secret if not ch.isascii()} & set(content)
    assert "naïve" not in content
    assert len(content.encode("utf-16-le")) == len(secret.encode("utf-16-le"))  # JS length


def test_names_in_arguments_match_the_tools_schema_after_anonymizing():
    tool = {"name": "search", "description": "Search the wiki",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                           "required": ["query"]}}
    system = hidden_message({"role": "system", "content": "", "toolsAdded": [tool],
                             "sections": {"preamble": "You help Alice"}, "timestamp": 1})
    added = system["toolsAdded"][0]  # type: ignore[index]
    name = next(iter(added["parameters"]["properties"]))
    assert name != "query" and added["parameters"]["required"] == [name]
    assert added["parameters"]["properties"][name] == {"type": "string"}
    assert added["name"] == "search" and "wiki" not in added["description"]
    assert list(system["sections"]) == ["preamble"]  # type: ignore[call-overload]


def test_a_string_holding_json_stays_json_with_nothing_of_its_own():
    inner = json.dumps({"type": "message", "apiKey": "AKIAJSONINSTRINGKEY1"})
    content = hidden_message({"role": "user", "content": inner, "timestamp": 1})["content"]
    assert isinstance(content, str)
    parsed = json.loads(content)
    assert "AKIA" not in content and "apiKey" not in parsed and "message" not in content


def test_a_providers_json_signature_keeps_its_keys_and_type():
    signature = json.dumps({"type": "reasoning", "id": "rs_private", "summary": [
        {"type": "summary_text", "text": "the private thought"}]})
    message = hidden_message({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "the private thought",
         "thinkingSignature": signature}], "timestamp": 1})
    made = json.loads(message["content"][0]["thinkingSignature"])  # type: ignore[index]
    assert made["type"] == "reasoning" and made["id"].startswith("rs_")
    assert made["summary"][0]["type"] == "summary_text" and "private" not in str(made)


def test_a_cut_last_line_is_anonymized_by_position_and_stays_cut():
    whole = entry({"role": "user", "content": "my vault code is marigold and more",
                   "timestamp": 1741082401000})
    cut = whole[:whole.index(" and more")]
    hidden = anonymize(HEADER + cut, KEY).splitlines()[1]
    assert "marigold" not in hidden and "vault" not in hidden
    assert hidden.startswith('{"type": "message", "id": "')
    assert '"role": "user"' in hidden and abs(len(hidden) - len(cut)) <= 2
    with pytest.raises(ValueError):
        json.loads(hidden)


def test_a_line_that_cannot_be_closed_keeps_only_its_punctuation():
    hidden = anonymize(HEADER + '{"a": marigold} vault\n', KEY).splitlines()[1]
    assert "marigold" not in hidden and "vault" not in hidden and len(hidden) == 21


def test_a_line_is_anonymized_whole_whatever_separators_its_strings_hold():
    """Seen in a planted-bug run: a raw U+2028 in a string cut the line in two, and each half,
    rewritten as broken text, lost its numbers (``"input":0039``, ``false`` -> ``brgsj``)."""
    for separator in ("\u2028", "\u0085", "\x1c", "\u2029"):
        line = json.dumps({"type": "message", "message": {"role": "assistant", "content":
                           f"a{separator}b", "usage": {"input": 6419, "cacheRead": 0}}},
                          ensure_ascii=False)
        hidden = anonymize(line + "\n")
        assert hidden.endswith("\n") and hidden.count("\n") == 1
        usage = json.loads(hidden)["message"]["usage"]
        assert usage == {"input": 6419, "cacheRead": 0}


@pytest.mark.parametrize("secret", ["\u00b8%=\U000215ef", "\U0001d400\U0001d401\U0001d402",
                                    "x\u00b7\U00020000"])
def test_letters_beyond_the_bmp_are_rewritten_like_any_other(secret):
    """Seen in a planted-bug run: a string of punctuation and one letter outside the BMP
    survived anonymization whole, because such letters were kept."""
    text = '{"type":"session","version":3,"id":"s","parentSession":' + json.dumps(
        secret, ensure_ascii=False) + "}\n"
    hidden = json.loads(anonymize(text))["parentSession"]
    assert hidden != secret
    assert [len(ch.encode()) for ch in hidden] == [len(ch.encode()) for ch in secret]


@pytest.mark.parametrize("line", ["[" * 5000, "[" * 5000 + "]" * 5000,
                                  '{"a":' * 3000 + '"marigold"' + "}" * 3000],
                         ids=["open", "closed", "objects"])
def test_a_line_nested_deeper_than_python_parses_keeps_only_its_punctuation(line):
    hidden = anonymize(HEADER + line + "\n", KEY).splitlines()[1]
    assert len(hidden) == len(line) and "marigold" not in hidden and '"a"' not in hidden
