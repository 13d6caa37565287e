"""The Display modules import each other without a cycle (lazy imports inside functions count).

Shared grid helpers live in ``plot/_panels.py``, PD's drawing helpers in ``_pd_draw.py``; a
Display may use another's drawing (the PD panel's ALE line), but never both ways round.
"""

from __future__ import annotations

import ast
import pathlib

PLOT = pathlib.Path(__file__).resolve().parents[2] / "src" / "ixplain" / "plot"


def _plot_imports(path: pathlib.Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path, node, nxt]
            if nxt not in state and (found := visit(nxt, [*path, node])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def test_plot_modules_import_each_other_without_a_cycle():
    graph = {p.stem: _plot_imports(p) for p in PLOT.glob("*.py")}
    assert "partial_dependence" not in graph["ale"]
    assert _cycle(graph) is None, _cycle(graph)


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
