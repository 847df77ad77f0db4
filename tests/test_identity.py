"""Corpus identity: a digest of every case file, cached by stat, never stale."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conformance.corpus import identity
from conformance.corpus.cases import Corpus
from conformance.corpus.identity import corpus_fingerprint


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))


def test_the_digest_changes_with_any_golden(corpus):
    before = corpus_fingerprint(corpus)
    golden = corpus.cases[0].expected_path("stats")
    golden.write_text(golden.read_text() + "\n")
    after = corpus_fingerprint(Corpus(corpus.root))
    assert before["sha256"] != after["sha256"] and before["cases"] == after["cases"]
    shutil.rmtree(corpus.cases[1].directory)
    assert corpus_fingerprint(Corpus(corpus.root))["cases"] == before["cases"] - 1


def test_a_same_size_edit_is_seen(corpus):
    """The cache is keyed by size and modification time; an edit that keeps the size still
    moves the modification time."""
    before = corpus_fingerprint(corpus)["sha256"]
    session = corpus.cases[0].session_path
    data = bytearray(session.read_bytes())
    data[-2:-1] = b" " if data[-2:-1] != b" " else b"\t"
    stat = session.stat()
    session.write_bytes(bytes(data))
    os.utime(session, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert corpus_fingerprint(Corpus(corpus.root))["sha256"] != before


def test_the_cache_gives_the_same_identity_and_spares_the_reads(corpus, monkeypatch):
    cold = corpus_fingerprint(corpus)
    loaded = Corpus(corpus.root)
    assert loaded.cases  # the loader reads every case.toml: what is counted is the identity's
    reads: list[Path] = []
    original = Path.read_bytes

    def counting(self: Path) -> bytes:
        reads.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
    warm = corpus_fingerprint(loaded)
    assert warm == cold
    assert [p for p in reads if p.suffix in (".json", ".jsonl", ".toml")
            and corpus.root in p.parents] == []


def test_a_corrupt_cache_is_ignored(corpus):
    cold = corpus_fingerprint(corpus)
    cache = identity._cache_path(corpus.root)
    cache.write_bytes(b"{not json")
    assert corpus_fingerprint(Corpus(corpus.root)) == cold


def test_the_reference_versions_come_from_the_goldens(corpus):
    found = corpus_fingerprint(corpus)["reference"]
    assert found and all("@" in item for item in found)
