"""The reference as an oracle on any session file: reference run, compare on a directory of
generated sessions with a planted bug, anonymized promotion, and sharded runs merged."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.cases import Corpus
from conformance.corpus.shards import Shard, shard_of
from conformance.implementations.process import Timeout
from conformance.jsonio import jsonl_lines
from conformance.reporting.stream import read_report

REPO = Path(__file__).resolve().parent.parent
FAKES = Path(__file__).resolve().parent / "fakes"
#: Keys whose values anonymizing keeps where Pi's schema gives them meaning.
KEPT_KEYS = frozenset({"type", "role", "api", "provider", "model", "modelId", "stopReason",
                       "toolName", "name", "mimeType", "customType", "thinkingLevel"})
TRIGGER = re.compile(rb'"reasoning":[1-9]')


def triggers(session: bytes) -> bool:
    """An assistant message with reasoning tokens: what stats_impl:buggy counts twice."""
    for line in jsonl_lines(session.decode()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if entry.get("type") == "message" and isinstance(message, dict) \
                and message.get("role") == "assistant" \
                and isinstance(message.get("usage"), dict) \
                and (message["usage"].get("reasoning") or 0) > 0:
            return True
    return False


@pytest.fixture(scope="module")
def session_pool() -> list[bytes]:
    """Six sessions from the public strategies, two of them with reasoning tokens (what the
    planted bug of stats_impl:buggy counts twice): drawn once for the tests that need some,
    since drawing them takes seconds."""
    import strategies as pis

    strategy = pis.sessions(min_entries=6, max_entries=20)
    pool: list[bytes] = []
    triggering = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(500):
            if len(pool) == 6:
                break
            session = strategy.example().to_jsonl()
            shows = triggers(session)
            if (triggering >= 2) if shows else (len(pool) - triggering >= 4):
                continue
            triggering += shows
            pool.append(session)
    assert len(pool) == 6
    return pool


def generated_sessions(directory: Path, pool: list[bytes], count: int) -> list[Path]:
    """``count`` sessions of the pool in ``directory``, both of its triggering ones among
    them."""
    chosen = [s for s in pool if triggers(s)]
    chosen += [s for s in pool if not triggers(s)][:count - len(chosen)]
    written: list[Path] = []
    for session in chosen:
        path = directory / f"project-{len(written)}" / f"{len(written):04d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(session)
        written.append(path)
    assert len(written) == count
    return written


def strings(value: object, key: str | None = None) -> list[tuple[str | None, str]]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings(v, k)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item, key)]
    return [(key, value)] if isinstance(value, str) else []


def keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for item in value for k in keys(item)}
    return set()


# -- without the reference -------------------------------------------------------------------

def test_a_shard_is_a_stable_partition_whatever_the_order():
    ids = [f"area.case-{n}" for n in range(200)]
    shards = [Shard(k, 4) for k in range(1, 5)]
    parts = [set(shard.select(ids, key=str)) for shard in shards]
    assert set().union(*parts) == set(ids) and sum(map(len, parts)) == len(ids)
    assert parts[1] == set(Shard(2, 4).select(list(reversed(ids)), key=str))
    assert all(parts), "every shard gets some of 200 cases"
    assert shard_of("area.case-7", 4) == shard_of("area.case-7", 4)
    assert {Shard(k, 3).seed(5) for k in (1, 2, 3)} == {15, 16, 17}


@pytest.mark.parametrize("text", ["0/4", "5/4", "x", "1-4"])
def test_a_bad_shard_is_a_usage_error(text):
    result = CliRunner().invoke(main, ["run", "--impl", "reference", "--shard", text])
    assert result.exit_code == 2 and "--shard" in result.output


def test_merge_refuses_missing_overlapping_and_foreign_shards(tmp_path, corpus_dir, fake):
    runner = CliRunner()
    reports = {}
    for name, shard, spec in (("a", "1/2", fake("correct")), ("b", "2/2", fake("correct")),
                              ("c", "2/2", fake("wrong", "--stage", "context"))):
        reports[name] = tmp_path / f"{name}.jsonl"
        runner.invoke(main, ["run", "--impl", spec, "--shard", shard, "--corpus",
                             str(corpus_dir), "--report", str(reports[name]), "-q",
                             "--format", "json"])
    out = tmp_path / "merged.jsonl"
    merge = ["report", "merge"]
    missing = runner.invoke(main, [*merge, str(reports["a"]), "-o", str(out)])
    assert missing.exit_code == 2 and "missing shard(s) 2/2" in missing.output
    assert not out.exists()
    twice = runner.invoke(main, [*merge, str(reports["a"]), str(reports["b"]),
                                 str(reports["c"]), "-o", str(out)])
    assert twice.exit_code == 2 and "c.jsonl" in twice.output
    whole = tmp_path / "whole.jsonl"
    runner.invoke(main, ["run", "--impl", fake("correct"), "--corpus", str(corpus_dir),
                         "--report", str(whole), "-q", "--format", "json"])
    unsharded = runner.invoke(main, [*merge, str(reports["a"]), str(whole), "-o", str(out)])
    assert unsharded.exit_code == 2 and "not a shard" in unsharded.output
    merged = runner.invoke(main, [*merge, str(reports["b"]), str(reports["a"]), "-o", str(out)])
    assert merged.exit_code == 0, merged.output
    assert sorted((r.case, r.stage, r.status) for r in read_report(out).results) == \
        sorted((r.case, r.stage, r.status) for r in read_report(whole).results)
    assert read_report(out).header.selection.shard == ""
    assert read_report(reports["a"]).header.selection.shard == "1/2"


def test_compared_files_get_stable_distinct_keys_and_valid_case_ids(tmp_path):
    from conformance.maintenance.compare import session_files

    for name in ("a", "b"):
        (tmp_path / name / "logs").mkdir(parents=True)
        (tmp_path / name / "logs" / "s.jsonl").write_text("{}\n")
        (tmp_path / name / "logs" / "notes.txt").write_text("not a session")
    alone = session_files((tmp_path / "a",))
    assert [f.key for f in alone] == ["logs/s.jsonl"]
    both = session_files((tmp_path / "a", tmp_path / "b" / "logs"))
    assert [f.key for f in both] == ["a/logs/s.jsonl", "logs/s.jsonl"]
    same_name = session_files((tmp_path / "a" / "logs", tmp_path / "b" / "logs"))
    assert len({f.key for f in same_name}) == 2 and len({f.case_id for f in same_name}) == 2
    assert all(re.match(r"^compare\.[a-z0-9]+(-[a-z0-9]+)*$", f.case_id) for f in both)


class HangingPi:
    """Answers entries, hangs on branch (a real process would be killed by the failed run);
    records what it is asked to do, restarts included."""

    def __init__(self) -> None:
        self.events: list[tuple[str, ...]] = []

    def run(self, request: dict, timeout: float) -> dict:
        self.events.append(("run", *request["stages"]))
        if "branch" in request["stages"]:
            raise Timeout(f"no answer within {timeout:g}s")
        return {"seq": request["seq"],
                "results": {stage: {"output": {"entries": []}} for stage in request["stages"]}}

    def restart(self) -> None:
        self.events.append(("restart",))

    def close(self) -> None:
        self.events.append(("close",))


def test_after_a_hang_pi_is_restarted_before_the_next_question_not_after_the_last(tmp_path):
    from conformance.execution.oracle import ReferenceOracle

    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"session","version":3,"id":"s"}\n')
    pi = HangingPi()
    oracle = ReferenceOracle(impl=pi, stage_timeout=0.5)  # type: ignore[arg-type]
    oracle.stages = ["entries", "branch"]
    try:
        first = oracle.answer(session)
        after_first = list(pi.events)
        second = oracle.answer(session)
    finally:
        oracle.close()
    assert first.kinds() == second.kinds() == {"entries": "output", "branch": "misbehaved"}
    each_file = [("run", "entries", "branch"), ("restart",), ("run", "entries"),
                 ("run", "branch")]
    assert after_first == each_file, "no restart after the last question"
    assert pi.events == [*each_file, ("restart",), *each_file, ("close",)]

@pytest.mark.reference
def test_reference_run_answers_every_stage_and_reports_rejections(tmp_path):
    good = tmp_path / "good.jsonl"
    shutil.copy(REPO / "corpus/cases/traps/two-timestamps/session.jsonl", good)
    late = tmp_path / "late.jsonl"
    shutil.copy(REPO / "corpus/cases/header/late/session.jsonl", late)
    untouched = good.read_bytes()
    result = CliRunner().invoke(main, ["reference", "run", str(good), str(late),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    import jsonschema

    schema = json.loads((REPO / "conformance/schemas/reference-run.schema.json").read_text())
    jsonschema.validate(document, schema)
    first, second = document["files"]
    assert set(first["stages"]) == set(document["stages"]) and "events" not in first["stages"]
    golden = json.loads((REPO / "corpus/cases/traps/two-timestamps/expected/branch.json")
                        .read_text())
    assert first["stages"]["branch"] == golden["result"]
    assert all("rejected" in verdict for verdict in second["stages"].values())
    assert good.read_bytes() == untouched
    text = CliRunner().invoke(main, ["reference", "run", str(late), "--stage", "entries"])
    assert "entries: rejected:" in text.stdout


@pytest.mark.reference
@pytest.mark.slow
def test_reference_run_reports_a_hang_per_stage():
    session = REPO / "corpus/cases/branch/self-parent/session.jsonl"
    # Pi loops forever on branch here, so the timeout only has to be long enough for entries
    # to be answered on a loaded machine (it was 1 s: entries missed it under load); the
    # hang costs three timeouts (both stages at once, twice the timeout; then branch alone).
    result = CliRunner().invoke(main, ["reference", "run", str(session), "--stage", "entries",
                                       "--stage", "branch", "--stage-timeout", "10",
                                       "--format", "json"])
    stages = json.loads(result.stdout)["files"][0]["stages"]
    assert "output" in stages["entries"], stages["entries"]
    assert next(iter(stages["branch"])) in ("misbehaved", "rejected"), stages["branch"]


@pytest.mark.reference
@pytest.mark.slow
def test_compare_finds_shrinks_and_promotes_an_anonymized_planted_bug(tmp_path, monkeypatch,
                                                                     session_pool):
    monkeypatch.syspath_prepend(str(FAKES))
    monkeypatch.chdir(FAKES)  # python:stats_impl:buggy is found from here
    sessions = tmp_path / "sessions"
    files = generated_sessions(sessions, session_pool, count=5)
    untouched = {path: path.read_bytes() for path in files}
    candidates, report = tmp_path / "candidates", tmp_path / "compare.jsonl"
    junit = tmp_path / "compare.xml"
    result = CliRunner().invoke(main, [
        "compare", "--impl", "python:stats_impl:buggy", str(sessions), "--candidates",
        str(candidates), "--report", str(report), "--junit", str(junit), "--format", "json"])
    assert result.exit_code == 1, result.output
    compared = read_report(report)
    assert compared.header.corpus.cases == 5 and compared.case_count == 5
    failing = compared.failures()
    assert len(failing) == 2 and {f.stage for f in failing} == {"stats"}
    assert any(d.path == "$.tokens.output" for d in failing[0].differences)
    assert "[5/5]" in result.stderr and "testcase" in junit.read_text()
    assert {path: path.read_bytes() for path in files} == untouched
    assert sorted(p for p in sessions.rglob("*") if p.is_file()) == sorted(files)
    found = sorted(candidates.iterdir())
    assert len(found) == 1, "one root cause, shrunk once"
    shrunk = (found[0] / "session.jsonl").read_bytes()
    assert triggers(shrunk) and shrunk.count(b"\n") <= 3, shrunk.decode()
    # The candidate says which exact difference it was shrunk for, and still shows it.
    made_for = json.loads((found[0] / "candidate.json").read_text())["made_for"]
    assert made_for["stage"] == "stats" and made_for["path"].startswith("$.tokens.")
    assert made_for["path"] in (found[0] / "case.toml").read_text()

    corpus_dir = tmp_path / "corpus"  # the corpus without its cases: the promoted one only
    shutil.copytree(REPO / "corpus", corpus_dir, ignore=lambda folder, names: names
                    if Path(folder) == REPO / "corpus" / "cases" else [])
    promoted = CliRunner().invoke(main, ["corpus", "promote", "--anonymize", str(found[0]),
                                         "--id", "compare.planted", "--corpus",
                                         str(corpus_dir)])
    assert promoted.exit_code == 0, promoted.output
    case = next(c for c in Corpus(corpus_dir).cases if c.id == "compare.planted")
    meta = (case.directory / "case.toml").read_text()
    assert "anonymized = true" in meta and 'source = "compare"' in meta
    hidden = case.session_bytes().decode()
    original = shrunk.decode()
    vocabulary = {k for line in jsonl_lines(original) for k in keys(json.loads(line))}
    for line in jsonl_lines(original):
        for key, value in strings(json.loads(line)):
            if len(value) > 3 and key not in KEPT_KEYS and value not in vocabulary:
                assert value not in hidden, f"{key}: {value!r} survived"
    assert (case.directory / "expected" / "stats.json").is_file()
    again = CliRunner().invoke(main, ["run", "--impl", "python:stats_impl:buggy", "-k",
                                      "compare.planted", "--corpus", str(corpus_dir),
                                      "--format", "json"])
    assert again.exit_code == 1 and '"failed": 1' in again.stdout


@pytest.mark.reference
@pytest.mark.slow
def test_merging_the_shards_of_a_reference_run_gives_the_unsharded_results(tmp_path):
    runner = CliRunner()
    whole = tmp_path / "whole.jsonl"
    common = ["run", "--impl", "reference", "-k", "traps.*", "-q", "--format", "json"]
    assert runner.invoke(main, [*common, "--report", str(whole)]).exit_code == 0
    shards = []
    for k in (1, 2, 3):
        shards.append(tmp_path / f"shard-{k}.jsonl")
        done = runner.invoke(main, [*common, "--shard", f"{k}/3", "--report", str(shards[-1])])
        assert done.exit_code == 0, done.output
    merged = tmp_path / "merged.jsonl"
    assert runner.invoke(main, ["report", "merge", *map(str, shards), "-o",
                                str(merged)]).exit_code == 0

    def results(path):
        report = read_report(path)
        return [(r.case, r.stage, r.status, r.differences) for r in report.sorted_results()]

    assert results(merged) == results(whole)
    assert read_report(merged).footer.counts == read_report(whole).footer.counts
    assert all(read_report(s).results for s in shards)


@pytest.mark.reference
@pytest.mark.slow
def test_compare_shards_split_the_files_and_merge_into_the_unsharded_report(tmp_path,
                                                                          monkeypatch,
                                                                          session_pool):
    monkeypatch.syspath_prepend(str(FAKES))
    monkeypatch.chdir(FAKES)
    sessions = tmp_path / "sessions"
    generated_sessions(sessions, session_pool, count=6)
    runner = CliRunner()
    common = ["compare", "--impl", "python:stats_impl:buggy", str(sessions), "--format", "json"]
    whole = tmp_path / "whole.jsonl"
    unsharded = runner.invoke(main, [*common, "--report", str(whole)])
    assert unsharded.exit_code == 1
    shards = [tmp_path / f"shard-{k}.jsonl" for k in (1, 2)]
    for k, path in enumerate(shards, start=1):
        done = runner.invoke(main, [*common, "--shard", f"{k}/2", "--report", str(path)])
        assert done.exit_code in (0, 1), done.output
    heads = [read_report(path).header for path in shards]
    assert heads[0].corpus == heads[1].corpus == read_report(whole).header.corpus
    assert {len(read_report(p).results) for p in shards} <= set(range(7))
    merged = tmp_path / "merged.jsonl"
    assert runner.invoke(main, ["report", "merge", *map(str, shards), "-o",
                                str(merged)]).exit_code == 1
    assert [(r.case, r.stage, r.status) for r in read_report(merged).results] == \
        [(r.case, r.stage, r.status) for r in read_report(whole).sorted_results()]
    assert "1 root cause(s)" in unsharded.stderr
    known = tmp_path / "known.toml"
    assert runner.invoke(main, ["baseline", "--write", str(whole), "-o",
                                str(known)]).exit_code == 0
    assert runner.invoke(main, [*common, "--baseline", str(known)]).exit_code == 0
