"""Known failures end to end: ``baseline --write`` from a report, and ``run --baseline``
passing on known failures and failing on new ones, stale ones and entries for cases or
stages the corpus lacks."""

from __future__ import annotations

import json
import re
import tomllib

import jsonschema
import pytest
import report_fakes
import report_fixtures
from click.testing import CliRunner

from conformance import jsonio
from conformance._paths import SCHEMA_DIR
from conformance.cli.main import main
from conformance.judging.baseline import Baseline, BaselineError, render
from conformance.reporting.stream import read_report

WRONG_FAILURES = [("traps.two-timestamps", "context"), ("traps.two-timestamps", "stats"),
                  ("traps.two-timestamps-again", "context"),
                  ("traps.two-timestamps-again", "stats")]


@pytest.fixture
def env(tmp_path, monkeypatch):
    root = report_fakes.make_corpus(tmp_path)
    monkeypatch.setenv("PI_CONFORMANCE_CORPUS", str(root))
    return tmp_path


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def run(env, fake: str, *args: str):
    impl = report_fakes.impl_file(env, fake)
    return cli("run", "--impl", str(impl), "-q", "--format", "json", *args)


def write_baseline(env, entries: list[dict]) -> str:
    path = env / "baseline.toml"
    path.write_text("".join(
        "[[known]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in e.items())
        for e in entries), encoding="utf-8")
    return str(path)


def test_write_then_run_with_the_baseline_passes_and_keeps_reasons(env):
    report = env / "wrong.jsonl"
    assert run(env, "wrong", "--report", str(report)).exit_code == 1
    written = cli("baseline", "--write", str(report), "-o", str(env / "b.toml"))
    assert written.exit_code == 0 and "wrote 4 known failure(s)" in written.output
    data = tomllib.loads((env / "b.toml").read_text())
    assert [(e["case"], e["stage"]) for e in data["known"]] == WRONG_FAILURES
    assert data["known"][0]["reason"] == \
        "1 difference(s): $.messages[1].timestamp type changed"
    assert data["known"][1]["reason"] == "stats: not implemented"

    again = run(env, "wrong", "--baseline", str(env / "b.toml"))
    assert again.exit_code == 0, again.output
    summary = json.loads(again.output)
    assert (summary["known"], summary["stale"], summary["verdict"]) == (4, 0, "passed")


def test_a_rewrite_keeps_the_reasons_and_issues_people_wrote(env):
    report = env / "wrong.jsonl"
    run(env, "wrong", "--report", str(report))
    old = write_baseline(env, [{"case": "traps.two-timestamps", "stage": "context",
                                "reason": "we sort by the entry timestamp",
                                "issue": "https://example.org/issues/1"}])
    out = cli("baseline", "--write", str(report), "--keep", old)
    data = tomllib.loads(out.output)
    assert data["known"][0] == {"case": "traps.two-timestamps", "stage": "context",
                                "reason": "we sort by the entry timestamp",
                                "issue": "https://example.org/issues/1"}
    assert len(data["known"]) == 4


def test_a_failure_not_in_the_baseline_fails_the_run(env):
    baseline = write_baseline(env, [
        {"case": c, "stage": s, "reason": "known"} for c, s in WRONG_FAILURES[:3]])
    result = run(env, "wrong", "--baseline", baseline)
    assert result.exit_code == 1
    summary = json.loads(result.output)
    assert (summary["known"], summary["errored"], summary["verdict"]) == (3, 2, "failed")


def test_an_entry_that_passes_now_is_stale_and_fails_the_run(env):
    entries = [{"case": c, "stage": s, "reason": "known"} for c, s in WRONG_FAILURES]
    entries.append({"case": "traps.two-timestamps", "stage": "llm", "reason": "was broken"})
    report = env / "r.jsonl"
    result = run(env, "wrong", "--baseline", write_baseline(env, entries),
                 "--report", str(report))
    assert result.exit_code == 1
    assert json.loads(result.output)["stale"] == 1
    line = next(r for r in read_report(report).results if r.stage == "llm"
                and r.case == "traps.two-timestamps")
    assert line.baseline is not None
    assert line.baseline.to_json() == {"state": "stale", "reason": "was broken", "issue": ""}


