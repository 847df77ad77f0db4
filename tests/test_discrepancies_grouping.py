"""Grouping report failures into root causes: one per way an implementation differs."""

from __future__ import annotations

import io
from pathlib import Path

from conformance.judging.comparison import Difference
from conformance.judging.results import StageResult
from conformance.maintenance.discrepancies import grouping
from conformance.reporting import stream as reports
from conformance.reporting.model import CorpusIdentity, RunScope


def write_report(path: Path, results: list[StageResult], *, name: str = "port",
                 version: str = "1.0.0", spec: str = "process:./port") -> Path:
    stream = io.BytesIO()
    writer = reports.ReportWriter(stream, reports.header(
        {"name": name, "version": version, "language": "python"}, {"stages": ["context"]},
        CorpusIdentity("corpus", "0", 3, "ab" * 32), RunScope(impl=spec)))
    for result in results:
        writer.add(result)
    writer.close()
    path.write_bytes(stream.getvalue())
    return path


def fail(case: str, stage: str, *paths: tuple[str, str]) -> StageResult:
    return StageResult(case, stage, "fail", "differs", [
        Difference(path, kind, 1, 2) for path, kind in paths])


TIMESTAMP = ("$.messages[1].timestamp", "changed")


def causes(tmp_path: Path, *reports_: list[StageResult]) -> list[grouping.RootCause]:
    paths = [write_report(tmp_path / f"r{i}.jsonl", r) for i, r in enumerate(reports_)]
    targets = grouping.load_targets(paths)
    return [c for t in targets.values() for c in grouping.root_causes(t)]


def test_two_failing_cases_with_the_same_root_cause_make_one_group(tmp_path):
    found = causes(tmp_path, [
        fail("a.one", "context", TIMESTAMP),
        fail("a.two", "context", ("$.messages[4].timestamp", "changed")),
        StageResult("a.three", "context", "pass"),
    ])
    assert len(found) == 1
    assert found[0].cases == ["a.one", "a.two"]
    assert found[0].signatures == {"context": frozenset({("$.messages[*].timestamp", "changed")})}


def test_different_differences_are_different_root_causes(tmp_path):
    found = causes(tmp_path, [
        fail("a.one", "context", TIMESTAMP),
        fail("a.two", "context", ("$.messages[0].content", "type changed")),
    ])
    assert len(found) == 2
    assert len({c.id for c in found}) == 2


def test_the_same_cases_failing_on_later_stages_are_one_cascade(tmp_path):
    found = causes(tmp_path, [
        fail("a.one", "llm", TIMESTAMP),
        fail("a.one", "request.openai-completions", ("$.messages[1].content", "changed")),
        fail("a.two", "stats", ("$.cost", "changed")),
    ])
    assert sorted(c.stages for c in found) == [["llm", "request.openai-completions"], ["stats"]]
    assert next(c for c in found if len(c.stages) == 2).stage == "llm"


def test_errors_group_by_message_without_the_numbers(tmp_path):
    found = causes(tmp_path, [
        StageResult("a.one", "context", "error", "no answer within 30s"),
        StageResult("a.two", "context", "error", "no answer within 12.5s"),
        StageResult("a.three", "context", "error", "KeyError: 'message'\nTraceback ..."),
    ])
    assert sorted(len(c.cases) for c in found) == [1, 2]


def test_a_cause_the_newest_version_passes_is_resolved_in_that_version(tmp_path):
    old = [fail("a.one", "context", TIMESTAMP), fail("a.two", "stats", ("$.cost", "changed"))]
    new = [StageResult("a.one", "context", "pass"), fail("a.two", "stats", ("$.cost", "changed"))]
    paths = [write_report(tmp_path / "old.jsonl", old, version="1.2.0"),
             write_report(tmp_path / "new.jsonl", new, version="1.10.0")]
    (target,) = grouping.load_targets(paths).values()
    assert target.latest == "1.10.0"
    by_stage = {c.stage: c for c in grouping.root_causes(target)}
    assert by_stage["context"].resolved_in == "1.10.0"
    assert by_stage["context"].versions == ["1.2.0"]
    assert by_stage["stats"].resolved_in is None
    assert by_stage["stats"].versions == ["1.2.0", "1.10.0"]


def test_runs_of_the_reference_itself_are_not_targets(tmp_path):
    paths = [write_report(tmp_path / "ref.jsonl", [fail("a.one", "context", TIMESTAMP)],
                          spec="reference")]
    assert grouping.load_targets(paths) == {}


def test_find_reports_skips_the_output_directory(tmp_path):
    (tmp_path / "discrepancies").mkdir()
    (tmp_path / "discrepancies" / "x.jsonl").write_text("{}\n")
    write_report(tmp_path / "port.jsonl", [])
    found = grouping.find_reports(tmp_path, exclude=[tmp_path / "discrepancies"])
    assert [p.name for p in found] == ["port.jsonl"]


