"""Runs a Python adapter with an audit hook that records every process it tries to start.

Usage: python spawn_audit.py RECORD ADAPTER.py [ARGS...]. Each spawn (subprocess, os.exec*,
os.posix_spawn, os.system, os.fork) is appended to RECORD as a JSON line before it happens.
"""

import json
import runpy
import sys

record, adapter = sys.argv[1], sys.argv[2]
SPAWNS = ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.fork",
          "os.forkpty")


def audit(event, args):
    if event in SPAWNS:
        with open(record, "a") as out:
            out.write(json.dumps({"event": event, "args": repr(args)[:500]}) + "\n")


sys.addaudithook(audit)
sys.argv = [adapter, *sys.argv[3:]]
runpy.run_path(adapter, run_name="__main__")
