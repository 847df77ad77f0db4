"""Output that is not a terminal (a CI log, ``| cat``) is never cut or wrapped: stage names,
paths and messages arrive whole, one line each."""

from __future__ import annotations

from click.testing import CliRunner

from conformance.cli.main import main
from conformance.corpus.stages import DEFAULT_STAGES


def test_a_piped_run_shows_every_stage_name_in_full(corpus_dir, fake, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    done = CliRunner().invoke(main, ["run", "--impl", fake("wrong", "--stage", "context"),
                                     "--corpus", str(corpus_dir)])
    assert done.exit_code == 1, done.output
    names = [line.split("│")[1].strip() for line in done.stdout.splitlines()
             if line.startswith("│")]
    assert names == list(DEFAULT_STAGES)
    assert "…" not in done.stdout


def test_a_rendered_report_with_every_column_keeps_every_stage_name_whole(tmp_path,
                                                                         monkeypatch):
    """Six count columns left the stage column too narrow at 80 columns: ``request.openai…``
    stood for two stages."""
    import report_fixtures

    from conformance.judging.results import StageResult

    monkeypatch.delenv("COLUMNS", raising=False)
    statuses = ["pass", "fail", "error", "skip", "info", "as-documented"]
    results = [StageResult(f"a.c{i}", stage, statuses[i % len(statuses)])
               for i, stage in enumerate(DEFAULT_STAGES)]
    report = report_fixtures.write(tmp_path / "r.jsonl", result_list=results)
    done = CliRunner().invoke(main, ["render", str(report)])
    names = [line.split("│")[1].strip() for line in done.stdout.splitlines()
             if line.startswith("│")]
    assert names == list(DEFAULT_STAGES), done.stdout


def test_a_long_path_in_an_error_is_one_line(tmp_path, fake, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    deep = tmp_path.joinpath(*["a-rather-long-directory-name"] * 6, "no-such-corpus")
    done = CliRunner().invoke(main, ["run", "--impl", fake("correct"), "--corpus", str(deep)])
    assert done.exit_code == 2
    [line] = done.stderr.strip().splitlines()
    assert str(deep) in line


def test_columns_set_by_the_user_still_wins(corpus_dir, fake, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    done = CliRunner().invoke(main, ["run", "--impl", fake("wrong", "--stage", "context"),
                                     "--corpus", str(corpus_dir)])
    table = [line for line in done.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(map(len, table)) <= 60


def test_a_failing_case_shows_its_title_and_directory(corpus_dir, fake, monkeypatch):
    """What a reader opens next, as the pytest plugin shows it."""
    monkeypatch.chdir(corpus_dir.parent)
    done = CliRunner().invoke(main, ["run", "--impl", fake("wrong", "--stage", "context",
                                                           "--on", "small.beta"),
                                     "--corpus", str(corpus_dir)])
    assert done.exit_code == 1, done.output
    lines = done.stdout.splitlines()
    first = lines.index("small.beta [context] fail: 1 difference(s)")
    assert lines[first + 1] == ("    The entry timestamp is an ISO string; the message timestamp "
                                "is Unix milliseconds (corpus/cases/small/beta)")
