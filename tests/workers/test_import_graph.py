"""The workers package imports without circles, function-level imports included (issue 16:
``dispatch`` and ``case_runner`` used to import each other, held apart only by an import
inside a method)."""

from __future__ import annotations

import ast
from pathlib import Path

import gapsweep.workers
from support.import_graph import cycles

PACKAGE = "gapsweep.workers"


def imports_of(path: Path) -> set[str]:
    """Sibling modules ``path`` imports anywhere in its body (module or function level)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif node.level == 0 and (node.module or "").startswith(PACKAGE + "."):
            found.add(node.module.split(".")[2])
        elif node.level == 0 and node.module == PACKAGE:
            found |= {a.name for a in node.names}
    return found


def import_graph() -> dict[str, set[str]]:
    folder = Path(gapsweep.workers.__file__).parent
    modules = {p.stem: p for p in folder.glob("*.py") if p.stem != "__init__"}
    return {m: imports_of(p) & set(modules) for m, p in modules.items()}


def test_the_cycle_finder_sees_a_function_level_circle(tmp_path):
    # the graph as it was before issue 16: dispatch imported case_runner inside a method
    graph = {"case_runner": {"dispatch"}, "dispatch": {"case_runner"}, "tasks": {"dispatch"}}
    assert cycles(graph) == [["case_runner", "dispatch", "case_runner"]]
    source = "def send(self):\n    from .case_runner import run_chunk\n"
    probe = tmp_path / "dispatch.py"
    probe.write_text(source)
    assert imports_of(probe) == {"case_runner"}


def test_workers_package_has_no_import_cycle():
    graph = import_graph()
    assert "case_runner" in graph["in_process"] and "dispatch" in graph["case_runner"]
    assert "case_runner" not in graph["dispatch"]
    assert cycles(graph) == []
