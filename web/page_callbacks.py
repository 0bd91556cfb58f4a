"""Callbacks declared beside the section they serve, wired by the page that shows it.

Dash runs a page module once per app, but a module the page imports runs once per process,
and ``dash.callback`` hands what it declares to the next app set up: a section module's
``@dash.callback`` reaches the first app of a process only (a second app - a test's, a
``serve`` after a check - would lack it). A section declares with its own
:class:`PageCallbacks` instead, and the page calls :meth:`PageCallbacks.register` each time
Dash runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dash


class PageCallbacks:
    """``@callbacks(Output(...), Input(...), ...)`` records; :meth:`register` wires."""

    def __init__(self) -> None:
        self._declared: list[tuple[tuple[Any, ...], dict[str, Any], Callable[..., Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]],
                                                               Callable[..., Any]]:
        def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._declared.append((args, kwargs, fn))
            return fn
        return declare

    def register(self) -> None:
        """Hand every declared callback to the app Dash is setting up now."""
        for args, kwargs, fn in self._declared:
            dash.callback(*args, **kwargs)(fn)
