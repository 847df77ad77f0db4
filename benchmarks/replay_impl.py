"""A conforming implementation that computes nothing: it answers every stage with the
golden's own result, optionally after sleeping ``--delay-ms`` per case.

It stands for two kinds of port the reference cannot: one so fast that the runner's own work
is all there is (no delay), and one that waits rather than computes (a delay: a remote
service, a slow adapter), where ``-j N`` can only be limited by the runner itself. Cases
where Pi misbehaves (its goldens say ``misbehaved``, which no answer may) are rejected, as a
port that detects the loop would reject them.

    python benchmarks/replay_impl.py CORPUS_DIR [--delay-ms N]
"""

import argparse
import json
import sys
import time
from pathlib import Path

HELLO = {"protocol": 1,
         "implementation": {"name": "replay", "version": "0", "language": "python"},
         "capabilities": {"stages": ["entries", "branch", "context", "projection", "llm",
                                     "prompt", "stats", "events",
                                     *(f"{kind}.{api}" for kind in ("request", "wire")
                                       for api in ("anthropic-messages", "openai-completions",
                                                   "openai-responses",
                                                   "google-generative-ai"))]}}


def result(corpus: Path, case: str, stage: str) -> dict:
    group, _, name = case.partition(".")
    golden = corpus / "cases" / group / name / "expected" / f"{stage}.json"
    found = json.loads(golden.read_text(encoding="utf-8"))["result"]
    if "misbehaved" in found:
        return {"rejected": {"message": "a cycle"}}
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    args = parser.parse_args()
    for line in sys.stdin:
        message = json.loads(line)
        if message["cmd"] == "bye":
            break
        if message["cmd"] == "hello":
            answer = HELLO
        else:
            time.sleep(args.delay_ms / 1000)
            answer = {"seq": message["seq"],
                      "results": {stage: result(args.corpus, message["case"]["id"], stage)
                                  for stage in message["stages"]}}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
