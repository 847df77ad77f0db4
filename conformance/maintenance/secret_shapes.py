"""Common shapes of secrets (tokens, keys, addresses, home paths...), to refuse keeping one.

Anonymizing replaces every string that is not vocabulary anyway; this is the second guard
for what it does keep (a model id, a custom type, a provider's key name): a kept value that
has the shape of a secret is replaced like text instead.
"""

from __future__ import annotations

import re

SHAPES: dict[str, re.Pattern[str]] = {name: re.compile(pattern) for name, pattern in {
    "github token": r"\b(gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})",
    "slack token": r"\bxox[abeposr]-[A-Za-z0-9-]{8,}",
    "aws access key": r"\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{12,}",
    "jwt": r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.",
    "private key": r"-----BEGIN [A-Z ]*PRIVATE KEY",
    "api key": r"\b(sk|rk|pk)[-_](live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}|\bAIza[\w-]{20,}",
    "bearer token": r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}",
    "password": r"(?i)(pass(word|wd)?|pwd|secret|token|api[_-]?key)\s*[=:]",
    "e-mail address": r"[\w.%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",
    "url with a password": r"[A-Za-z][\w+.-]*://[^/\s:@]+:[^/\s@]*@",
    "ssn": r"\b\d{3}-\d{2}-\d{4}\b",
    "phone number": r"(\+\d{1,3}[ .-]?)?\(?\b\d{3}\)?[ .-]?\d{3}[ .-]\d{4}\b",
    "card number": r"\b(\d[ -]?){13,19}\b",
    "ipv4 address": r"\b\d{1,3}(\.\d{1,3}){3}\b",
    "ipv6 address": r"\b[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{0,4}){3,7}\b",
    "hostname": r"(?i)\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|dev|ai|co|app|cloud|edu|"
                r"gov|internal|local|localdomain|lan|corp|home|example|test|invalid)\b",
    "home path": r"(/home/|/Users/|/root/|\b[A-Za-z]:\\+(Users|Documents and Settings)\\)",
    "long hex": r"\b[0-9A-Fa-f]{32,}\b",
    "long base64": r"[A-Za-z0-9+/_-]{40,}",
}.items()}


def secret_shape(text: str) -> str | None:
    """The name of the first secret shape ``text`` holds, or None."""
    return next((name for name, pattern in SHAPES.items() if pattern.search(text)), None)
