"""Users, tokens and signed-in clients over the ``archive`` fixture's app (not a test module).

``accounts`` makes one user per role plus a second editor, a disabled editor, and for each a
personal token (the disabled user's made before it was disabled) and a revoked token. Clients
sign in through the real ``/login`` form, so the session cookie and the CSRF cookie are the
ones a browser would hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from gapsweep.accounts.passwords import hash_password
from gapsweep.accounts.tokens import digest, new_api_token
from gapsweep.db import accounts as repo
from gapsweep.db.models import WebSession, utcnow
from sqlalchemy import update

PASSWORD = "correct horse battery"
USERS = {"ada": "admin", "eve": "editor", "ed": "editor", "vic": "viewer", "dan": "editor"}
_HASH = hash_password(PASSWORD)  # one scrypt for every test user (each costs ~0.1 s)


@dataclass
class Accounts:
    archive: Any
    tokens: dict[str, str] = field(default_factory=dict)
    revoked: str = ""

    def bearer(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def sign_in(self, name: str, password: str = PASSWORD):
        """A test client signed in as ``name`` through the form; the client and its CSRF
        token (what Dash's renderer would send as X-CSRFToken)."""
        client = self.archive.client()
        form = client.get("/login")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.get_data(as_text=True))[1]
        r = client.post("/login", data={"name": name, "password": password,
                                        "csrf_token": csrf, "next": "/"})
        assert r.status_code == 302, r.get_data(as_text=True)
        cookie = client.get_cookie("_csrf_token")
        return client, cookie.value

    def expire_sessions(self) -> None:
        with self.archive.sessions.begin() as s:
            s.execute(update(WebSession).values(expires=utcnow() - timedelta(seconds=1)))


def make_accounts(archive) -> Accounts:
    acc = Accounts(archive)
    with archive.sessions.begin() as s:
        for name, role in USERS.items():
            repo.add_user(s, name=name, role=role, password_hash=_HASH)
            acc.tokens[name] = new_api_token()
            repo.add_token(s, name=name, token_hash=digest(acc.tokens[name]))
        acc.revoked = new_api_token()
        token_id = repo.add_token(s, name="eve", token_hash=digest(acc.revoked))
        repo.revoke_token(s, name="eve", token_id=token_id)
        repo.set_disabled(s, name="dan", disabled=True)
    return acc


@pytest.fixture
def accounts(archive) -> Accounts:
    return make_accounts(archive)


def callback_body(client, output_part: str, values: dict) -> dict:
    """The body Dash's renderer would POST to /_dash-update-component for the callback whose
    output names ``output_part``, with ``values`` ({(id, property): value}) for its inputs and
    states (None for the rest); the dependency list is read with ``client``."""
    deps = client.get("/_dash-dependencies").get_json()
    dep = next(d for d in deps if output_part in d["output"])

    def items(specs):
        return [{"id": sp["id"], "property": sp["property"],
                 "value": values.get((sp["id"], sp["property"]))} for sp in specs]

    outputs = [{"id": o.split(".")[0], "property": o.split(".")[1].split("@")[0]}
               for o in dep["output"].strip(".").split("...")]
    changed = [f"{k[0]}.{k[1]}" for k in values
               if k in {(i["id"], i["property"]) for i in dep["inputs"]}]
    return {"output": dep["output"], "outputs": outputs, "inputs": items(dep["inputs"]),
            "state": items(dep["state"]), "changedPropIds": changed}
