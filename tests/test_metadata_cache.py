"""The case metadata cache (corpus/metadata_cache.py): a warm load parses no case.toml, and a
case.toml that changed in any way, or broke, is read and checked again with the same errors."""

from __future__ import annotations

import datetime
import os

import pytest

from conformance.corpus import cases as cases_module
from conformance.corpus import metadata_cache
from conformance.corpus.cases import Corpus
from conformance.errors import CorpusError


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The case.toml files parsed (not served from the cache) from now on."""
    seen: list[str] = []
    original = cases_module.read_toml

    def counting(path, data=None):
        seen.append(path.parent.name)
        return original(path, data)

    monkeypatch.setattr(cases_module, "read_toml", counting)
    return seen


def describe_failure(corpus_dir) -> str:
    with pytest.raises(CorpusError) as caught:
        _ = Corpus(corpus_dir).cases
    return caught.value.describe()


def test_a_warm_load_parses_no_case_file_and_gives_the_same_cases(corpus_dir, parsed):
    cold = Corpus(corpus_dir).cases
    assert sorted(parsed) == sorted(c.directory.name for c in cold)
    parsed.clear()
    warm = Corpus(corpus_dir).cases
    assert parsed == []
    assert warm == cold
    assert [c.options for c in warm] == [c.options for c in cold]


def test_a_change_of_same_size_and_time_is_still_seen(corpus_dir, parsed):
    """Keyed by content, not by size and modification time: an edit in the same clock tick,
    or one whose time was set back, is read again."""
    _ = Corpus(corpus_dir).cases
    meta = corpus_dir / "cases" / "small" / "beta" / "case.toml"
    before = os.stat(meta)
    meta.write_text(meta.read_text().replace("ISO string", "ISO STRING"))
    os.utime(meta, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(meta).st_size == before.st_size
    parsed.clear()
    titles = {c.id: c.title for c in Corpus(corpus_dir).cases}
    assert "ISO STRING" in titles["small.beta"]
    assert parsed == ["beta"]


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('title = "The entry', 'title = "The "entry', "not valid TOML"),
    ('title = "The entry', 'title = 3 #', "invalid metadata at title"),
    ('id = "small.beta"', 'id = "small.beta\\n"', "invalid metadata at id"),
])
def test_a_case_file_broken_after_caching_gives_the_error_of_a_cold_load(
        corpus_dir, tmp_path, monkeypatch, old, new, problem):
    _ = Corpus(corpus_dir).cases  # cached while valid
    meta = corpus_dir / "cases" / "small" / "beta" / "case.toml"
    meta.write_text(meta.read_text().replace(old, new))
    warm = describe_failure(corpus_dir)
    monkeypatch.setenv("PI_CONFORMANCE_CACHE", str(tmp_path / "empty-cache"))
    cold = describe_failure(corpus_dir)
    assert warm == cold
    assert str(meta) in warm and problem in warm
    assert describe_failure(corpus_dir) == cold  # and again: a broken file is never cached


def test_a_corrupt_cache_is_ignored(corpus_dir, parsed):
    cold = Corpus(corpus_dir).cases
    cache = metadata_cache.MetadataCache(Corpus(corpus_dir).root)
    assert cache.path.is_file()
    cache.path.write_bytes(b"{not json")
    assert Corpus(corpus_dir).cases == cold


def test_a_changed_schema_or_runner_version_empties_the_cache(corpus_dir, parsed, monkeypatch):
    _ = Corpus(corpus_dir).cases
    parsed.clear()
    monkeypatch.setattr(metadata_cache, "__version__", "another")
    _ = Corpus(corpus_dir).cases
    assert parsed != []
    parsed.clear()
    monkeypatch.setattr(metadata_cache.MetadataCache, "_stamp_digest",
                        staticmethod(lambda: "another schema"))
    _ = Corpus(corpus_dir).cases
    assert parsed != []


@pytest.mark.parametrize(("value", "kept"), [
    ({"a": [1, 2.5, "x", True, {"b": None}]}, False),  # JSON's null is not TOML's
    ({"a": [1, 2.5, "x", True, {"b": "c"}]}, True),
    ({"when": datetime.date(2025, 1, 1)}, False),
    ({"n": float("inf")}, False),
    ({"n": float("nan")}, False),
    ({"n": 2**64}, False),
])
def test_only_what_json_gives_back_unchanged_is_cached(value, kept):
    assert metadata_cache._plain_json(value) is kept
