"""The package's shape: the layering ARCHITECTURE.md describes, pinned.

Read from the source text with :mod:`ast` (nothing is imported): every import statement counts,
at module level or inside a function, so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "ixplain"
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def _imported(module: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports (the nearest existing module of each
    name), its own package and itself left out."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            head = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join(head + ([node.module] if node.module else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + ".") and "." in name:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imported(m, p, mods) for m, p in mods.items()}


def _cycles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Edges ``a -> b`` from which ``a`` is reachable again."""

    def reaches(start: str, goal: str) -> bool:
        stack, seen = [start], set()
        while stack:
            node = stack.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                stack.extend(graph[node])
        return False

    return sorted((a, b) for a in graph for b in graph[a] if reaches(b, a))


def test_no_import_cycles_between_modules():
    assert _cycles(_graph()) == []


def test_cycle_finder_sees_a_cycle():
    """The checker itself: a two-module loop and a three-module loop are found."""
    graph = {"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.d"}, "p.d": {"p.e"}, "p.e": {"p.c"},
             "p.f": {"p.a"}}
    assert _cycles(graph) == [("p.a", "p.b"), ("p.b", "p.a"), ("p.c", "p.d"), ("p.d", "p.e"),
                              ("p.e", "p.c")]


def test_explainers_import_no_observer():
    """``ixplain.methods`` publishes to observers; it never imports the drift detector."""
    graph = _graph()
    offenders = sorted((m, t) for m, targets in graph.items() if m.startswith("ixplain.methods")
                       for t in targets if t.startswith("ixplain.drift"))
    assert offenders == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_source_file_reads_in_one_sitting(path):
    n_lines = len(path.read_text().splitlines())
    assert n_lines <= MAX_FILE_LINES, f"{path.name}: {n_lines} lines"


def _long_functions(path: Path) -> list[str]:
    """Functions whose body (docstring excluded) is longer than the limit."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                       and isinstance(body[0].value.value, str))
            if has_doc and len(body) == 1:
                continue
            first = body[1].lineno if has_doc else body[0].lineno
            if node.end_lineno - first + 1 > MAX_FUNCTION_LINES:
                out.append(f"{node.name}:{node.lineno}")
    return out


def test_no_function_over_sixty_lines():
    long = {str(p.relative_to(SRC)): f for p in PACKAGE.rglob("*.py") if (f := _long_functions(p))}
    assert long == {}
