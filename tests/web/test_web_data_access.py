"""The web reads the archive in one place (issue 28, part 6): only :mod:`gapsweep.web.data`
opens a database session for a page, a view, a component or the JSON API - besides the
request context that makes sessions and the sign-in that keeps its own. Everything else asks
``data`` (plain dicts and arrays back) or the application layer (``actions`` / the archive),
so no page holds an ORM row or builds a query of its own."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
# context.py makes the sessions; auth.py signs in and keeps web sessions (issue 11)
MAY_OPEN = {"data.py", "context.py", "auth.py"}


def opens_a_session(path: Path) -> list[int]:
    """The lines of ``path`` that call ``context.session()`` or a ``.sessions.begin()``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        f = node.func
        by_context = f.attr == "session" and isinstance(f.value, ast.Name) \
            and f.value.id == "context"
        by_factory = f.attr == "begin" and isinstance(f.value, ast.Attribute) \
            and f.value.attr == "sessions"
        if by_context or by_factory:
            lines.append(node.lineno)
    return lines


def test_only_the_data_module_opens_sessions_for_the_pages_and_the_api():
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
