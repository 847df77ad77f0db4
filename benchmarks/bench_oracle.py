"""Benchmark of the oracle commands on a big session: prints figures, asserts nothing.

A generated, realistic session (a linear conversation of user turns, assistant turns with
thinking, signatures and tool calls, and tool results, with usage on every assistant message)
of at least ``--entries`` entries and ``--megabytes`` MB is run through

1. ``pi-conformance reference run FILE --format json`` (the real Pi on every stage), and
2. ``pi-conformance compare --impl reference FILE`` (Pi against Pi: every stage judged),

each under ``/usr/bin/time -v``: wall time and peak RSS (the largest of the command and the
processes it waited for: Node's reference processes included). For comparison, the only route
there was before these commands: a one-case temporary corpus holding the file, goldens written
by ``corpus regenerate``, then ``run --impl reference``. Last, ``compare`` over a directory of
``--copies`` copies of the file, to show that memory does not grow with the number of files.

    python benchmarks/bench_oracle.py [--entries 2000] [--megabytes 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = ("read", "the", "file", "and", "fix", "failing", "test", "in", "parser", "module",
         "then", "run", "whole", "suite", "again", "tell", "me", "what", "changed", "since",
         "yesterday's", "build", "on", "branch")


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def big_session(entries: int, megabytes: float, seed: int = 1) -> str:
    """A v3 session of ``entries`` entries whose size is at least ``megabytes`` MB."""
    rng = random.Random(seed)
    per_entry = int(megabytes * 1_000_000 / entries) + 200
    lines = [json.dumps({"type": "session", "version": 3, "id": "bench-session",
                         "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/work/project"})]
    parent = None
    clock = 1735689600000
    for index in range(entries):
        clock += 1000
        stamp = f"2025-01-01T{(index // 3600) % 24:02d}:{(index // 60) % 60:02d}:" \
                f"{index % 60:02d}.000Z"
        turn = index % 3
        if turn == 0:
            message: dict[str, object] = {"role": "user", "content": _text(rng, per_entry),
                                          "timestamp": clock}
        elif turn == 1:
            message = {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": _text(rng, per_entry // 3),
                     "thinkingSignature": "Eq" + "A" * 86 + "=="},
                    {"type": "text", "text": _text(rng, per_entry // 3)},
                    {"type": "toolCall", "id": f"toolu_{index:06d}", "name": "read",
                     "arguments": {"path": f"src/module_{index}.py"}},
                ],
                "api": "anthropic-messages", "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {"input": 1000 + index, "output": 200, "cacheRead": 50,
                          "cacheWrite": 10, "totalTokens": 1260 + index,
                          "cost": {"input": 0.003, "output": 0.003, "cacheRead": 0.00001,
                                   "cacheWrite": 0.00004, "total": 0.00605}},
                "stopReason": "toolUse", "timestamp": clock,
            }
        else:
            message = {"role": "toolResult", "toolCallId": f"toolu_{index - 1:06d}",
                       "toolName": "read",
                       "content": [{"type": "text", "text": _text(rng, per_entry // 3)}],
                       "isError": False, "timestamp": clock}
        entry_id = f"e{index:07d}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                 "timestamp": stamp, "message": message}))
        parent = entry_id
    return "\n".join(lines) + "\n"


def timed(command: list[str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in MB, exit code) of ``command`` under /usr/bin/time -v."""
    completed = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True,
                               text=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)",
                     completed.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", completed.stderr)
    if not wall or not rss:
        sys.exit(f"no figures from /usr/bin/time:\n{completed.stderr[-2000:]}")
    hours, minutes, seconds = (float(g) if g else 0.0 for g in wall.groups())
    tail = completed.stderr.split("\tCommand being timed")[0].strip().splitlines()[-2:]
    if completed.returncode not in (0,):
        print(f"  exit {completed.returncode}: {' | '.join(tail)}")
    return hours * 3600 + minutes * 60 + seconds, int(rss.group(1)) // 1024, \
        completed.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--megabytes", type=float, default=2.0)
    parser.add_argument("--copies", type=int, default=3)
    args = parser.parse_args()
    command = shutil.which("pi-conformance", path=os.path.dirname(sys.executable)) \
        or "pi-conformance"
    scratch = Path(tempfile.mkdtemp(prefix="pi-conformance-bench-oracle-"))
    try:
        session = scratch / "big.jsonl"
        session.write_text(big_session(args.entries, args.megabytes), encoding="utf-8")
        lines = session.read_text().count("\n")
        size = session.stat().st_size
        print(f"session: {lines - 1} entries, {size / 1e6:.2f} MB "
              f"(load: {os.getloadavg()[0]:.2f})")
        wall, rss, code = timed([command, "reference", "run", str(session), "--format", "json",
                                 "-o", str(scratch / "answers.json")])
        answers = json.loads((scratch / "answers.json").read_text())
        kinds = {stage: next(iter(v)) for stage, v in answers["files"][0]["stages"].items()}
        print(f"reference run: {wall:.2f} s wall, peak RSS {rss} MB, exit {code}, "
              f"{sum(k == 'output' for k in kinds.values())}/{len(kinds)} stages answered")
        wall, rss, code = timed([command, "compare", "--impl", "reference", str(session),
                                 "--report", str(scratch / "compare.jsonl"), "--format",
                                 "json"])
        results = [json.loads(line) for line in (scratch / "compare.jsonl").open()]
        statuses = [r["status"] for r in results if r["type"] == "result"]
        print(f"compare --impl reference: {wall:.2f} s wall, peak RSS {rss} MB, exit {code}, "
              f"{statuses.count('pass')}/{len(statuses)} stages pass")
        corpus = one_case_corpus(scratch / "corpus", session)
        wall, rss, code = timed([command, "corpus", "regenerate", "--corpus", str(corpus)])
        run_wall, run_rss, run_code = timed([command, "run", "--impl", "reference", "--corpus",
                                             str(corpus), "-q", "--format", "json"])
        print(f"before (temporary corpus): corpus regenerate {wall:.2f} s, peak RSS {rss} MB "
              f"(exit {code}); run --impl reference {run_wall:.2f} s, peak RSS {run_rss} MB "
              f"(exit {run_code}); together {wall + run_wall:.2f} s")
        many = scratch / "many"
        for copy in range(args.copies):
            (many / f"day-{copy}").mkdir(parents=True)
            shutil.copy(session, many / f"day-{copy}" / "session.jsonl")
        wall, rss, code = timed([command, "compare", "--impl", "reference", str(many),
                                 "--format", "json"])
        print(f"compare --impl reference on {args.copies} copies: {wall:.2f} s wall, "
              f"peak RSS {rss} MB, exit {code}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def one_case_corpus(root: Path, session: Path) -> Path:
    """A corpus of one case holding ``session``: what a user had to build before."""
    from conformance.corpus.cases import Corpus

    shipped = Corpus().root
    for name in ("features", "clauses"):
        shutil.copytree(shipped / name, root / name)
    shutil.copy(shipped / "models.json", root / "models.json")
    case = root / "cases" / "mine" / "big"
    case.mkdir(parents=True)
    shutil.copy(session, case / "session.jsonl")
    (case / "case.toml").write_text('id = "mine.big"\ntitle = "my session"\n'
                                    'features = ["generated"]\n', encoding="utf-8")
    return root


if __name__ == "__main__":
    main()
