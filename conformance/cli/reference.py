"""``pi-conformance reference install|status|run``: the pinned, real Pi used as the reference,
and what it answers for any session file."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from conformance import jsonio
from conformance.cli import options
from conformance.cli.support import EXIT_FAILED, stderr
from conformance.errors import ConformanceError

if TYPE_CHECKING:
    from conformance.execution.oracle import FileAnswers, ReferenceOracle


@click.group()
def reference() -> None:
    """Install the pinned, real Pi (the reference), show where, or ask it about files."""


@reference.command("install")
@click.option("--force", is_flag=True, help="Reinstall even if it is already installed.")
@click.option("--version", "release", metavar="[LINE@]X.Y.Z",
              help="Install this release of Pi instead (any published one: 1.3.0 is "
                   "@earendil-works/pi-coding-agent 1.3.0, mariozechner@0.73.0 the older "
                   "@mariozechner line) into a prefix of its own; then --impl pi@X.Y.Z.")
def reference_install(force: bool, release: str | None) -> None:
    """Install Node 22 and the pinned Pi from the npm registry (npm ci of our lockfile)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from conformance._paths import writable
    from conformance.implementations import reference as ref
    from conformance.implementations.known.install import worth_showing

    if release is not None:
        _install_release(release, force)
        return
    installation = ref.default_installation()
    if installation.is_complete() and not force:
        stderr().print(f"already installed in {installation.prefix}", soft_wrap=True)
    else:
        writable(installation.prefix.parent)  # an unwritable cache: say only that
        if not sys.stderr.isatty():  # the spinner shows only on a terminal
            stderr().print(f"installing Node 22 and the pinned Pi into "
                           f"{installation.prefix} (npm ci, about a minute)", soft_wrap=True)
        columns = (SpinnerColumn(), TextColumn("{task.description}", markup=False),
                   TimeElapsedColumn())
        with Progress(*columns, console=stderr(), transient=True) as progress:
            task = progress.add_task("npm ci (pinned Pi and Node 22)")
            fetched = 0

            def on_line(line: str) -> None:
                nonlocal fetched
                if "fetch" in line or "GET" in line:
                    fetched += 1
                progress.update(task, description=f"npm ci: {fetched} fetches; {line[-70:]}")
                if not sys.stderr.isatty() and worth_showing(line):
                    stderr().print(line, soft_wrap=True)

            installation = ref.install(force=force, on_line=on_line)
    versions = installation.versions()
    versions["node"] = installation.node_version()
    for name, version in versions.items():
        stderr().print(f"  {name} {version}")
    stderr().print(f"reference ready in {installation.prefix}", soft_wrap=True)


def _install_release(release: str, force: bool) -> None:
    """``reference install --version``: one release, installed as ``--impl`` finds it."""
    from conformance.implementations.known import lookup, release_spec

    spec = release_spec(release)
    entry = lookup(spec)
    assert entry is not None
    done = entry.install(force=force)
    stderr().print(f"{spec} ready in {done.prefix} (use it with --impl {spec})",
                   soft_wrap=True)


@reference.command("status")
def reference_status() -> None:
    """Say whether the reference is installed, and where."""
    from conformance import jsonio
    from conformance.implementations import reference as ref

    installation = ref.default_installation()
    if not installation.is_complete():
        stderr().print(f"not installed (expected in {installation.prefix}); run: "
                       f"{ref.INSTALL_HINT}")
        sys.exit(EXIT_FAILED)
    click.echo(jsonio.dumps_pretty({
        "prefix": str(installation.prefix), "lock_sha256": ref.lock_sha256(),
        "versions": {**installation.versions(), "node": installation.node_version()},
    }), nl=False)


@reference.command("run")
@click.argument("paths", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(path_type=Path, exists=True))
@options.STAGES
@click.option("--format", "output_format", default="text", show_default=True,
              type=click.Choice(["text", "json"]),
              help="For people, or JSON (schemas/reference-run.schema.json).")
@click.option("--stage-timeout", default=30.0, show_default=True, metavar="SECONDS",
              type=click.FloatRange(0.1),
              help="Seconds Pi may take on one stage of one file before it counts as a hang.")
@options.OUTPUT
def reference_run(paths: tuple[Path, ...], stages: tuple[str, ...], output_format: str,
                  stage_timeout: float, output: Path | None) -> None:
    """What the real Pi answers for session files, stage by stage.

    FILE may be a directory: every *.jsonl under it. Pi only ever sees a copy. Rejections and
    hangs are answers too, reported as such; exit 2 only when the command cannot run.
    """
    from conformance.execution.oracle import ReferenceOracle, find_sessions

    with _opened(output) as sink:
        files = find_sessions(paths)
        with ReferenceOracle(stages, stage_timeout=stage_timeout) as oracle:
            writer = _JsonWriter(sink, oracle, len(files)) if output_format == "json" \
                else _TextWriter(sink)
            for number, path in enumerate(files, start=1):
                stderr().print(f"[{number}/{len(files)}] {path}", soft_wrap=True)
                writer.add(oracle.answer(path))
            writer.close()


@contextlib.contextmanager
def _opened(output: Path | None) -> Iterator[IO[str]]:
    if output is None:
        yield sys.stdout
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        stream = output.open("w", encoding="utf-8")
    except OSError as exc:
        raise ConformanceError(f"cannot write: {exc.strerror}", path=output) from None
    with stream:
        yield stream


class _JsonWriter:
    """One JSON document, written file by file so that no answer is held longer than needed."""

    def __init__(self, sink: IO[str], oracle: ReferenceOracle, count: int):
        from conformance.execution.oracle import document_head

        head = jsonio.dumps_text(document_head(oracle, count), compact=False)
        self.sink = sink
        self.first = True
        sink.write(head[:-1] + ', "files": [')

    def add(self, answers: FileAnswers) -> None:
        self.sink.write(("\n" if self.first else ",\n")
                        + jsonio.dumps_text(answers.to_json(), compact=False))
        self.first = False

    def close(self) -> None:
        self.sink.write("\n]}\n")


class _TextWriter:
    def __init__(self, sink: IO[str]):
        self.sink = sink

    def add(self, answers: FileAnswers) -> None:
        """The file and a line per stage, for people: control characters shown, not sent."""
        from conformance.controls import printable
        from conformance.execution.oracle import summarize

        self.sink.write(printable(f"{answers.path} ({answers.size} bytes, sha256 "
                                  f"{answers.sha256[:12]}, {answers.seconds:.2f}s)") + "\n")
        for stage, result in answers.results.items():
            self.sink.write(printable(f"  {stage}: {summarize(stage, result)}") + "\n")

    def close(self) -> None:
        self.sink.flush()