@pytest.mark.parametrize(("entry", "problem"), [
    ({"case": "traps.no-such-case", "stage": "context"}, "no such case"),
    ({"case": "traps.two-timestamps", "stage": "contxt"}, "the case has no stage contxt"),
    ({"case": "nothing.*", "stage": "*"}, "matches no case and stage"),
])
def test_an_entry_for_a_missing_case_or_stage_is_stale(env, entry, problem):
    entries = [{"case": c, "stage": s, "reason": "known"} for c, s in WRONG_FAILURES]
    entries.append({**entry, "reason": "r"})
    report = env / "r.jsonl"
    result = run(env, "wrong", "--baseline", write_baseline(env, entries),
                 "--report", str(report))
    assert result.exit_code == 1
    stale = json.loads(result.output)["stale_baseline"]
    assert [(e["case"], e["stage"], e["problem"]) for e in stale] == [
        (entry["case"], entry["stage"], problem)]
    assert [e.to_json() for e in read_report(report).footer.stale_baseline] == stale


def test_a_glob_entry_covers_every_matching_failure(env):
    baseline = write_baseline(env, [{"case": "traps.*", "stage": "context", "reason": "r"},
                                    {"case": "traps.*", "stage": "stats", "reason": "r"}])
    assert run(env, "wrong", "--baseline", baseline).exit_code == 0


BAD = [
    ('[[known]]\ncase = "a"\nstage = "b"\nreason = " "\n',
     ":1: [[known]] entry 1: reason must not be empty"),
    ('[[known]]\ncase = "a"\nstage = "b"\nreason = "r"\nissues = "x"\n',
     ":1: [[known]] entry 1: unknown key(s) issues (allowed: case, stage, reason, issue)"),
    ('[[known]]\ncase = "a"\nstage = "b"\nreason = "r"\n\n' * 2,
     ":6: [[known]] entry 2 repeats entry 1 (a b)"),
    ('known = []\n[[knwon]]\ncase = "a"\n', "unknown key(s) knwon: only [[known]] entries"),
]


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_a_bad_baseline_is_refused_naming_file_line_and_entry(tmp_path, text, problem):
    path = tmp_path / "b.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError, match=re.escape(problem)) as info:
        Baseline.load(path)
    assert str(info.value).startswith(str(path))


def test_the_schema_agrees_with_the_loader():
    schema = jsonio.read_json(SCHEMA_DIR / "baseline.schema.json")
    check = jsonschema.Draft202012Validator(schema)
    for text, _ in BAD[:2] + BAD[3:]:
        assert list(check.iter_errors(tomllib.loads(text))), text
    report, _ = report_fixtures.build(hostile=True)
    assert not list(check.iter_errors(tomllib.loads(render(report.sorted_results()))))


def test_a_bad_baseline_on_the_command_line_is_exit_2_without_traceback(env):
    path = env / "b.toml"
    path.write_text('[[known]]\ncase = "a"\n', encoding="utf-8")
    result = run(env, "replay", "--baseline", str(path))
    assert result.exit_code == 2
    assert "b.toml:1: [[known]] entry 1 lacks reason, stage" in result.output


def test_render_writes_valid_toml_for_any_text():
    report, _ = report_fixtures.build(hostile=True)
    text = render(report.sorted_results())
    known = tomllib.loads(text)["known"]
    assert [e["stage"] for e in known] == ["context", "context", "stats"]
    assert known[2]["reason"].startswith('<img src=x onerror="document')
    empty = report_fixtures.build([])[0]
    assert tomllib.loads(render(empty.results)) == {"known": []}
