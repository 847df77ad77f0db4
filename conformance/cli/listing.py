"""What the top-level ``--help`` says, as plain data without click: the click group
(cli/main.py) and the fast help of the installed command (cli/entry.py) both read it."""

from __future__ import annotations

DESCRIPTION = ("Score implementations of Pi's session and message formats against the "
               "real Pi.")

# The listing of --help: heading, then (name, where the command is, its help's first
# sentence). tests/test_cli_layout.py checks each against the command it names.
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Score an implementation": [
        ("run", "conformance.cli.run:run", "Score an implementation against the corpus."),
        ("compare", "conformance.cli.compare:compare",
         "Run session files through IMPL and the real Pi; Pi's answers are the goldens."),
        ("smoke", "conformance.cli.smoke:smoke",
         "Check an adapter's wiring: hello, one or two tiny cases, bye."),
        ("fuzz", "conformance.cli.fuzz:fuzz", "Fuzz IMPL against Pi with generated sessions."),
    ],
    "Reports": [
        ("render", "conformance.cli.reports:render",
         "Render a run's report: text, Markdown, JUnit, HTML or JSON."),
        ("diff", "conformance.cli.reports:diff",
         "What changed from run A to run B; exit 1 on new failures."),
        ("baseline", "conformance.cli.reports:baseline",
         "Write a known-failures file from a report's failures."),
        ("report", "conformance.cli.merge:report",
         "Work on report streams: merge the shards of a run."),
        ("matrix", "conformance.cli.matrix:matrix",
         "Score every known implementation; write the matrix and drift."),
    ],
    "Set up": [
        ("reference", "conformance.cli.reference:reference",
         "Install the pinned, real Pi (the reference), show where, or ask it about files."),
        ("adapters", "conformance.cli.matrix:adapters",
         "List or install the known implementations."),
    ],
    "Maintain the corpus": [
        ("corpus", "conformance.cli.corpus:corpus",
         "Goldens, captures, fuzzer finds, coverage, discrepancies."),
    ],
}
