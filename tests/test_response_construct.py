"""The response corpus by construction: enough responses per API, every cell an API can
express present, one case per captured turn, and ``corpus responses --check`` catching a
file that would change."""

from __future__ import annotations

import shutil
import tomllib
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance import jsonio
from conformance.cli.main import main
from conformance.cli.support import EXIT_FAILED
from conformance.maintenance.captures.scenario import load_scenario, scenario_directories
from conformance.maintenance.responses import catalog, construct, encoders
from conformance.maintenance.responses.spec import ResponseSpec, UsageShape

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@cache
def models() -> dict[str, dict[str, object]]:
    return dict(jsonio.read_json(CORPUS / "models.json")["models"])


@cache
def written() -> dict[str, tuple[construct.Entry, tuple[str, ...]]]:
    """slug -> (entry, the APIs it has a response for)."""
    return {entry.slug: (entry, tuple(construct.responses_of(entry, models())))
            for entry in construct.entries(CORPUS)}


def test_every_api_has_at_least_a_hundred_responses() -> None:
    counts: dict[str, int] = defaultdict(int)
    for _, apis in written().values():
        for api in apis:
            counts[api] += 1
    assert set(counts) == set(encoders.ENCODERS)
    assert min(counts.values()) >= 100, counts


@pytest.mark.parametrize("api", list(encoders.ENCODERS))
def test_every_cell_the_api_can_express_has_a_case(api: str) -> None:
    capability = encoders.ENCODERS[api][0]
    present = {(entry.spec.blocks, entry.spec.ending, entry.spec.usage)
               for entry, apis in written().values() if api in apis}
    kinds_endings = {(blocks, ending) for blocks, ending, _ in present}
    usages = {usage for _, _, usage in present}
    for kind in catalog.CONTENT_KINDS:
        for ending in catalog.STREAM_ENDINGS:
            expressible = [shape for shape in UsageShape if capability.accepts(
                ResponseSpec(kind.blocks, ending, shape.usage()))]
            assert ((kind.blocks, ending) in kinds_endings) == bool(expressible), \
                (kind.slug, ending.value)
    for shape in UsageShape:
        if any(capability.accepts(ResponseSpec(k.blocks, e, shape.usage()))
               for k in catalog.CONTENT_KINDS for e in catalog.STREAM_ENDINGS):
            assert shape.usage() in usages, shape
    http = {entry.spec.ending for entry, apis in written().values()
            if api in apis and entry.spec.error is not None}
    assert http == {ending for ending, _ in catalog.HTTP_ERRORS}


def test_bedrock_is_sent_every_error_status_too() -> None:
    # Left out while the AWS SDK asked again three times; the harness gives it one attempt.
    statuses = {entry.spec.error.status for entry, apis in written().values()
                if "bedrock-converse-stream" in apis and entry.spec.error is not None}
    assert {429, 500, 502, 503, 504} & statuses


def test_the_covering_design_meets_every_pair_of_axes() -> None:
    pairs = {(i, shape) for i in range(len(catalog.CONTENT_KINDS))
             for j in range(len(catalog.STREAM_ENDINGS)) for shape in construct.usage_shapes(i, j)}
    assert len(pairs) == len(catalog.CONTENT_KINDS) * len(UsageShape)
    pairs = {(j, shape) for i in range(len(catalog.CONTENT_KINDS))
             for j in range(len(catalog.STREAM_ENDINGS)) for shape in construct.usage_shapes(i, j)}
    assert len(pairs) == len(catalog.STREAM_ENDINGS) * len(UsageShape)


def test_each_captured_turn_but_a_stalled_one_is_a_case_for_its_api() -> None:
    expected = {}
    for directory in scenario_directories(CORPUS):
        scenario = load_scenario(directory)
        for n, turn in enumerate(scenario.turns):
            if not turn.stall:
                expected[f"captured-{scenario.name}-{n}"] = (scenario.api,)
    found = {slug: apis for slug, (_, apis) in written().items()
             if slug.startswith("captured-")}
    assert found == expected


def test_case_toml_lists_the_stages_of_the_apis_with_a_response(tmp_path: Path) -> None:
    construct.write(tmp_path, models())
    area = tmp_path / "cases" / "response"
    case = area / "signed-thinking-stop-usage-final"
    table = tomllib.loads((case / "case.toml").read_text())
    apis = sorted(p.stem for p in (case / "responses").glob("*.json"))
    assert apis == ["anthropic-messages", "bedrock-converse-stream", "google-generative-ai",
                    "google-vertex", "pi-messages"]
    assert table["id"] == "response.signed-thinking-stop-usage-final"
    assert table["stages"] == [f"response.{api}" for api in written()[case.name][1]]
    assert table["options"] == {"request": {"reasoning": "medium"}}
    assert table["source"] == construct.SOURCE


def _corpus_copy(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for part in ("features", "clauses", "captures"):
        shutil.copytree(CORPUS / part, root / part)
    shutil.copy(CORPUS / "models.json", root / "models.json")
    (root / "cases").mkdir()
    return root


def test_check_fails_on_a_file_that_would_change_and_passes_once_written(
        tmp_path: Path) -> None:
    root = _corpus_copy(tmp_path)
    runner = CliRunner()

    def check() -> tuple[int, str]:
        result = runner.invoke(main, ["corpus", "responses", "--check", "--corpus", str(root)])
        return result.exit_code, result.output

    code, output = check()
    assert code == EXIT_FAILED and "to write" in output
    assert runner.invoke(main, ["corpus", "responses", "--corpus", str(root)]).exit_code == 0
    assert check()[0] == 0
    changed = root / "cases" / "response" / "text-stop-usage-final" / "responses" / \
        "openai-completions.json"
    changed.write_text(changed.read_text().replace("Hello", "Howdy"))
    code, output = check()
    assert code == EXIT_FAILED
    assert "text-stop-usage-final/responses/openai-completions.json" in output
    stale = root / "cases" / "response" / "no-longer-made"
    stale.mkdir()
    (stale / "case.toml").write_text('id = "response.no-longer-made"\n')
    runner.invoke(main, ["corpus", "responses", "--corpus", str(root)])
    assert not stale.exists()
    assert check()[0] == 0
