"""The docs state figures, paths, caps and key names that the code owns: each is read from the
doc and from the code (a constant, an installer's path, a command's real output) and compared,
so that a change to either side without the other fails here.

The Go example's score (docs/adapters.md) is checked where it is measured,
tests/test_go_example.py, so that Go runs once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conformance.cli.main import main

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
HARNESS = REPO / "conformance" / "implementations" / "reference" / "harness.mjs"


def text(path: Path) -> str:
    """A doc with every run of whitespace as one space: line breaks fall anywhere."""
    return " ".join(path.read_text(encoding="utf-8").split())


def figures(doc: str, name: str) -> list[float]:
    """Every figure a doc gives right before naming the constant: ``0.5 s (`NAME` ...``."""
    return [float(n) for n in re.findall(rf"(\d[\d.e+-]*)(?: s)? \(`{name}`", doc)]


def section(doc: str, heading: str) -> str:
    """The text of one ``##`` section of a doc (headings included in the match)."""
    start = doc.index(heading)
    end = doc.find(" ## ", start + len(heading))
    return doc[start:] if end == -1 else doc[start:end]


# ---- caps and tolerances: formatted from the constants ----

def test_the_misbehaving_caps_in_the_docs_are_the_constants() -> None:
    from conformance.execution.runner import MISBEHAVING_TIMEOUT
    from conformance.maintenance.regenerate import MISBEHAVES_TIMEOUT

    for name in ("protocol.md", "corpus.md", "normalization.md"):
        found = figures(text(DOCS / name), "MISBEHAVING_TIMEOUT")
        assert found, f"docs/{name} no longer gives the runner's cap with MISBEHAVING_TIMEOUT"
        assert set(found) == {MISBEHAVING_TIMEOUT}, f"docs/{name}: {found}"
    found = figures(text(DOCS / "corpus.md"), "MISBEHAVES_TIMEOUT")
    assert found and set(found) == {MISBEHAVES_TIMEOUT}, f"docs/corpus.md: {found}"
    # The cap once written in words, differently in each doc, must not come back.
    for path in [*DOCS.glob("*.md"), REPO / "README.md"]:
        doc = text(path)
        for words in ("half a second", "one-second cap", "5 s cap", "1 s cap"):
            assert words not in doc, f"{path.name} states a cap in words: {words!r}"


def test_the_number_tolerances_in_normalization_md_are_the_constants() -> None:
    from conformance.corpus.normalization import ABS_TOLERANCE, REL_TOLERANCE

    doc = text(DOCS / "normalization.md")
    assert figures(doc, "REL_TOLERANCE") == [REL_TOLERANCE]
    assert figures(doc, "ABS_TOLERANCE") == [ABS_TOLERANCE]


# ---- paths ----

def test_the_adapters_install_path_in_the_docs_is_the_installers(tmp_path: Path,
                                                                  monkeypatch) -> None:
    from conformance._paths import cache_root
    from conformance.implementations.known import KNOWN
    from conformance.implementations.known.install import pins_sha256

    monkeypatch.delenv("PI_CONFORMANCE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_root() == tmp_path / ".cache" / "pi-conformance"
    doc = text(DOCS / "adapters.md")
    found = re.search(r"`(~/\.cache/pi-conformance/[^`]*<name>[^`]*)`", doc)
    assert found, "docs/adapters.md no longer says where the adapters are installed"
    template = found.group(1)
    assert "16 hex digits" in doc
    installers = [entry.installer for entry in KNOWN if entry.installer is not None]
    assert installers
    for installer in installers:
        documented = (template.replace("<name>", installer.name)
                      .replace("<hash of the pin files>", pins_sha256(installer.pins)[:16]))
        actual = "~/" + str(installer.prefix.relative_to(tmp_path)) + "/"
        assert documented == actual


# ---- command output and help ----

def test_fuzz_help_does_not_say_report_merge_joins_its_shards() -> None:
    """fuzz writes candidates, no report; run and compare write reports that merge joins."""
    helps = {command: " ".join(CliRunner().invoke(main, [command, "--help"],
                                                  terminal_width=200).output.split())
             for command in ("fuzz", "run", "compare")}
    assert "--shard" in helps["fuzz"]
    assert "report merge" not in helps["fuzz"]
    assert "not a report" in helps["fuzz"]
    assert "report merge joins" in helps["run"] and "report merge joins" in helps["compare"]


def _documented_reference_run_keys() -> tuple[list[str], list[str]]:
    doc = text(DOCS / "your-sessions.md")
    top = re.search(r"with the keys (`[^.]*?`) and (`\w+`)\. Each item of `files`", doc)
    per_file = re.search(r"Each item of `files` has the keys (.*?) and `stages`", doc)
    assert top and per_file, "docs/your-sessions.md no longer names reference run's JSON keys"
    return (re.findall(r"`(\w+)`", top.group(1) + top.group(2)),
            [*re.findall(r"`(\w+)`(?: \([^)]*\))?,", per_file.group(1) + ","), "stages"])


def test_the_reference_run_keys_in_the_doc_are_the_schemas() -> None:
    top, per_file = _documented_reference_run_keys()
    schema = json.loads((REPO / "conformance/schemas/reference-run.schema.json").read_text())
    assert sorted(top) == sorted(schema["required"]) == sorted(schema["properties"])
    file_schema = schema["$defs"]["file"]
    assert sorted(per_file) == sorted(file_schema["required"]) \
        == sorted(file_schema["properties"])


@pytest.mark.reference
def test_the_reference_run_keys_in_the_doc_are_what_it_writes(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes((REPO / "corpus/cases/header/header-only/session.jsonl").read_bytes())
    result = CliRunner().invoke(main, ["reference", "run", str(session), "--stage", "entries",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    top, per_file = _documented_reference_run_keys()
    assert sorted(document) == sorted(top)
    assert [sorted(item) for item in document["files"]] == [sorted(per_file)]


# ---- the memory figures of docs/your-sessions.md ----

def test_the_memory_figures_name_the_benchmark_that_measured_them() -> None:
    doc = section(text(DOCS / "your-sessions.md"), "### Big trees")
    assert "bounded by the largest" not in doc and "not on how many files there are" not in doc
    found = re.search(r"Measured with `python (benchmarks/\w+\.py)` \(its defaults: `([^`]*)`\)",
                      doc)
    assert found, "the memory figures no longer say which command measured them"
    script = REPO / found.group(1)
    source = script.read_text(encoding="utf-8")
    flags = found.group(2).split()
    for flag, value in zip(flags[::2], flags[1::2], strict=True):
        default = re.search(rf'add_argument\("{flag}", type=\w+, default=([\d.]+)\)', source)
        assert default, f"{script.name} has no option {flag}"
        assert float(default.group(1)) == float(value), f"{flag} defaults to {default.group(1)}"
    assert re.search(r"about \d+ MB", doc)


# ---- docs/stages.md: the null rule and the fetch redirect, quoted from harness.mjs ----

def test_the_null_rule_quotes_the_harness() -> None:
    doc = section(text(DOCS / "stages.md"), "## Where Pi returns `undefined`")
    harness = HARNESS.read_text(encoding="utf-8")
    quoted = [q for q in re.findall(r"`([^`]+)`", doc)
              if "?? null" in q or (q.startswith("plain(") and q != "plain()")]
    assert any("getLeafId() ?? null" in q for q in quoted)
    assert any("sourceEntry?.id ?? null" in q for q in quoted)
    for quote in quoted:
        assert quote in harness, f"docs/stages.md quotes {quote!r}, not in harness.mjs"
    assert "const plain = (value) => (value === undefined ? null" in harness
    for stage, case, path in (("branch", "header/header-only", ["leafId"]),
                              ("branch", "header/empty-file", ["leafId"]),
                              ("projection", "header/version-4-entry-without-id", None)):
        assert case.replace("/", ".") in doc
        golden = json.loads((REPO / "corpus/cases" / case / "expected" / f"{stage}.json")
                            .read_text())["result"]["output"]
        if path is not None:
            assert golden[path[0]] is None
        else:
            assert None in [entry["sourceEntryId"] for entry in golden["entries"]]


def test_a_missing_key_is_not_null() -> None:
    """What the null rule tells a port: omitting the key is a difference."""
    from conformance.judging.comparison import differences

    found = differences({"leafId": None, "path": []}, {"path": []})
    assert [(d.path, d.kind) for d in found] == [("$.leafId", "missing key")]


def test_the_fetch_redirect_is_what_stages_md_describes() -> None:
    doc = section(text(DOCS / "stages.md"), "## The wire stages redirect `fetch`")
    harness = HARNESS.read_text(encoding="utf-8")
    assert "globalThis.fetch = " in harness and "function wireRedirect(" in harness
    assert "baseUrl" not in harness.split("async function providerCall", 1)[1] \
        .split("async function runCase", 1)[0], "the harness now sets baseUrl itself"
    assert "`wireRedirect`" in doc


@pytest.mark.reference
def test_pi_ai_still_decides_the_fields_stages_md_names_from_the_host() -> None:
    """The reason the harness redirects fetch: if pi-ai stops reading the host, the doc's
    reason (and maybe the redirect) is out of date."""
    from conformance.implementations.reference import require_installation

    pi_ai = require_installation().prefix / "node_modules" / "@earendil-works" / "pi-ai" / "dist"
    doc = section(text(DOCS / "stages.md"), "## The wire stages redirect `fetch`")
    for source, host, field in (("api/anthropic-messages.js", "api.anthropic.com",
                                 "supportsMessageThreads"),
                                ("api/openai-completions.js", "api.openai.com",
                                 "prompt_cache_key")):
        code = (pi_ai / source).read_text(encoding="utf-8")
        assert f'baseUrl.includes("{host}")' in code, f"{source} no longer checks {host}"
        assert field in code
        assert f"`dist/{source}`" in doc and f"`{host}`" in doc and f"`{field}`" in doc
