"""Import cycles: the depth-first finder the import tests share (tests/test_package_imports.py
checks gapsweep's packages and modules, tests/workers/test_import_graph.py the workers)."""

from __future__ import annotations


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle a depth-first search finds (each reported from where the search
    entered it), for a graph of node -> the nodes it imports."""
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = "closed"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found
