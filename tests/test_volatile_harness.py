"""The harness's variation controls, with the real Pi: what regenerate varies really varies."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import pytest

from conformance.errors import ImplementationError
from conformance.implementations import protocol
from conformance.implementations.transports import reference
from conformance.judging.volatility import DAY_MS

pytestmark = pytest.mark.reference

V1_SESSION = (
    '{"type":"session","id":"s1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}\n'
    '{"type":"message","timestamp":"2024-12-03T14:00:01.000Z",'
    '"message":{"role":"user","content":"hi","timestamp":1733234401000}}\n'
)
CYCLE_SESSION = (
    '{"type":"session","version":3,"id":"s1","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}\n'
    '{"type":"message","id":"p1","parentId":"p2","timestamp":"2024-12-03T14:00:01.000Z",'
    '"message":{"role":"user","content":"a","timestamp":1733234401000}}\n'
    '{"type":"message","id":"p2","parentId":"p1","timestamp":"2024-12-03T14:00:02.000Z",'
    '"message":{"role":"user","content":"b","timestamp":1733234402000}}\n'
)
SEEDED = {"PI_CONFORMANCE_SEED": "test-seed", "PI_CONFORMANCE_CLOCK_OFFSET": str(400 * DAY_MS),
          "PI_CONFORMANCE_SCRATCH_TAG": "tagged"}


def answer(impl, path: Path, stages: list[str], timeout: float = 30, isolated: bool = False):
    request = protocol.run_request(1, "t", (), str(path), path.read_text(), stages,
                                   {"cwd": "/pi-conformance/cwd"})
    run = impl.run_isolated if isolated else impl.run
    return protocol.check_run_answer(run(request, timeout), 1, stages)


def migrated_ids(variation, tmp_path: Path) -> tuple[list[str], list[str]]:
    """The ids of a v1 migration and the header an empty file gets, from one process."""
    v1, empty = tmp_path / "v1.jsonl", tmp_path / "empty.jsonl"
    v1.write_text(V1_SESSION)
    empty.write_text("")
    with reference(variation) as impl:
        entries = answer(impl, v1, ["entries"])["entries"]["output"]["entries"]
        header = answer(impl, empty, ["entries"])["entries"]["output"]["header"]
    return [e["id"] for e in entries], [header["id"], header["timestamp"]]


def test_a_seed_makes_generated_ids_reproducible_and_the_clock_moves(tmp_path: Path):
    first, first_header = migrated_ids(SEEDED, tmp_path)
    again, _ = migrated_ids(SEEDED, tmp_path)
    other, _ = migrated_ids({**SEEDED, "PI_CONFORMANCE_SEED": "another"}, tmp_path)
    assert first == again and first != other
    assert all(len(i) == 8 for i in first)  # still Pi's 8-hex ids, from a seeded randomUUID
    shifted = datetime.fromisoformat(first_header[1].replace("Z", "+00:00")).timestamp()
    assert shifted - time.time() > 399 * 24 * 3600  # the clock offset reached Pi's new Date()


def test_without_variables_the_harness_is_random_as_pi_is(tmp_path: Path):
    plain, header = migrated_ids(None, tmp_path)
    again, _ = migrated_ids(None, tmp_path)
    assert plain != again
    now = datetime.fromisoformat(header[1].replace("Z", "+00:00")).timestamp()
    assert abs(now - time.time()) < 600


def test_a_misbehaving_case_runs_isolated_and_the_reference_keeps_answering(tmp_path: Path):
    cycle, v1 = tmp_path / "cycle.jsonl", tmp_path / "v1.jsonl"
    cycle.write_text(CYCLE_SESSION)
    v1.write_text(V1_SESSION)
    with reference() as impl:
        pid = impl.connection.pid
        started = time.monotonic()
        with pytest.raises(ImplementationError, match=r"no answer within|stopped"):
            answer(impl, cycle, ["branch"], timeout=1, isolated=True)
        assert time.monotonic() - started < 30
        assert impl.connection is not None and impl.connection.pid == pid
        assert "output" in answer(impl, v1, ["branch"])["branch"]


def test_a_seeded_run_draws_the_same_ids_whether_it_detects_capabilities_or_not(tmp_path):
    """Detecting what a release answers loads all of Pi, whose modules may draw random
    values as they load; a process that detects (another harness text wrote the kept answer:
    the key differs) must still draw the same ids as one that reads it."""
    from conformance.implementations.reference import require_installation

    kept = require_installation().prefix / ".harness-capabilities.json"
    kept.write_text('{"key": "another harness", "stages": [], "apis": {}}\n')
    detecting, _ = migrated_ids(SEEDED, tmp_path)
    assert kept.read_text().startswith('{"key":"') and "another" not in kept.read_text()
    reading, _ = migrated_ids(SEEDED, tmp_path)
    assert detecting == reading