def test_version_order_is_numeric():
    assert sorted(["1.10.0", "0.73.1", "1.6.0", "1.0.3"], key=grouping.version_key) == \
        ["0.73.1", "1.0.3", "1.6.0", "1.10.0"]


def test_a_truncated_report_is_skipped_with_its_reason_when_asked(tmp_path):
    good = write_report(tmp_path / "good.jsonl", [fail("a.one", "context", TIMESTAMP)])
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(good.read_bytes().rsplit(b"\n", 2)[0] + b"\n")  # footer cut off
    skipped: list[str] = []
    targets = grouping.load_targets([good, bad], skipped)
    assert list(targets) == ["port"]
    assert len(skipped) == 1 and "bad.jsonl" in skipped[0] and "truncated" in skipped[0]


def test_a_case_showing_two_bugs_joins_both_root_causes(tmp_path):
    betas = ("$.betas", "missing key")
    text = ("$.messages[0].content[0].text", "changed")
    found = causes(tmp_path, [
        fail("a.one", "request.anthropic-messages", betas),
        fail("a.two", "request.anthropic-messages", betas),
        fail("a.three", "request.anthropic-messages", betas, text),
        fail("a.four", "request.anthropic-messages", text),
    ])
    by_atom = {tuple(sorted(c.signatures[c.stage])): c.cases for c in found}
    assert by_atom == {
        (betas,): ["a.one", "a.three", "a.two"],
        (("$.messages[*].content[*].text", "changed"),): ["a.four", "a.three"],
    }


def test_atoms_split_unions_and_keep_what_is_left():
    a, b, c = ("$.a", "changed"), ("$.b", "changed"), ("$.c", "changed")
    assert grouping.atoms([frozenset({a}), frozenset({a, b}), frozenset({a, b, c})]) == [
        frozenset({a}), frozenset({b}), frozenset({c})]




def missing(path: str, note: str) -> Difference:
    return Difference(path, "missing item", {"role": "x"}, "<missing>", None, note)


def test_a_root_cause_is_titled_in_words_from_its_aligned_differences(tmp_path):
    found = causes(tmp_path, [
        StageResult("a.one", "context", "fail", "", [
            missing("$.messages[0]", "missing item: system message")]),
        StageResult("a.two", "context", "fail", "", [
            missing("$.messages[0]", "missing item: user message")]),
        StageResult("a.three", "request.anthropic-messages", "fail", "", [
            missing("$.messages[3].content[0]", "missing item: redacted thinking block")]),
        StageResult("a.four", "request.anthropic-messages", "fail", "", [
            missing("$.messages[1].content[2]", "missing item: redacted thinking block")]),
    ])
    assert sorted(grouping.describe(c) for c in found) == [
        "drops redacted thinking blocks from Anthropic requests",
        "drops the first message of the context",
    ]


def test_field_differences_name_the_field_and_its_owner(tmp_path):
    (cause,) = causes(tmp_path, [fail("a.one", "context", TIMESTAMP)])
    assert grouping.describe(cause) == "writes another timestamp of messages in the context"


def test_differences_inside_a_shifted_list_are_consequences():
    shifted = grouping.collapse_list_shifts([
        ("$.path[*]", "missing item"), ("$.path[*].id", "changed"),
        ("$.path[*].index", "changed"), ("$.leafId", "changed"), ("$.paths", "changed")])
    assert shifted == {("$.path[*]", "missing item"), ("$.leafId", "changed"),
                       ("$.paths", "changed")}


def test_phrases_read_as_english_on_wire_stages_and_plural_keys():
    # Seen in the regenerated drafts: "adds a arguments field", "functionDeclarationses" and
    # "the wire.openai-responses stage".
    added = Difference(path="$.output.messages[*].function.arguments", kind="unexpected key",
                       expected=None, actual="{}")
    assert grouping.phrase("request.openai-completions", added.path, added.kind, [added]) == (
        "adds an arguments field to function in OpenAI Completions requests")
    omitted = "$.output.body.tools[*].functionDeclarations[*].parametersJsonSchema"
    assert grouping.phrase("wire.google-generative-ai", omitted, "missing key", []) == (
        "omits parametersJsonSchema of functionDeclarations in Google Generative AI HTTP "
        "requests")
    listed = "$.output.messages[*].content"
    assert "of messages in" in grouping.phrase("context", listed, "changed", [])


def test_every_api_stage_has_a_place_in_words():
    # A draft for a stage the table did not list read "in the response.mistral-... stage".
    from conformance.corpus.stages import ALL_STAGES

    assert set(ALL_STAGES) <= set(grouping.PLACES)
    dropped = "$.output.events[*].delta"
    assert grouping.phrase("response.openai-codex-responses", dropped, "missing item", []) \
        .endswith("OpenAI Codex responses as read")
