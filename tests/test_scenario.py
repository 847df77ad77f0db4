"""Scenario files: parsed into turns and steps; every mistake names the file and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.errors import CorpusError
from conformance.maintenance.captures.scenario import load_scenario


def write(tmp_path: Path, text: str) -> Path:
    directory = tmp_path / "demo"
    directory.mkdir()
    (directory / "scenario.toml").write_text(text)
    return directory


def test_a_full_scenario_loads(tmp_path: Path):
    scenario = load_scenario(write(tmp_path, '''
title = "t"
api = "anthropic-messages"
thinking = "low"
[model]
reasoning = true
[[turns]]
stop = "toolUse"
blocks = [{type = "tool_call", id = "c1", name = "read", arguments = {path = "a"}}]
usage = {input = 3}
[[turns]]
error = {status = 429, body = "slow down"}
[[steps]]
prompt = "go"
abort_after = "text_delta"
[[steps]]
bash = "echo hi"
[[steps]]
command = {type = "set_thinking_level", level = "high"}
'''))
    assert scenario.name == "demo" and scenario.thinking == "low"
    assert scenario.turns[0].blocks[0].arguments == {"path": "a"}
    assert scenario.turns[0].usage.input == 3 and scenario.turns[0].usage.output == 5
    assert scenario.turns[1].is_error and scenario.turns[1].error_status == 429
    assert [s.kind for s in scenario.steps] == ["prompt", "bash", "command"]
    assert scenario.steps[0].abort_after == "text_delta"


@pytest.mark.parametrize(("text", "problem"), [
    ('title = "t"\napi = "x"\n[[steps]]\nprompt = "p"', "api must be one of"),
    ('title = "t"\napi = "openai-completions"', "at least one [[steps]]"),
    ('title = "t"\napi = "openai-completions"\n[[steps]]\nprompt = "p"\nbash = "b"',
     "exactly one of"),
    ('title = "t"\napi = "openai-completions"\n[[turns]]\nstop = "done"\n[[steps]]\nprompt="p"',
     "turns[0].stop"),
    ('title = "t"\napi = "openai-completions"\n[[turns]]\nblocks = [{type = "tool_call"}]\n'
     '[[steps]]\nprompt = "p"', "needs id and name"),
    ('title = "t"\napi = "openai-completions"\ncolour = 1\n[[steps]]\nprompt = "p"',
     "unknown key(s) colour"),
    ('title = "t"\napi = "openai-completions"\n[[steps]]\nbash = "b"\nabort_after = "x"',
     "unexpected key(s)"),
])
def test_mistakes_name_the_file_and_the_problem(tmp_path: Path, text: str, problem: str):
    with pytest.raises(CorpusError) as caught:
        load_scenario(write(tmp_path, text))
    assert problem in str(caught.value)
    assert "scenario.toml" in str(caught.value)


def test_invalid_toml_names_the_line(tmp_path: Path):
    with pytest.raises(CorpusError, match=r"scenario.toml:2"):
        load_scenario(write(tmp_path, 'title = "t"\napi = \n'))
