"""Benchmark of the CLI's start: prints figures, asserts nothing (a timed assert is a flaky test).

``pi-conformance --help`` should feel instant (issue 17: under 0.1 s). Measured side by side
in one run, each a fresh interpreter, ``--runs`` rounds taking each command in turn (so a
change of load touches them all alike), median and fastest:

1. ``python -c pass``: the interpreter alone, the floor;
2. ``pi-conformance --help`` and bare ``pi-conformance``: the script pip installs for the
   checkout's entry point (pyproject.toml), which writes the top-level help without click;
3. with ``--against DIR``: ``pi-conformance --help`` of another checkout, for before/after;
4. ``python -m conformance.cli.main --help``: the same page through the click group;
5. ``python -c 'import conformance.cli.main'``: the click group's import alone;

and which heavy libraries importing the CLI pulls in (the commands import them when run).
bench_all.py prints the headline figure among the others; this is the detail, with CPU time,
which a loaded machine disturbs much less than wall time.

    python benchmarks/bench_cli_startup.py [--runs N] [--against ../other-checkout]

Each command imports ``conformance`` from its checkout (PYTHONPATH), this one by default.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HEAVY = ("jsonschema", "deepdiff", "rich", "hypothesis", "jinja2", "orjson")
CHECKOUT = Path(__file__).resolve().parent.parent
# What pip writes as bin/pi-conformance for an entry point "module:attribute".
PIP_SCRIPT = """\
import re
import sys
from {module} import {attribute}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({attribute}())
"""

Command = tuple[list[str], dict[str, str]]


def installed_command(checkout: Path, folder: Path) -> list[str]:
    """``pi-conformance`` as pip installs it from ``checkout``'s pyproject.toml, in ``folder``."""
    project = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]
    module, _, attribute = project["scripts"]["pi-conformance"].partition(":")
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "pi-conformance"
    script.write_text(PIP_SCRIPT.format(module=module, attribute=attribute))
    return [sys.executable, str(script)]


def importing(checkout: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout)}


def timed(commands: list[Command], runs: int) -> list[tuple[list[float], list[float]]]:
    """Wall and CPU (user + system) seconds of each command's runs, taken in turn. On a loaded
    machine the wall time swings with the load; the CPU time much less, so both are printed."""
    figures: list[tuple[list[float], list[float]]] = [([], []) for _ in commands]
    for _ in range(runs):
        for (args, env), (walls, cpus) in zip(commands, figures, strict=True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            walls.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return figures


def heavy_imports() -> list[str]:
    probe = ("import sys, conformance.cli.main; "
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=importing(CHECKOUT), check=True).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout, measured alongside")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores, "
          f"{args.runs} runs each")
    with tempfile.TemporaryDirectory(prefix="pi-conformance-bench-") as tmp:
        ours = installed_command(CHECKOUT, Path(tmp) / "this")
        rows: list[tuple[str, Command]] = [
            ("python -c pass", ([sys.executable, "-c", "pass"], dict(os.environ))),
            ("pi-conformance --help", ([*ours, "--help"], importing(CHECKOUT))),
            ("pi-conformance", (ours, importing(CHECKOUT))),
        ]
        if args.against:
            other = installed_command(args.against.resolve(), Path(tmp) / "other")
            rows.append((f"{args.against}: --help", ([*other, "--help"],
                                                      importing(args.against.resolve()))))
        rows += [
            ("-m conformance.cli.main --help", ([sys.executable, "-m", "conformance.cli.main",
                                                 "--help"], importing(CHECKOUT))),
            ("import conformance.cli.main", ([sys.executable, "-c",
                                              "import conformance.cli.main"],
                                             importing(CHECKOUT))),
        ]
        figures = timed([command for _, command in rows], args.runs)
    base_wall, base_cpu = statistics.median(figures[0][0]), statistics.median(figures[0][1])
    for (name, _), (walls, cpus) in zip(rows, figures, strict=True):
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(f"{name[-32:]:32} wall median {wall * 1000:5.0f} ms (fastest "
              f"{min(walls) * 1000:4.0f}, {wall / base_wall:4.1f}x)  cpu median "
              f"{cpu * 1000:5.0f} ms ({cpu / base_cpu:4.1f}x python -c pass)")
    print("heavy libraries imported by the CLI's import:", ", ".join(heavy_imports()) or "none")


if __name__ == "__main__":
    main()
