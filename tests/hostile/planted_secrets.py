"""A session with secrets of every common shape planted in every position Pi's format has:
the input of the planted-secrets tests. Generic and written here, never a copy of anyone's
session; every secret is made up."""

from __future__ import annotations

import json
import re
from typing import Any

#: name -> the planted secret. Each is distinctive: none of its words is Pi vocabulary.
SECRETS: dict[str, str] = {
    "github_classic": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnlyAbCdEf",
    "github_oauth": "gho_Q8w7e6r5t4y3u2i1o0pAsDfGhJkLzXcVbNm1",
    "github_fine": "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTuvwxyz0123456789AB",
    "slack_bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack_user": "xoxp-210987654321-3210987654321-ZyXwVuTsRqPoNmLkJiHgFeDc",
    "aws_access": "AKIAQWERTYUIOPASDFGH",
    "aws_session": "ASIAZXCVBNMQWERTYUIO",
    "aws_secret": "wJalrXUtnFEMIK7MDENGbPxRfiCYzQUIETKEYz9",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3aGl0ZXJhYmJpdCJ9.c2lnbmF0dXJlc2VjcmV0eHl6",
    "private_key": "MIIEowIBAAKCAQEAzQ9vXr7kLmNpQrStUvWxYz0123456789AbCdEfGhIjKlMn",
    "email": "alice.liddell@wonderland-corp.example",
    "ssn": "078-05-1120",
    "phone": "+1 (415) 555-0198",
    "ipv4": "203.0.113.77",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "hostname": "build-07.corp.acmeinternal.net",
    "home_linux": "/home/alicel/projects/skunkworks",
    "home_mac": "/Users/bobbytables/Documents/taxreturn",
    "home_windows": "C:\\Users\\carolynx\\AppData\\vaultfile",
    "url_password": "https://dbadmin:hunter2secret@dbhost.acmeinternal.net:5432/prod",
    "bearer": "Bearer sk-live-9f8e7d6c5b4a3f2e1d0c",
    "openai_key": "sk-proj-Zq9Xw8Vu7Ts6Rp5On4Ml3Kj2Ih1Gf0Ed",
    "stripe": "sk_live_51HqwertyuiopASDFGHJKLzxcvbnm",
    "google_api": "AIzaSyD-abcdefghijklmnopqrstuvwxyz12345",
    "long_hex": "deadbeefcafebabe0123456789abcdef0123456789abcdef",
    "long_base64": "QmFzZTY0U2VjcmV0VmFsdWVUaGF0SXNMb25nRW5vdWdoMTIzNDU2Nzg5MA==",
    "password": "Tr0ub4dor-and-3-horses",
    "credit_card": "4111 1111 1111 1111",
    "emoji": "\U0001f511\U0001f409\U0001f3f4\u200d\u2620\ufe0f",
    "cjk": "\u79d8\u5bc6\u306e\u30d1\u30b9\u30ef\u30fc\u30c9\u300c\u958b\u3051\u30b4\u30de\u300d",
    "key_in_arguments": "ghostwriterKeyName",
    "value_as_type": "launchcodes7731",
    "value_as_role": "zebrarootpass",
    "value_equal_to_key": "swordfishaccount",
    "number_pin": "987654321",
    "number_phone": "4155550198",
    "unknown_entry_key": "nightingaleProjectField",
    "label": "operation bluebird",
    "session_name": "Project Kestrel launch",
    "truncated": "xoxa-2-RecoveryC0deTruncatedLine",
    "json_in_string": "AKIAJSONINSTRINGKEY1",
    "thinking": "the vault combination is marigold",
    "signature_json": "rs_privateReasoningId",
}

#: The secrets' words that are not distinctive on their own (shape markers, short parts).
_COMMON = {"https", "Bearer", "Users", "home", "projects", "Documents", "AppData", "live",
           "proj", "prod", "launch", "Project", "operation", "combination", "vault"}


def distinctive(secret: str) -> set[str]:
    """The secret itself and each of its runs of five or more letters and digits."""
    runs = set(re.findall(r"[^\W_]{5,}", secret)) - _COMMON
    return {secret} | {r for r in runs if not r.isdigit() or len(r) >= 6}


def _usage(reasoning: int) -> dict[str, Any]:
    return {"input": 120, "output": 40, "cacheRead": 0, "cacheWrite": 0, "reasoning": reasoning,
            "totalTokens": 160, "cost": {"input": 0.0012, "output": 0.0024, "cacheRead": 0,
                                         "cacheWrite": 0, "total": 0.0036}}


