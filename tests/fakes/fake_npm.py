"""A stand-in for ``npm ci`` that says what the real one says on a first install (a line per
fetch, EBADENGINE warnings about the system's Node, the summary) and lays out what the
reference installer checks: node_modules/.bin/node and the Pi packages' package.json."""

import json
import os
import stat
import sys
from pathlib import Path

with open(os.environ["FAKE_NPM_CALLS"], "a") as calls:
    calls.write(json.dumps(sys.argv) + "\n")
if sys.argv[1:2] == ["view"]:  # npm view PACKAGE[@VERSION] versions|dependencies --json
    package, what = sys.argv[2], sys.argv[3]
    if what == "dependencies":  # a release of the 0.79 line: its siblings by caret ranges
        print(json.dumps({"@earendil-works/pi-ai": "^0.79.3", "@earendil-works/pi-tui": "^0.79.1",
                          "@earendil-works/chord": "^0.79.3", "chalk": "5.6.2"}))
    elif package == "@earendil-works/pi-ai":
        print(json.dumps(["0.79.1", "0.79.3", "0.79.10", "0.80.2"]))
    elif package == "@earendil-works/pi-tui":  # not published at 0.79.3
        print(json.dumps(["0.79.0", "0.79.1", "0.79.2", "0.79.10"]))
    elif package == "@earendil-works/chord":  # nothing old enough satisfies ^0.79.3
        print(json.dumps(["0.79.10"]))
    else:
        print(json.dumps(["0.30.2", "0.32.3", "0.37.2", "0.73.1", "0.74.0-rc.1", "0.74.0",
                          "1.6.0"]))
    sys.exit(0)
if sys.argv[1:2] == ["install"]:  # npm install writes the lockfile it resolved
    (Path.cwd() / "package-lock.json").write_text('{"lockfileVersion": 3}\n')
modules = Path.cwd() / "node_modules"
for name in ("pi-coding-agent", "pi-ai", "pi-agent-core"):
    package = modules / "@earendil-works" / name
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "1.6.0"}))
node = modules / ".bin" / "node"
node.parent.mkdir(parents=True)
node.write_text(  # its version; given the harness, a hello (what the install's warm-up asks)
    "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v22.0.0; else echo '{\"protocol\":1}'; fi\n")
node.chmod(node.stat().st_mode | stat.S_IXUSR)
for number in range(30):
    print(f"npm http fetch GET 200 https://registry.npmjs.org/p{number}/-/p{number}-1.0.0.tgz "
          f"12ms (cache miss)", file=sys.stderr)
for line in ("Unsupported engine {", "  package: 'p0@1.0.0',", "  required: { node: '>=22' },",
             "  current: { node: 'v20.20.2', npm: '10.8.2' }", "}"):
    print(f"npm warn EBADENGINE {line}", file=sys.stderr)
print("\nadded 30 packages in 2s")
if os.environ.get("npm_config_update_notifier") != "false":  # noqa: SIM112 (npm spells it so)
    print("npm notice New minor version of npm available! 11.19.1 -> 11.21.2", file=sys.stderr)
