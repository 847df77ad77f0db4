"""The options several commands share, defined once (as Bowtie's ``_cli.py`` does): one name,
one help text and one default per meaning, whichever command offers it.

Importing this module costs click and nothing heavy, so ``pi-conformance --help`` stays fast.
The pytest plugin takes its help texts and defaults from here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from conformance.corpus.stages import ALL_STAGES, APIS
from conformance.reporting.formats import RUN_STDOUT_FORMATS

IMPL_SPECS = ("reference, a known NAME@VERSION (pi-conformance adapters list), process:CMD, "
              "oneshot:CMD, python:MODULE:ATTR or a .toml file")
#: One implementation answering one case (or one generated session). 30 s is generous on
#: purpose: Pi answers every shipped case in well under a second, so only a hang ever waits
#: that long, while a slow port on a loaded CI machine is not failed for being slow. Cases
#: where Pi itself hangs are cut at 5 s whatever this says.
DEFAULT_TIMEOUT = 30.0
TIMEOUT_HELP = ("Seconds an implementation may take to answer one case; only a hang comes "
                "near the default (Pi answers any shipped case in well under a second).")
CORPUS_HELP = ("A corpus directory (default: $PI_CONFORMANCE_CORPUS, else the one shipped "
               "with pi-conformance).")
CASE_HELP = "Only cases whose id matches GLOB (repeatable; default: every case)."
STAGE_HELP = "Only this stage (repeatable)."
SPLIT_RESPONSES_HELP = (
    "Send each provider response (response.<api> stages) cut elsewhere than in its own "
    "chunks, as SEED decides per case and API: every byte apart, inside each multi-byte "
    "character, or anywhere. The goldens do not change: a stream parser's answer must not "
    "depend on where the bytes were cut.")

#: The range of a usable duration: below it nothing answers, above it (a day) is a typo, and
#: a huge or infinite value once reached the runner only to overflow in every wait.
MIN_SECONDS, MAX_SECONDS = 0.1, 86400.0


def parse_seconds(text: Any) -> float:
    """A duration in seconds, finite and within [MIN_SECONDS, MAX_SECONDS]; a ValueError
    whose message is one line saying why not (the pytest plugin's option uses it too)."""
    try:
        seconds = float(text.strip() if isinstance(text, str) else text)
    except (TypeError, ValueError):
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise ValueError(f"{text!r} is not a usable number of seconds: give one from "
                         f"{MIN_SECONDS:g} to {MAX_SECONDS:g}")
    return seconds


class Duration(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 on
    """``--timeout``: seconds, refused with one line when not finite and in range."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            return parse_seconds(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


DURATION = Duration()

IMPLEMENTATION = click.option("--impl", "impl_spec", required=True, metavar="IMPL",
                              help=f"The implementation: {IMPL_SPECS}.")
CORPUS = click.option("--corpus", "corpus_path", metavar="DIR",
                      type=click.Path(path_type=Path, file_okay=False), help=CORPUS_HELP)
TIMEOUT = click.option("--timeout", default=DEFAULT_TIMEOUT, show_default=True, metavar="SECONDS",
                       type=DURATION, help=TIMEOUT_HELP)
CASES = click.option("-k", "--case", "cases", multiple=True, metavar="GLOB", help=CASE_HELP)
STAGES = click.option("--stage", "stages", multiple=True, type=click.Choice(ALL_STAGES),
                      help=STAGE_HELP)
SPLIT_RESPONSES = click.option("--split-responses", "split_seed", type=click.IntRange(0),
                               metavar="SEED", default=None, help=SPLIT_RESPONSES_HELP)
APIS_OPTION = click.option(
    "--api", "apis", multiple=True, type=click.Choice(APIS),
    help="Only the request, wire and response stages of this API (repeatable; adds to "
         "--stage).")
OUTPUT = click.option("-o", "--output", metavar="FILE",
                      type=click.Path(path_type=Path, dir_okay=False),
                      help="Write here instead of stdout.")
REPORT_FILE = click.Path(path_type=Path, dir_okay=False)
# What run and compare share: the same report, baseline and stdout rendering.
BASELINE = click.option(
    "--baseline", metavar="FILE", type=click.Path(path_type=Path, dir_okay=False),
    help="Known failures: listed failures do not fail the run, stale entries do.")
REPORT = click.option("--report", "report_path", metavar="FILE", type=REPORT_FILE,
                      help="Write the canonical JSON-lines report here.")
JOBS = click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(1, 64),
                    help="Parallel workers, each with its own implementation process.")
MAX_RESTARTS = click.option(
    "--max-restarts", default=10, show_default=True, type=click.IntRange(0),
    help="Restarts after crashes or hangs before the rest of the run is abandoned.")
ALLOW_EMPTY = click.option(
    "--allow-empty", is_flag=True,
    help="A run in which nothing is judged (every result skipped) passes; by default it "
         "exits 5, saying what was skipped and why.")
RUN_FORMAT = click.option("--format", "output_format", default="terminal", show_default=True,
                          type=click.Choice(RUN_STDOUT_FORMATS),
                          help="What to print on stdout at the end.")


class ShardType(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.2 on
    """``K/N`` -> a Shard (corpus/shards.py), with a usage error for anything else."""

    name = "K/N"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> object:
        from conformance.corpus.shards import Shard
        from conformance.errors import ConformanceError

        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except ConformanceError as exc:
            self.fail(exc.problem, param, ctx)


MERGED_BY_REPORT_MERGE = "pi-conformance report merge joins the shards' reports."


def shard_option(what: str, joined: str = MERGED_BY_REPORT_MERGE,
                 ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--shard K/N``: one part of a run split over a CI job matrix (docs/sharding.md).

    ``joined`` says how the shards come together: ``report merge`` for a command that writes
    a report; a command that writes none (fuzz) says what to collect instead."""
    return click.option("--shard", type=ShardType(), metavar="K/N",
                        help=f"Only shard K of N ({what}); {joined}")