def planted_session() -> str:
    """The session, one JSON line per entry, the last one cut short (no newline)."""
    s = SECRETS
    ms = 1741082400000
    lines: list[Any] = [
        {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2025-03-04T10:00:00.000Z",
         "cwd": s["home_linux"], "parentSession": s["home_windows"],
         s["unknown_entry_key"]: s["hostname"]},
        {"type": "message", "id": "a1b2c3d4", "parentId": None,
         "timestamp": "2025-03-04T10:00:01.000Z",
         "message": {"role": "user", "timestamp": ms + 1000, "content": (
             f"mail {s['email']} ssn {s['ssn']} call {s['phone']} db {s['url_password']} "
             f"card {s['credit_card']} {s['emoji']} {s['cjk']} pass {s['password']}")}},
        {"type": "message", "id": "b2c3d4e5", "parentId": "a1b2c3d4",
         "timestamp": "2025-03-04T10:00:02.000Z",
         "message": {"role": "assistant", "content": [
             {"type": "thinking", "thinking": f"{s['thinking']}; keys {s['aws_access']} "
                                              f"{s['aws_secret']} {s['aws_session']}",
              "thinkingSignature": json.dumps({"type": "reasoning", "id": s["signature_json"],
                                               "summary": [{"type": "summary_text",
                                                            "text": s["jwt"]}]})},
             {"type": "text", "text": f"token {s['jwt']} and {s['openai_key']}"},
             {"type": "toolCall", "id": "call_x1y2z3", "name": "bash", "arguments": {
                 "command": f"curl -H 'Authorization: {s['bearer']}' {s['url_password']}",
                 s["key_in_arguments"]: s["github_classic"],
                 "type": s["value_as_type"], "role": s["value_as_role"],
                 s["value_equal_to_key"]: True,
                 "pin": int(s["number_pin"]),
                 "nested": {s["aws_access"]: [int(s["number_phone"]), s["slack_bot"]]}}}],
             "api": "anthropic-messages", "provider": "anthropic",
             "model": "claude-sonnet-4-5", "usage": _usage(7), "stopReason": "toolUse",
             "timestamp": ms + 2000}},
        {"type": "message", "id": "c3d4e5f6", "parentId": "b2c3d4e5",
         "timestamp": "2025-03-04T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "call_x1y2z3", "toolName": "bash",
                     "content": [
                         {"type": "text", "text": "-----BEGIN RSA PRIVATE KEY-----\n"
                                                  f"{s['private_key']}\n"
                                                  "-----END RSA PRIVATE KEY-----"},
                         {"type": "text", "text": json.dumps(
                             {"apiKey": s["json_in_string"], "type": "message",
                              "session": {"token": s["github_fine"]}})}],
                     "details": {"host": s["hostname"], "ip": s["ipv4"], "ip6": s["ipv6"],
                                 "note": s["value_equal_to_key"], "phone": int(s["number_phone"]),
                                 s["slack_user"]: s["google_api"]},
                     "isError": False, "timestamp": ms + 3000}},
        {"type": "custom", "customType": "audit-log",
         "data": {"stripe": s["stripe"], "path": s["home_mac"], "oauth": s["github_oauth"],
                  "role": "user", "type": "toolResult", "hex": s["long_hex"]},
         "id": "d4e5f6a7", "parentId": "c3d4e5f6", "timestamp": "2025-03-04T10:00:04.000Z"},
        {"type": "custom_message", "customType": "reminder",
         "content": f"remember {s['long_base64']}", "display": False,
         "details": {"owner": s["email"]},
         "id": "e5f6a7b8", "parentId": "d4e5f6a7", "timestamp": "2025-03-04T10:00:05.000Z"},
        {"type": "label", "id": "f6a7b8c9", "parentId": "e5f6a7b8",
         "timestamp": "2025-03-04T10:00:06.000Z", "targetId": "c3d4e5f6", "label": s["label"]},
        {"type": "session_info", "id": "a7b8c9d0", "parentId": "f6a7b8c9",
         "timestamp": "2025-03-04T10:00:07.000Z", "name": s["session_name"]},
        {"type": "message", "id": "b8c9d0e1", "parentId": "a7b8c9d0",
         "timestamp": "2025-03-04T10:00:08.000Z",
         "message": {"role": "bashExecution",
                     "command": f"export AWS_SECRET_ACCESS_KEY={s['aws_secret']}",
                     "output": f"{s['home_mac']}/notes.txt", "exitCode": 0,
                     "cancelled": False, "truncated": False,
                     "fullOutputPath": f"{s['home_linux']}/out.txt", "timestamp": ms + 8000}},
        {"type": "compaction", "id": "c9d0e1f2", "parentId": "b8c9d0e1",
         "timestamp": "2025-03-04T10:00:09.000Z",
         "summary": f"talked about {s['hostname']} and {s['ipv4']}",
         "firstKeptEntryId": "b8c9d0e1", "tokensBefore": 1234,
         "details": {"readFiles": [s["home_linux"] + "/plan.md"]}},
    ]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    cut = json.dumps(
        {"type": "message", "id": "d0e1f2a3", "parentId": "c9d0e1f2",
         "timestamp": "2025-03-04T10:00:10.000Z",
         "message": {"role": "user", "content": f"my recovery code is {s['truncated']} "
                                                "and the rest was never written",
                     "timestamp": ms + 10000}})
    return text + cut[:cut.index("and the rest")]


def survivors(written: str) -> list[str]:
    """The names of the planted secrets of which anything distinctive is in ``written``."""
    return [name for name, secret in SECRETS.items()
            if any(part in written for part in distinctive(secret))]
