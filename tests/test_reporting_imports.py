"""The reporting layer's imports: no cycles, renderers apart, no click below the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import conformance

PACKAGE = Path(conformance.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in imports(path) if m in modules and m != name}
            for name, path in modules.items()}


def cycles(edges: dict[str, set[str]], within: str) -> list[list[str]]:
    """Import cycles among the modules under ``within``."""
    nodes = {n for n in edges if n.startswith(within)}
    found, state = [], dict.fromkeys(nodes, 0)

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node] & nodes):
            if state[target] == 1:
                found.append([*path[path.index(target):], target])
            elif state[target] == 0:
                visit(target, [*path, target])
        state[node] = 2

    for node in sorted(nodes):
        if state[node] == 0:
            visit(node, [node])
    return found


def test_the_reporting_and_judging_layers_have_no_import_cycle():
    edges = graph()
    assert cycles(edges, "conformance.reporting") == []
    assert cycles(edges, "conformance.judging") == []


def test_no_renderer_imports_another_and_render_does_not_import_click():
    edges = graph()
    renderers = {"conformance.reporting.render", "conformance.reporting.render_html",
                 "conformance.reporting.render_junit"}
    for name in renderers:
        assert not edges[name] & renderers, name
    assert "click" not in imports(PACKAGE / "reporting" / "render.py")
    assert not any(m.startswith("click") for m in imports(PACKAGE / "reporting" / "text.py"))
