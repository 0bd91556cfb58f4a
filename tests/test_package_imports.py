"""gapsweep's packages import one another without circles, function-level imports included
(issue 28: ``web/wsgi.py`` imported ``commands/users.py`` inside a function while the
commands imported the web app, and ``remote.py`` and ``commands/studies.py`` imported each
other; both loops went once the application layer, ``gapsweep.archive``, held what both
sides needed). The unit is a package under ``gapsweep`` (``gapsweep.web``, its pages and
figures included) or a module directly in it (``gapsweep.cli``).

Inside a unit, modules import one another without circles too (issue 34.5: the web's views
and components, and the API's routes and measurements, imported each other): the module
graph counts an import of ``pkg.mod`` as an edge to ``pkg.mod`` and ``from pkg import name``
as an edge to ``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from support.import_graph import cycles

TOP = "gapsweep"


def unit_of(module: str) -> str | None:
    """``gapsweep.web.pages.study`` -> ``web``; None outside gapsweep or for the package."""
    parts = module.split(".")
    return parts[1] if parts[0] == TOP and len(parts) > 1 else None


def modules(folders: dict[str, Path]) -> dict[str, Path]:
    """Every module's dotted name -> its file, for packages given as name -> folder."""
    found = {}
    for package, folder in folders.items():
        for path in folder.rglob("*.py"):
            if "migrations" in path.parts:
                continue
            rel = path.relative_to(folder).with_suffix("").parts
            name = ".".join([package, *rel])
            found[name.removesuffix(".__init__")] = path
    return found


def imports_of(module: str, path: Path) -> set[str]:
    """The gapsweep modules ``module`` imports anywhere in its body (module or function
    level), relative imports resolved."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}  # `from . import actions`
    return {m for m in found if m.startswith(TOP + ".")}


def unit_graph(folders: dict[str, Path]) -> dict[str, set[str]]:
    """unit -> the other units it imports."""
    graph: dict[str, set[str]] = {}
    known = modules(folders)
    units = {unit_of(m) for m in known} - {None}
    for module, path in known.items():
        unit = unit_of(module)
        if unit is None:
            continue
        targets = {unit_of(m) for m in imports_of(module, path)} & units
        graph.setdefault(unit, set()).update(t for t in targets if t and t != unit)
    return graph


def module_graph(folders: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the other gapsweep modules it imports (module or function level)."""
    known = modules(folders)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        targets = set()
        for name in imports_of(module, path):
            # `from pkg import name` yields both pkg and pkg.name: keep the deepest module
            if name in known and not any(t.startswith(name + ".") for t in
                                         imports_of(module, path) & known.keys()):
                targets.add(name)
        graph[module] = targets - {module}
    return graph


def installed_folders() -> dict[str, Path]:
    """gapsweep's packages as installed (the repository's folders in an editable install)."""
    folders = {}
    for name in ("", ".core", ".db", ".study", ".web", ".workers", ".accounts"):
        spec = importlib.util.find_spec(TOP + name)  # found, not imported (no numba, no Dash)
        folders[TOP + name] = Path(next(iter(spec.submodule_search_locations)))
    return folders


def test_the_finder_sees_a_loop_closed_inside_a_function(tmp_path):
    # the shape of the old web <-> commands loop: the web's module imports a command module
    # inside a function, and a command module imports the web app at its top
    (tmp_path / "web").mkdir()
    (tmp_path / "commands").mkdir()
    (tmp_path / "web" / "wsgi.py").write_text(
        "def production_server():\n    from gapsweep.commands.users import bootstrap_admin\n")
    (tmp_path / "commands" / "services.py").write_text("from gapsweep.web.app import create\n")
    (tmp_path / "web" / "app.py").write_text("from . import wsgi\n")
    folders = {"gapsweep.web": tmp_path / "web", "gapsweep.commands": tmp_path / "commands"}
    graph = unit_graph(folders)
    assert graph == {"web": {"commands"}, "commands": {"web"}}
    assert cycles(graph) == [["commands", "web", "commands"]]


def test_the_module_finder_sees_a_loop_closed_inside_a_function(tmp_path):
    # the shape of the old routes <-> measurements loop: routes imports measurements inside
    # a function, measurements imports routes at its top; a third module only imports
    api = tmp_path / "api"
    api.mkdir()
    (api / "__init__.py").write_text("")
    (api / "routes.py").write_text("def install():\n    from . import measurements\n")
    (api / "measurements.py").write_text("from .routes import api, _error\n")
    (api / "kernels.py").write_text("import gapsweep.web.api.routes\n")
    graph = module_graph({"gapsweep.web.api": api})
    assert graph == {
        "gapsweep.web.api": set(),
        "gapsweep.web.api.routes": {"gapsweep.web.api.measurements"},
        "gapsweep.web.api.measurements": {"gapsweep.web.api.routes"},
        "gapsweep.web.api.kernels": {"gapsweep.web.api.routes"},
    }
    # entered through kernels -> routes
    assert cycles(graph) == [["gapsweep.web.api.routes", "gapsweep.web.api.measurements",
                              "gapsweep.web.api.routes"]]


def test_gapsweep_packages_have_no_import_cycle():
    graph = unit_graph(installed_folders())
    # the application layer sits between the faces (cli, commands, web) and the layers
    assert {"archive"} <= graph["commands"] and "archive" in graph["web"]
    assert not graph["archive"] & {"commands", "web", "cli"}
    assert "commands" not in graph["web"]
    assert cycles(graph) == []


#: Loops inside one layer left for the issues that rework those modules (34.2: the two model
#: registries; 34.3: the db read path), each closed by an import inside a function: the edge
#: that closes it is not counted, so any other loop, or a new one through these modules by
#: another import, still fails.
TOLERATED = {
    ("gapsweep.core.parameters", "gapsweep.core.api"),  # model_parameters() <- get_model()
    ("gapsweep.db.case_pages", "gapsweep.db.studies"),  # a page's study fields
}


def test_gapsweep_modules_have_no_import_cycle():
    graph = module_graph(installed_folders())
    for source, target in TOLERATED:
        graph[source].discard(target)
    # the two loops of issue 34.5 stay open: components use views, the API's routes mount
    # the measurements, and neither imports back
    assert "gapsweep.web.views.study_view" in graph["gapsweep.web.components.case_grid"]
    assert "gapsweep.web.components.case_grid" not in graph["gapsweep.web.views.study_results"]
    assert "gapsweep.web.api.measurements" in graph["gapsweep.web.api.routes"]
    assert cycles(graph) == []
