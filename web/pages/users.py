"""User management for admins ``/admin/users``: the users (role, state, live tokens); add a
user; change a role; disable or enable; create (shown once) and revoke API tokens.

Every change goes through :mod:`gapsweep.web.actions` - the role check (admins only), the
same rules as ``gapsweep user`` (the last enabled admin can be neither demoted nor
disabled) and the audit row. Anyone else sees why not, and every callback refuses them too.
"""

from __future__ import annotations

from typing import Any

import dash
import dash_bootstrap_components as dbc
import flask
from dash import Input, Output, State, callback, html, no_update
from gapsweep.accounts.roles import ROLES, Action, may
from gapsweep.web import actions, context, ids
from gapsweep.web.auth import principal

dash.register_page(__name__, path="/admin/users", name="Users", title="gapsweep — users")


def users_table(users: list[dict[str, Any]]) -> dbc.Table:
    head = html.Thead(html.Tr([html.Th(h) for h in
                               ("Name", "Role", "State", "Live tokens", "Created")]))
    body = html.Tbody([
        html.Tr([html.Td(u["name"]), html.Td(u["role"]),
                 html.Td("disabled" if u["disabled"] else "enabled"), html.Td(u["tokens"]),
                 html.Td(u["created"][:19].replace("T", " "))],
                className="text-muted" if u["disabled"] else None)
        for u in users])
    return dbc.Table([head, body], size="sm", hover=True, className="mb-0")


def tokens_table(tokens: list[dict[str, Any]]) -> Any:
    if not tokens:
        return html.Div("No tokens.", className="text-muted small")
    head = html.Thead(html.Tr([html.Th(h) for h in
                               ("Id", "Label", "State", "Created", "Last used")]))
    body = html.Tbody([
        html.Tr([html.Td(t["id"]), html.Td(t["label"]),
                 html.Td("revoked" if t["revoked"] else "live"),
                 html.Td(t["created"][:19].replace("T", " ")),
                 html.Td((t["last_used"] or "-")[:19].replace("T", " "))])
        for t in tokens])
    return dbc.Table([head, body], size="sm", className="mb-0")


def _row(label: str, *controls: Any) -> dbc.Row:
    return dbc.Row([dbc.Label(label, width=3), *[dbc.Col(c) for c in controls]],
                   className="mb-2 g-2", align="center")


def layout(**_query: Any) -> html.Div:
    who = flask.g.get("principal")
    if who is None or not may(who, Action.MANAGE_USERS):
        name = f"{who.name} ({who.role})" if who is not None else "nobody"
        return html.Div([html.H3("Users"), dbc.Alert(
            f"Not allowed: only an admin can manage users; you are signed in as {name}.",
            color="danger", id=ids.USERS_MESSAGE)])
    users = actions.archive(who).users()
    names = [u["name"] for u in users]
    role_options = [{"label": r, "value": r} for r in ROLES]
    add = dbc.Card([dbc.CardHeader("Add a user"), dbc.CardBody([
        _row("Name", dbc.Input(id=ids.USERS_NAME, maxLength=64, autocomplete="off")),
        _row("Role", dbc.Select(id=ids.USERS_ROLE, options=role_options, value="viewer")),
        _row("Password", dbc.Input(id=ids.USERS_PASSWORD, type="password", maxLength=1024,
                                   autocomplete="new-password")),
        dbc.Button("Add user", id=ids.USERS_ADD, color="primary", size="sm"),
        dbc.FormText(" 8 or more characters; the first user turns accounts on (sign-in "
                     "required from then on)."),
    ])], className="mb-3")
    manage = dbc.Card([dbc.CardHeader("Change a user"), dbc.CardBody([
        _row("User", dbc.Select(id=ids.USERS_TARGET, options=names,
                                value=names[0] if names else None)),
        _row("Role", dbc.Select(id=ids.USERS_NEW_ROLE, options=role_options, value="viewer"),
             dbc.Button("Set role", id=ids.USERS_SET_ROLE, size="sm", color="secondary")),
        _row("Account",
             dbc.Button("Disable", id=ids.USERS_DISABLE, size="sm", color="danger",
                        outline=True),
             dbc.Button("Enable", id=ids.USERS_ENABLE, size="sm", color="success",
                        outline=True)),
        _row("New token", dbc.Input(id=ids.USERS_TOKEN_LABEL, placeholder="label",
                                    maxLength=100),
             dbc.Button("Create token", id=ids.USERS_TOKEN_CREATE, size="sm",
                        color="secondary")),
        _row("Revoke token", dbc.Input(id=ids.USERS_TOKEN_ID, type="number", min=1, step=1,
                                       placeholder="token id"),
             dbc.Button("Revoke", id=ids.USERS_TOKEN_REVOKE, size="sm", color="danger",
                        outline=True)),
        html.H6("Tokens of this user", className="mt-3"),
        html.Div(id=ids.USERS_TOKENS),
    ])], className="mb-3")
    return html.Div([
        html.H3("Users"),
        html.Div(id=ids.USERS_MESSAGE),
        dbc.Row([
            dbc.Col(dbc.Card(dbc.CardBody(html.Div(users_table(users), id=ids.USERS_TABLE))),
                    lg=7),
            dbc.Col([add, manage], lg=5),
        ]),
    ])


