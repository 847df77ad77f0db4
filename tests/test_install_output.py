"""What an install prints when nobody watches a terminal: progress and the summary, not a
line per fetched file nor warnings about a Node the project does not run on."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conformance.cli.main import main
from conformance.implementations.known.install import npm_command, worth_showing


def test_reference_install_off_a_terminal_shows_no_fetches_and_no_engine_warnings(fake_npm):
    result = CliRunner().invoke(main, ["reference", "install"])
    assert result.exit_code == 0, result.output
    assert "http fetch" not in result.output and "EBADENGINE" not in result.output
    assert "npm notice" not in result.output
    assert "installing Node 22 and the pinned Pi into" in result.output
    assert "added 30 packages in 2s" in result.output
    assert "reference ready in" in result.output
    (call,) = [json.loads(line) for line in fake_npm.read_text().splitlines()]
    assert "ci" in call


@pytest.mark.parametrize(("line", "shown"), [
    ("npm http fetch GET 200 https://registry.npmjs.org/x 5ms (cache miss)", False),
    ("npm http cache retry@https://registry.npmjs.org/retry/-/retry-0.12.0.tgz 0ms (cache hit)",
     False),
    ("npm warn EBADENGINE Unsupported engine {", False),
    ("npm WARN EBADENGINE   current: { node: 'v20.20.2' }", False),
    ("added 312 packages in 41s", True),
    ("npm error code E404", True),
    ("npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported", True),
])
def test_only_npm_noise_is_left_out(line, shown):
    assert worth_showing(line) is shown


def test_npm_runs_on_the_references_node_once_it_is_there(tmp_path):
    script = tmp_path / "lib" / "npm-cli.js"
    script.parent.mkdir()
    script.write_text("")
    npm = tmp_path / "npm"
    npm.symlink_to(script)
    node = tmp_path / "node"
    assert npm_command(str(npm), node) == [str(npm)]  # no Node 22 yet: npm as found
    node.write_text("")
    assert npm_command(str(npm), node) == [str(node), str(script)]
