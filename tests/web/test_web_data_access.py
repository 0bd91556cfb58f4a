"""The web reads the archive in one place (issue 28, part 6; issue 34, part 3): no page,
view, component or API route opens a database session or imports the database's read
functions - besides the request context that makes sessions, the sign-in that keeps its own
and the app that opens the database. Everything reads through the archive
(:class:`gapsweep.archive.local.LocalArchive`: ``data`` for reads, ``actions`` for changes),
plain dicts and arrays back, so no page holds an ORM row or builds a query of its own."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
# context.py makes the sessions; auth.py signs in and keeps web sessions (issue 11)
MAY_OPEN = {"context.py", "auth.py"}
# what a web module may import of the database package: constants and types, the engine
# (app.py opens the database), the sign-in's accounts
MAY_IMPORT = {"gapsweep.db.models", "gapsweep.db.engine", "gapsweep.db.accounts"}


#: what makes a database session: SQLAlchemy's classes and the session factories' names
FACTORIES = {"Session", "sessionmaker", "scoped_session", "sessions"}


def opens_a_session(path: Path) -> list[int]:
    """The lines of ``path`` that open a database session, every way there is: the request
    context's ``context.session()``, a session factory called (``ctx.sessions()``,
    ``sessions()``, ``Session(...)``, ``sessionmaker(...)``) or begun
    (``ctx.sessions.begin()``)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
            else None
        by_context = isinstance(f, ast.Attribute) and f.attr == "session" \
            and isinstance(f.value, ast.Name) and f.value.id == "context"
        by_factory = name in FACTORIES
        begun = isinstance(f, ast.Attribute) and f.attr == "begin" and (
            (isinstance(f.value, ast.Attribute) and f.value.attr in FACTORIES)
            or (isinstance(f.value, ast.Name) and f.value.id in FACTORIES))
        if by_context or by_factory or begun:
            lines.append(node.lineno)
    return lines


def database_imports(path: Path) -> list[str]:
    """The ``gapsweep.db`` modules ``path`` imports (top level or inside a function)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if node.module == "gapsweep.db":
                found += names[1:]
            elif node.module.startswith("gapsweep.db."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("gapsweep.db")]
    return found


def test_the_web_imports_no_database_reads():
    offenders = {}
    for path in sorted(WEB.rglob("*.py")):
        bad = [m for m in database_imports(path) if m not in MAY_IMPORT]
        if bad:
            offenders[path.relative_to(WEB).as_posix()] = bad
    assert offenders == {}


def test_the_import_rule_sees_a_read_imported_in_a_function(tmp_path):
    view = tmp_path / "view.py"
    view.write_text("def f(s):\n    from gapsweep.db.studies import study_detail\n"
                    "    from gapsweep.db import case_pages\n    return study_detail(s, 1)\n")
    assert database_imports(view) == ["gapsweep.db.studies", "gapsweep.db.case_pages"]


def test_no_web_module_opens_a_session_for_the_pages_and_the_api():
    offenders = {}
    for path in sorted(WEB.rglob("*.py")):
        rel = path.relative_to(WEB).as_posix()
        if rel in MAY_OPEN:
            continue
        found = opens_a_session(path)
        if found:
            offenders[rel] = found
    assert offenders == {}


def test_the_rule_sees_a_session_opened_in_a_view(tmp_path):
    """The check itself: the shape the views used before (issue 27's measured overlays)."""
    view = tmp_path / "view.py"
    view.write_text("from .. import context\n\ndef f():\n"
                    "    with context.session() as s:\n        return s\n")
    assert opens_a_session(view) == [4]


def test_the_rule_sees_every_way_a_session_is_opened(tmp_path):
    """A factory called or begun, on an attribute or a name, and SQLAlchemy's own classes
    (``ctx.sessions()`` is how the API's health check opened one)."""
    view = tmp_path / "view.py"
    view.write_text(
        "from sqlalchemy.orm import Session, sessionmaker\n"  # 1
        "def f(ctx, sessions, engine):\n"  # 2
        "    with ctx.sessions() as s:\n"  # 3
        "        pass\n"  # 4
        "    with ctx.sessions.begin() as s:\n"  # 5
        "        pass\n"  # 6
        "    with sessions() as s:\n"  # 7
        "        pass\n"  # 8
        "    with sessions.begin() as s:\n"  # 9
        "        pass\n"  # 10
        "    s = Session(engine)\n"  # 11
        "    make = sessionmaker(bind=engine)\n"  # 12
        "    archive = ctx.make_archive(ctx.sessions, ctx.settings)\n"  # 13: handed on, not opened
        "    return s, make, archive\n")
    assert sorted(opens_a_session(view)) == [3, 5, 7, 9, 11, 12]