def _message(text: str, color: str) -> dbc.Alert:
    return dbc.Alert(text, color=color, dismissable=True, className="py-2")


def change(trigger: Any, *, name: str | None, role: str | None, password: str | None,
           target: str | None, new_role: str | None, label: str | None,
           token_id: Any) -> dbc.Alert:
    """Do what the button ``trigger`` asks (as the request's principal); what happened."""
    arch = actions.archive(principal())
    if trigger == ids.USERS_ADD:
        arch.add_user(str(name or "").strip(), str(role or ""), str(password or ""))
        return _message(f"User {name} added ({role}).", "success")
    if not target:
        raise ValueError("user: none chosen — one of the users listed")
    if trigger == ids.USERS_SET_ROLE:
        old = arch.set_role(target, str(new_role or ""))
        return _message(f"User {target}: {old} -> {new_role}.", "success")
    if trigger in (ids.USERS_DISABLE, ids.USERS_ENABLE):
        disabled = trigger == ids.USERS_DISABLE
        arch.set_disabled(target, disabled)
        return _message(f"User {target} {'disabled' if disabled else 'enabled'}.", "success")
    if trigger == ids.USERS_TOKEN_CREATE:
        token_id, token = arch.create_token(target, str(label or ""))
        return dbc.Alert([f"Token {token_id} of {target} (shown this once; only its digest "
                          "is kept): ", html.Code(token, id="users-new-token")],
                         color="success", className="py-2")
    if trigger == ids.USERS_TOKEN_REVOKE:
        try:
            number = int(token_id)
        except (TypeError, ValueError):
            raise ValueError(f"token id: {token_id!r} — a token id of {target}") from None
        arch.revoke_token(target, number)
        return _message(f"Token {number} of {target} revoked.", "success")
    raise ValueError(f"action: {trigger!r} — one of the page's buttons")


@callback(
    Output(ids.USERS_MESSAGE, "children"),
    Output(ids.USERS_TABLE, "children"),
    Output(ids.USERS_TARGET, "options"),
    Output(ids.USERS_TOKENS, "children"),
    Output(ids.USERS_PASSWORD, "value"),
    Input(ids.USERS_ADD, "n_clicks"),
    Input(ids.USERS_SET_ROLE, "n_clicks"),
    Input(ids.USERS_DISABLE, "n_clicks"),
    Input(ids.USERS_ENABLE, "n_clicks"),
    Input(ids.USERS_TOKEN_CREATE, "n_clicks"),
    Input(ids.USERS_TOKEN_REVOKE, "n_clicks"),
    Input(ids.USERS_TARGET, "value"),
    State(ids.USERS_NAME, "value"),
    State(ids.USERS_ROLE, "value"),
    State(ids.USERS_PASSWORD, "value"),
    State(ids.USERS_NEW_ROLE, "value"),
    State(ids.USERS_TOKEN_LABEL, "value"),
    State(ids.USERS_TOKEN_ID, "value"),
)
def act(*args):
    """One callback for every button: the change, then the tables as they are now."""
    (*_, target, name, role, password, new_role, label, token_id) = args
    trigger = context.triggered_id()
    message: Any = no_update
    try:
        if trigger not in (None, ids.USERS_TARGET):
            message = change(trigger, name=name, role=role, password=password, target=target,
                             new_role=new_role, label=label, token_id=token_id)
        arch = actions.archive(principal())
        users = arch.users()
        names = [u["name"] for u in users]
        tokens = arch.tokens(target) if target in names else []
    except actions.ForbiddenError as exc:
        return _message(f"Not allowed: {exc}.", "danger"), no_update, no_update, no_update, ""
    except ValueError as exc:  # the field, the value, what is allowed
        return _message(str(exc), "danger"), no_update, no_update, no_update, no_update
    return message, users_table(users), names, tokens_table(tokens), (
        "" if trigger == ids.USERS_ADD else no_update)
