"""The shapes of common secrets, and that vocabulary Pi keeps has none of them."""

from __future__ import annotations

import pytest

from conformance.maintenance.secret_shapes import secret_shape


@pytest.mark.parametrize("secret", [
    "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng", "gho_Q8w7e6r5t4y3u2i1o0pAsDf",
    "github_pat_11ABCDEFG0123456789",
    "xoxb-123456789012-abc", "AKIAQWERTYUIOPASDFGH", "ASIAZXCVBNMQWERTYUIO",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig", "-----BEGIN RSA PRIVATE KEY-----",
    "sk-proj-Zq9Xw8Vu7Ts6Rp5On4Ml3", "sk_live_51HqwertyuiopASDF",
    "AIzaSyD-abcdefghijklmnopqrstuv",
    "Bearer abcdef123456", "password=x", "alice@example.com", "https://u:p@host/x",
    "078-05-1120", "+1 (415) 555-0198", "4111 1111 1111 1111", "203.0.113.77",
    "2001:db8:85a3::8a2e:370:7334", "build-07.corp.acme.internal", "/home/alice",
    "/Users/bob", "C:\\Users\\carol", "deadbeefcafebabe0123456789abcdef",
    "QmFzZTY0U2VjcmV0VmFsdWVUaGF0SXNMb25nRW5vdWdo",
])
def test_common_secrets_have_a_shape(secret):
    assert secret_shape(secret) is not None


@pytest.mark.parametrize("vocabulary", [
    "anthropic-messages", "claude-sonnet-4-5", "claude-sonnet-4-5@20250929", "gpt-5",
    "some/other-model", "us.anthropic.claude-3-5-sonnet-20241022-v2:0", "toolUse",
    "image/png", "google-generative-ai", "openai-responses", "call_abc", "xhigh",
])
def test_pi_vocabulary_has_none(vocabulary):
    assert secret_shape(vocabulary) is None
