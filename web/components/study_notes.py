"""A study's notes (description) and tags on its page, editable by whoever may tag it (its
owner, an admin: :data:`gapsweep.accounts.roles.OWN_STUDY_ACTIONS`). The change goes through
:meth:`~gapsweep.archive.local.LocalArchive.set_notes` (role check, audit row); the page
shows what was stored."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
import flask
from dash import Input, Output, State, callback, html, no_update
from gapsweep.accounts.roles import Action, may

from .. import actions, ids
from ..auth import principal
from ..views.study_form import tags_from_text


def tag_badges(tags: list[str]) -> list[Any]:
    return [dbc.Badge(t, color="light", text_color="dark", className="me-1") for t in tags]


def may_edit(owner: str | None) -> bool:
    """Whether the page's viewer may edit (the server checks again on save)."""
    who = flask.g.get("principal")
    return who is not None and may(who, Action.TAG, owner)


def editor(study_id: int, notes: dict[str, Any]) -> html.Div:
    """The edit button and its form (closed), for a viewer who may edit; else nothing."""
    if not may_edit(notes.get("owner")):
        return html.Div()
    return html.Div([
        dbc.Button("Edit notes and tags", id=ids.STUDY_NOTES_EDIT, size="sm",
                   color="secondary", outline=True, className="mb-2"),
        dbc.Collapse(dbc.Card(dbc.CardBody([
            dbc.Label("Notes (description)"),
            dbc.Textarea(id=ids.STUDY_NOTES_TEXT, value=notes["description"], rows=3,
                         maxLength=10_000),
            dbc.Label("Tags", className="mt-2"),
            dbc.Input(id=ids.STUDY_NOTES_TAGS, value=", ".join(notes["tags"])),
            dbc.FormText("comma separated"),
            html.Div(dbc.Button("Save", id=ids.STUDY_NOTES_SAVE, size="sm", color="primary",
                                className="mt-2")),
        ])), id=ids.STUDY_NOTES_FORM, is_open=False, className="mb-2"),
    ])


def toggle(_n, is_open):
    return not is_open


def save(_n, study_id, description, tags_text):
    """Store the notes and tags; show them as stored (or why not)."""
    try:
        sid = int(study_id)
        stored = actions.archive(principal()).set_notes(
            sid, description=str(description or ""), tags=tags_from_text(str(tags_text or "")))
    except (TypeError, ValueError) as exc:
        return no_update, no_update, dbc.Alert(str(exc), color="danger", className="py-2"), \
            no_update
    except actions.UnknownIdError:
        return no_update, no_update, dbc.Alert("This study no longer exists.",
                                               color="warning"), False
    except actions.ForbiddenError as exc:
        return no_update, no_update, dbc.Alert(f"Not allowed: {exc}.", color="danger",
                                               className="py-2"), no_update
    return (stored["description"], tag_badges(stored["tags"]),
            dbc.Alert("Notes and tags saved.", color="success", dismissable=True,
                      className="py-2"), False)


def register_callbacks() -> None:
    """Wire :func:`toggle` and :func:`save`; called by the study page module, which Dash
    runs once per app (a module-level ``@callback`` here would reach only the first app)."""
    callback(
        Output(ids.STUDY_NOTES_FORM, "is_open"),
        Input(ids.STUDY_NOTES_EDIT, "n_clicks"),
        State(ids.STUDY_NOTES_FORM, "is_open"),
        prevent_initial_call=True,
    )(toggle)
    callback(
        Output(ids.STUDY_DESCRIPTION, "children"),
        Output(ids.STUDY_TAGS, "children"),
        Output(ids.STUDY_NOTES_MESSAGE, "children"),
        Output(ids.STUDY_NOTES_FORM, "is_open", allow_duplicate=True),
        Input(ids.STUDY_NOTES_SAVE, "n_clicks"),
        State(ids.STUDY_ID_STORE, "data"),
        State(ids.STUDY_NOTES_TEXT, "value"),
        State(ids.STUDY_NOTES_TAGS, "value"),
        prevent_initial_call=True,
    )(save)
