"""The package's layers (docs/architecture.md): no module imports from a layer above its own,
and no two modules import each other, directly or round a longer loop.

Imports are read from the source with ``ast``, function-level ones included: a lazy import is
still a dependency, and hiding a cycle inside a function does not remove it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "conformance"

#: Bottom to top. A module may import from its own layer and the layers before it.
LAYERS = ("base", "corpus", "implementations", "judging", "reporting", "execution",
          "maintenance", "interface")
_TOP_LEVEL = {"corpus": "corpus", "implementations": "implementations", "judging": "judging",
              "reporting": "reporting", "execution": "execution", "maintenance": "maintenance",
              "cli": "interface", "pytest_plugin": "interface"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> str:
    parts = module.split(".")
    return _TOP_LEVEL.get(parts[1], "base") if len(parts) > 1 else "base"


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``path`` imports (``from X import name`` counts as X, or as
    X.name when that is a module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py") if "node_modules" not in p.parts}
    known = set(paths)
    graph = {name: imported_modules(path, known) - {name} for name, path in paths.items()}
    # A package's __init__ is imported by every submodule's import; it is not a dependency
    # in the sense that matters here unless it has code, which ours do not.
    return {name: {d for d in deps if not name.startswith(d + ".")} for name, deps in
            graph.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{module} ({layer(module)}) imports {dep} ({layer(dep)})"
        for module, deps in graph.items()
        for dep in deps
        if LAYERS.index(layer(dep)) > LAYERS.index(layer(module))
    )


def test_no_module_imports_from_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_there_is_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_judging_and_reporting_layers_have_no_import_cycle():
    graph = import_graph()
    for prefix in ("conformance.judging", "conformance.reporting"):
        inside = {m: {d for d in deps if d.startswith(prefix)} for m, deps in graph.items()
                  if m.startswith(prefix)}
        assert cycles(inside) == [], prefix


def test_no_renderer_imports_another_and_none_imports_click():
    graph = import_graph()
    renderers = {f"conformance.reporting.{name}" for name in ("render", "render_html",
                                                              "render_junit")}
    for name in renderers:
        assert not graph[name] & renderers, name
    for name in (*renderers, "conformance.reporting.text"):
        source = (PACKAGE / "reporting" / f"{name.rpartition('.')[2]}.py").read_text()
        assert "import click" not in source and "from click" not in source, name


#: What starts a process, from the standard library.
_SPAWNS = re.compile(
    r"^\s*(import|from)\s+(subprocess|multiprocessing)\b|os\.(fork|spawn|exec|popen)", re.MULTILINE
)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or not (itself included)."""
    seen, todo = {start}, [start]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def module_path(module: str) -> Path:
    relative = Path(*module.split(".")[1:])
    package = PACKAGE / relative / "__init__.py"
    return package if package.is_file() else (PACKAGE / relative).with_suffix(".py")


def test_reporting_imports_nothing_that_starts_a_process():
    """Reporting only renders: nothing it imports, however indirectly, reaches the ways to
    start an implementation (implementations, execution) or starts a process itself."""
    graph = import_graph()
    for module in (m for m in graph if layer(m) == "reporting"):
        for dep in reachable(graph, module):
            assert layer(dep) not in ("implementations", "execution", "maintenance",
                                      "interface"), f"{module} reaches {dep}"
            assert not _SPAWNS.search(module_path(dep).read_text()), \
                f"{module} reaches {dep}, which starts processes"


def test_the_spawn_check_sees_a_process_start(tmp_path):
    assert _SPAWNS.search("import subprocess\n")
    assert _SPAWNS.search("    pid = os.fork()\n")
    assert not _SPAWNS.search("from conformance import subprocess_free\n")


def test_every_module_belongs_to_a_named_layer():
    assert {layer(m) for m in import_graph()} <= set(LAYERS)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_cycle_detection_finds_loops(graph, expected):
    assert cycles(graph) == expected


def test_an_upward_import_is_reported():
    graph = {"conformance.corpus.cases": {"conformance.reporting.stream"},
             "conformance.reporting.stream": set()}
    assert upward_imports(graph) == [
        "conformance.corpus.cases (corpus) imports conformance.reporting.stream (reporting)"]


def test_lazy_imports_are_dependencies_too(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from conformance.judging import judge\n")
    assert imported_modules(source, {"conformance.judging", "conformance.judging.judge"}) == {
        "conformance.judging.judge", "conformance.judging"}
