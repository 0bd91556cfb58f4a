"""The modules of gapsweep.study form a DAG: no sibling imported inside a function (the way
the spec <-> checks <-> design_rules circle used to be held apart), no cycle among the
module-level imports, and each module imports on its own in a fresh interpreter."""

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

PACKAGE = "gapsweep.study"
FOLDER = Path(importlib.util.find_spec(PACKAGE).submodule_search_locations[0])
MODULES = sorted(p.stem for p in FOLDER.glob("*.py") if p.stem != "__init__")


def _sibling(node: ast.AST) -> list[str]:
    """The gapsweep.study modules an import statement names (``from .x``, ``from . import
    x``, ``gapsweep.study.x``)."""
    if isinstance(node, ast.ImportFrom):
        if node.level == 1:
            if node.module:
                return [node.module.split(".")[0]]
            return [a.name for a in node.names]
        if node.level == 0 and node.module and node.module.startswith(PACKAGE + "."):
            return [node.module.removeprefix(PACKAGE + ".").split(".")[0]]
        if node.module == PACKAGE:
            return [a.name for a in node.names]
    if isinstance(node, ast.Import):
        return [a.name.removeprefix(PACKAGE + ".").split(".")[0]
                for a in node.names if a.name.startswith(PACKAGE + ".")]
    return []


def _imports(module: str) -> tuple[set[str], list[tuple[int, str]]]:
    """(siblings imported at module level, [(line, sibling)] imported inside a def/class)."""
    tree = ast.parse((FOLDER / f"{module}.py").read_text(encoding="utf-8"))
    top: set[str] = set()
    nested: list[tuple[int, str]] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for name in _sibling(node):
            if name in MODULES:
                (nested.append((node.lineno, name)) if inside else top.add(name))
        deeper = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                             ast.ClassDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, deeper)

    visit(tree, False)
    return top, nested


def test_the_package_has_the_modules_this_test_reads():
    assert {"spec", "schema", "checks", "design_rules", "designs"} <= set(MODULES)


def test_no_sibling_is_imported_inside_a_function():
    nested = {m: _imports(m)[1] for m in MODULES}
    assert {m: n for m, n in nested.items() if n} == {}


def test_module_level_imports_form_a_dag():
    graph = {m: _imports(m)[0] for m in MODULES}
    order: list[str] = []
    state: dict[str, str] = {}

    def walk(m: str, path: tuple[str, ...]) -> None:
        if state.get(m) == "done":
            return
        assert state.get(m) != "open", "import cycle: " + " -> ".join((*path, m))
        state[m] = "open"
        for dep in sorted(graph[m]):
            walk(dep, (*path, m))
        state[m] = "done"
        order.append(m)

    for m in MODULES:
        walk(m, ())
    # the former circle is now a chain: schema <- design_rules <- checks <- spec
    assert "schema" in graph["design_rules"] and "spec" not in graph["design_rules"]
    assert {"design_rules", "schema"} <= graph["checks"] and "spec" not in graph["checks"]
    assert "checks" in graph["spec"] and graph["schema"] <= {"errors", "design_registry"}
    # the design registry is data at the chain's foot: its plans, counts and analyses are
    # named there and imported on use (as core.api's model registry does)
    assert graph["design_registry"] == set()
    assert order.index("schema") < order.index("design_rules") < order.index("checks") \
        < order.index("spec")


def test_each_module_imports_alone_in_a_fresh_interpreter():
    """One interpreter, the package's modules dropped from sys.modules before each import:
    every module loads with nothing of gapsweep.study loaded before it."""
    script = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}:\n"
        f"    for key in [k for k in sys.modules if k.startswith({PACKAGE!r})]:\n"
        "        del sys.modules[key]\n"
        f"    importlib.import_module({PACKAGE!r} + '.' + name)\n"
        "    print(name)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == MODULES
