"""The attack the fixed-seed anonymizer fell to: run the anonymizer's own code over a word
list, build the reverse map, apply it to another promoted case. With a fresh key per
promotion the reverse map of one run says nothing about another."""

from __future__ import annotations

import itertools
import json
import re

from conformance.maintenance.anonymize import anonymize

#: The private message of the other promotion: every word four letters or longer, since a
#: shorter word has so few images of its shape that any guess hits it by chance.
VICTIM = [
    "Please", "rotate", "staging", "database", "credentials", "before", "Friday", "because",
    "Marcus", "leaked", "them", "while", "debugging", "payment", "webhooks", "from", "inside",
    "airport", "lounges", "yesterday", "evening",
]


def words(count: int) -> list[str]:
    """``count`` pronounceable made-up words of four to nine letters, the same every time."""
    syllables = ["".join(pair) for pair in itertools.product("bdfgklmnprstvz", "aeiou")]
    made: list[str] = []
    for size in (2, 3, 4):
        for combo in itertools.product(syllables, repeat=size):
            made.append("".join(combo)[: 4 + (len(made) % 6)])
            if len(made) == count:
                return made
    return made


def session(text: str) -> str:
    header = {"type": "session", "version": 3, "id": "sess-1",
              "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/work"}
    entry = {"type": "message", "id": "a1b2c3d4", "parentId": None,
             "timestamp": "2025-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": text, "timestamp": 1735689601000}}
    return json.dumps(header) + "\n" + json.dumps(entry) + "\n"


def content(anonymized: str) -> list[str]:
    return str(json.loads(anonymized.splitlines()[1])["message"]["content"]).split(" ")


def test_a_dictionary_run_through_the_anonymizer_recovers_no_word_of_another_promotion():
    dictionary = sorted(set(words(3000)) | {w.lower() for w in VICTIM} | set(VICTIM))
    assert all(re.fullmatch(r"[A-Za-z]{4,}", w) for w in VICTIM)
    reverse = dict(zip(content(anonymize(session(" ".join(dictionary)))), dictionary,
                       strict=True))
    hidden = content(anonymize(session(" ".join(VICTIM))))
    recovered = [w for w, h in zip(VICTIM, hidden, strict=True) if reverse.get(h) == w]
    assert recovered == [], f"recovered {len(recovered)} of {len(VICTIM)} words: {recovered}"


def test_the_same_session_promoted_twice_is_anonymized_differently():
    text = session("the same private words")
    assert content(anonymize(text)) != content(anonymize(text))
