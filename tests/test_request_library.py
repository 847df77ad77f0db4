"""A request-only adapter written from docs/protocol.md alone (tests/fakes/request_library.py)
is judged on every request and wire stage of the corpus, fed the golden ``llm`` messages, and
nothing starts Node: neither the runner nor the adapter starts any process but the adapter."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import drive, runner_for

from conformance.corpus.cases import Corpus
from conformance.corpus.goldens import read_golden
from conformance.corpus.selection import Selection
from conformance.corpus.stages import APIS, api_of, is_response
from conformance.execution.runner import withheld
from conformance.implementations.specs import resolve
from conformance.judging.results import StageResult

FAKES = Path(__file__).resolve().parent / "fakes"
#: The APIs tests/fakes/request_library.py builds requests for (the four most used).
LIBRARY_APIS = APIS[:4]


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Every request and wire result of the corpus, the adapter's spawn record and the
    commands the test process started."""
    record = tmp_path_factory.mktemp("spawns") / "spawns.jsonl"
    command = [sys.executable, str(FAKES / "spawn_audit.py"), str(record),
               str(FAKES / "request_library.py")]
    started: list[list[str]] = []
    real_init = subprocess.Popen.__init__

    def watching(self, args, *rest, **kwargs):
        started.append([str(a) for a in (args if isinstance(args, list) else [args])])
        real_init(self, args, *rest, **kwargs)

    corpus = Corpus()
    results: list[StageResult] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", watching)
        impl = resolve("process:" + shlex.join(command))
        try:
            impl.start()
            drive(runner_for(corpus, timeout=30), [impl], corpus.cases, results.append,
                  Selection(apis=APIS))
        finally:
            impl.close()
    # --api selects the response stages too; this adapter is a request library.
    return corpus, [r for r in results if not is_response(r.stage)], record, started


def test_every_request_and_wire_stage_is_judged(scored):
    corpus, results, _, _ = scored
    keyed = {(r.case, r.stage): r for r in results}
    wanted = {(c.id, s) for c in corpus.cases for s in c.stages
              if api_of(s) is not None and not is_response(s)}
    assert set(keyed) == wanted
    assert any(s.startswith("wire.") for _, s in wanted)
    assert [r for r in results if r.status == "error"] == []
    by_case = {c.id: c for c in corpus.cases}
    for result in results:
        if result.status != "skip":
            continue
        if api_of(result.stage) not in LIBRARY_APIS:  # an API the library does not build
            assert "not claimed" in result.message, result
        else:  # only where the case withholds a large input golden
            assert withheld(by_case[result.case], result.stage), result
            assert "withholds the golden of" in result.message, result
    ours = [r for r in results if api_of(r.stage) in LIBRARY_APIS]
    judged = [r for r in ours if r.status != "skip"]  # pass, fail, info, as-documented
    assert len(judged) >= 0.95 * len(ours)


def test_where_pi_refused_the_session_the_fed_library_passes_by_refusing_too(scored):
    corpus, results, _, _ = scored
    by_case = {c.id: c for c in corpus.cases}
    refused = [r for r in results if r.status != "skip" and "llm" in by_case[r.case].stages
               and read_golden(by_case[r.case], "llm").kind == "rejected"]
    assert refused, "the corpus has cases whose session Pi refuses"
    assert {r.status for r in refused} == {"pass"}


def test_no_node_process_ran(scored):
    _, _, record, started = scored
    assert not record.exists() or record.read_text() == "", record.read_text()
    assert len(started) == 1 and "request_library.py" in " ".join(started[0])
    assert not any("node" in Path(arg).name for command in started for arg in command)


def test_the_spawn_audit_would_see_a_node_process(tmp_path):
    """The audit is live: an adapter that starts a process is recorded."""
    record = tmp_path / "spawns.jsonl"
    starter = tmp_path / "starter.py"
    starter.write_text("import subprocess, sys\n"
                       "subprocess.run([sys.executable, '-c', 'pass'])\n")
    subprocess.run([sys.executable, str(FAKES / "spawn_audit.py"), str(record), str(starter)],
                   check=True)
    events = [json.loads(line)["event"] for line in record.read_text().splitlines()]
    assert "subprocess.Popen" in events
