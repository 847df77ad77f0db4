"""A small corpus written into a temporary directory, for tests that need real files."""

from __future__ import annotations

from pathlib import Path

SESSION = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z"}\n'


def write_corpus(root: Path, clauses: str, cases: dict[str, str], features: str = "") -> Path:
    """``cases`` maps ``area/slug`` to the body of its case.toml (id and title are added)."""
    (root / "clauses").mkdir(parents=True)
    (root / "features").mkdir()
    (root / "clauses" / "demo.toml").write_text(clauses)
    (root / "features" / "demo.toml").write_text(
        features or '[features.basic]\ndescription = "b"\n[features.extra]\ndescription = "e"\n')
    for name, body in cases.items():
        directory = root / "cases" / name
        directory.mkdir(parents=True)
        (directory / "session.jsonl").write_text(SESSION)
        case_id = name.replace("/", ".")
        (directory / "case.toml").write_text(f'id = "{case_id}"\ntitle = "{case_id}"\n{body}')
    return root


CLAUSES = """
[clauses."demo/one"]
doc = "docs/demo.md"
section = "One"
text = "the first rule"

[clauses."demo/two"]
doc = "docs/demo.md"
section = "Two"
text = "the second rule"

[clauses."demo/three"]
doc = "code"
section = "Three"
text = "a rule only the code has"

[excluded."demo/where"]
doc = "docs/demo.md"
section = "Where"
reason = "no stage sees it"
"""
