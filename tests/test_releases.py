"""releases: any published Pi release as ``--impl pi@X.Y.Z``, pinned by the lockfile its
first install wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.errors import ConformanceError
from conformance.implementations.known import KNOWN, lookup, release_spec
from conformance.implementations.known.releases import NpmRelease, registry_releases


def test_a_release_not_wired_by_hand_is_found_by_its_version():
    entry = lookup("pi@1.3.0")
    assert entry is not None and isinstance(entry.installer, NpmRelease)
    assert entry.installer.package_json()["dependencies"] == {
        "@earendil-works/pi-coding-agent": "1.3.0"}
    assert entry.command(Path("/p"))[-1] == "@earendil-works"
    older = lookup("pi-mariozechner@0.70.0")
    assert older is not None and older.command(Path("/p"))[-1] == "@mariozechner"


def test_the_releases_wired_by_hand_keep_their_own_lockfiles():
    assert lookup("pi@1.0.3") in KNOWN and lookup("pi-mariozechner@0.73.1") in KNOWN


@pytest.mark.parametrize(("given", "spec"), [("1.3.0", "pi@1.3.0"),
                                              ("mariozechner@0.70.0", "pi-mariozechner@0.70.0")])
def test_reference_install_version_names_a_release(given: str, spec: str):
    assert release_spec(given) == spec


@pytest.mark.parametrize("bad", ["1.3", "latest", "1.3.0-beta", "someone@1.3.0"])
def test_anything_else_is_refused_with_the_forms_it_takes(bad: str):
    with pytest.raises(ConformanceError, match=r"expected X\.Y\.Z"):
        release_spec(bad)
    if "@" not in bad:
        with pytest.raises(ConformanceError, match=r"any release X\.Y\.Z of the line"):
            lookup(f"pi@{bad}")


def test_a_release_older_than_the_version_3_session_format_is_refused_naming_the_first():
    with pytest.raises(ConformanceError, match=r"version-2 sessions.*pi-mariozechner@0\.37\.2"):
        lookup("pi-mariozechner@0.32.3")
    assert lookup("pi-mariozechner@0.37.2") is not None


def test_the_releases_listed_are_those_that_read_version_3_sessions(fake_npm: Path):
    assert registry_releases("pi-mariozechner") == [
        "pi-mariozechner@1.6.0", "pi-mariozechner@0.74.0", "pi-mariozechner@0.73.1",
        "pi-mariozechner@0.37.2"]
    assert registry_releases("pi") == ["pi@1.6.0", "pi@0.74.0"]


def test_a_release_runs_with_the_siblings_it_was_published_with(fake_npm: Path):
    """Releases before 1.x ask for pi-ai and the rest of their line by caret ranges, so a
    plain install of pi@0.79.3 ran pi-ai 0.79.10. Each sibling is pinned (npm overrides) to
    its newest version not after the release's own that the range admits."""
    result = CliRunner().invoke(main, ["reference", "install", "--version", "0.79.3"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((NpmRelease("pi", "0.79.3").prefix / "package.json").read_text())
    assert manifest["overrides"] == {"@earendil-works/pi-ai": "0.79.3",
                                     "@earendil-works/pi-tui": "0.79.2"}


def test_an_install_made_before_siblings_were_pinned_is_resolved_again(fake_npm: Path):
    release = NpmRelease("pi", "0.79.3")
    release.prefix.mkdir(parents=True)
    (release.prefix / "package-lock.json").write_text('{"floated": true}\n')
    (release.prefix / ".installed").write_text("0.79.3\n")
    release.node.parent.mkdir(parents=True)
    release.node.write_text("")
    assert not release.is_installed()
    release.install()
    commands = [json.loads(line)[1] for line in fake_npm.read_text().splitlines()]
    assert commands[-1] == "install"  # resolved anew, not npm ci from the floated lock
    assert release.is_installed()


def test_the_first_install_writes_the_lockfile_and_a_reinstall_uses_it(fake_npm: Path):
    result = CliRunner().invoke(main, ["reference", "install", "--version", "1.3.0"])
    assert result.exit_code == 0, result.output
    assert "pi@1.3.0 ready in" in result.output and "--impl pi@1.3.0" in result.output
    prefix = NpmRelease("pi", "1.3.0").prefix
    assert json.loads((prefix / "package.json").read_text())["dependencies"] == {
        "@earendil-works/pi-coding-agent": "1.3.0"}
    lock = (prefix / "package-lock.json").read_bytes()
    again = CliRunner().invoke(main, ["reference", "install", "--version", "1.3.0", "--force"])
    assert again.exit_code == 0, again.output
    commands = [json.loads(line)[1] for line in fake_npm.read_text().splitlines()]
    # resolved once (the registry asked for the siblings' versions then), then reinstalled
    # from that lock
    assert [c for c in commands if c != "view"] == ["install", "ci"]
    assert commands.index("install") > commands.index("view") and commands[-1] == "ci"
    assert commands.count("view") == len(commands) - 2
    assert (prefix / "package-lock.json").read_bytes() == lock


@pytest.mark.slow
@pytest.mark.reference
def test_judging_against_an_older_release_fails_exactly_where_drift_says(tmp_path: Path):
    """``run --against pi@1.0.3`` on the whole corpus: that release agrees with itself
    everywhere (every volatile path found), and the pinned Pi fails exactly on the (case,
    stage) pairs reports/drift.json lists as drifting, but where the case's outcome class
    does not judge that stage (info, as documented)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parent.parent
    drift = json.loads((repo / "reports" / "drift.json").read_text())
    # the stages the drift report compared (a stage added to the corpus since is not in it)
    stages = [arg for stage in drift["stages"] for arg in ("--stage", stage)]

    def run(impl: str) -> dict[tuple[str, str], str]:
        report = tmp_path / f"{impl.replace('@', '-')}.jsonl"
        subprocess.run([sys.executable, "-m", "conformance.cli.main", "run", "--impl", impl,
                        "--against", "pi@1.0.3", *stages, "-q", "--report", str(report)],
                       capture_output=True, timeout=1200, check=False)
        lines = [json.loads(line) for line in report.read_text().splitlines()]
        assert "judged against pi@1.0.3" in lines[0]["corpus"]["reference"][0]
        # events is judged only against the corpus's goldens (a live turn), never a release.
        return {(r["case"], r["stage"]): r["status"] for r in lines
                if r["type"] == "result" and r["stage"] != "events"}

    itself = run("pi@1.0.3")
    assert set(itself.values()) <= {"pass", "info"}  # info: no behaviour is required there
    assert list(itself.values()).count("pass") > 10000
    pinned = run("reference")
    drifting = {(item["case"], item["stage"]) for item in drift["items"]
                if not any("pi@1.6.0" in group and "pi@1.0.3" in group
                            for group in item["groups"])
                and any("pi@1.0.3" in group for group in item["groups"])}
    failed = {key for key, status in pinned.items() if status == "fail"}
    assert failed <= drifting
    assert {pinned[key] for key in drifting - failed} <= {"info", "as-documented"}
    assert len(failed) > 2000  # 2,676 of the 2,716 pairs that drift


def test_answers_are_kept_by_what_determines_them(tmp_path: Path):
    from conformance.execution.answer_cache import AnswerCache

    cache = AnswerCache("pi@1.3.0", tmp_path)
    key = cache.key("plain", b"session", ["entries"], {"cwd": "/x"})
    assert cache.get(key) is None
    cache.put(key, {"entries": {"output": [1, "\ud800"]}})
    assert cache.get(key) == {"entries": {"output": [1, "\ud800"]}}
    assert (cache.hits, cache.misses) == (1, 1)
    others = {cache.key("plain", b"session!", ["entries"], {"cwd": "/x"}),
              cache.key("plain", b"session", ["context"], {"cwd": "/x"}),
              cache.key("plain", b"session", ["entries"], {"cwd": "/y"}),
              cache.key("volatile", b"session", ["entries"], {"cwd": "/x"}),
              AnswerCache("pi@1.4.0", tmp_path).key("plain", b"session", ["entries"],
                                                    {"cwd": "/x"}),
              # the same release installed with other packages (a sibling that floated)
              AnswerCache("pi@1.3.0", tmp_path, installed="pi-ai@1.3.1").key(
                  "plain", b"session", ["entries"], {"cwd": "/x"})}
    assert key not in others and len(others) == 6
    (tmp_path / f"{key}.json").write_text("{broken")
    assert cache.get(key) is None  # a damaged entry is asked again, not trusted


def test_a_kept_answer_is_verified_by_its_provenance_before_it_is_used(tmp_path: Path):
    """Like a shipped golden, a kept answer says what wrote it (release, packages, harness,
    the key of its input); one that says otherwise is asked again, and counted."""
    from conformance.execution.answer_cache import AnswerCache

    cache = AnswerCache("pi@1.3.0", tmp_path, installed="pi-ai@1.3.0")
    key = cache.key("plain", b"session", ["entries"], {})
    cache.put(key, {"entries": {"output": []}})
    stored = json.loads((tmp_path / f"{key}.json").read_text())
    assert stored["provenance"] == {"release": "pi@1.3.0", "installed": "pi-ai@1.3.0",
                                    "harness_sha256": cache.harness, "key": key}
    other = AnswerCache("pi@1.3.0", tmp_path, installed="pi-ai@1.3.1")
    (tmp_path / f"{key}.json").write_text(json.dumps({**stored, "provenance": {
        **stored["provenance"], "installed": "pi-ai@1.3.1"}}))
    assert cache.get(key) is None and cache.rejected == 1
    assert other.key("plain", b"session", ["entries"], {}) != key  # it never asks for it


def test_two_installs_of_one_release_at_once_install_it_once(fake_npm: Path):
    """A history run and a test run installing one release together: the second wiped the
    prefix under the first ('cannot write to the install cache'). Now it waits and finds it
    installed."""
    from concurrent.futures import ThreadPoolExecutor

    release = NpmRelease("pi", "1.3.0")
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda _: release.install(), range(2)))
    assert release.is_installed()
    assert sorted(d.seconds > 0 for d in done) == [False, True]  # one installed, one found it
    commands = [json.loads(line)[1] for line in fake_npm.read_text().splitlines()]
    assert commands.count("install") == 1
