"""Who may do what: three roles, one rule table, checked on the server for every change.

    viewer   read everything
    editor   + create studies; cancel, retry, delete and tag (notes, tags) their own
    admin    everything: others' studies, purge, users, the audit log

A study's owner is the name of the user who created it (None: made from the command line on
the database, or before accounts existed; only an admin may change such a study).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

ROLES = ("viewer", "editor", "admin")


class Action(str, Enum):
    READ = "read"
    CREATE = "create"
    CANCEL = "cancel"
    RETRY = "retry"
    DELETE = "delete"
    TAG = "tag"  # edit a study's notes (description) and tags
    PURGE = "purge"
    MANAGE_USERS = "manage-users"


#: actions an editor may take on a study they own (an admin on any study)
OWN_STUDY_ACTIONS = frozenset({Action.CANCEL, Action.RETRY, Action.DELETE, Action.TAG})
_RANK = {role: i for i, role in enumerate(ROLES)}


@dataclass(frozen=True)
class Principal:
    """Who is asking: a user's name and role, and how they proved it."""

    name: str
    role: str
    via: str  # "session" | "token" | "local" (accounts off: the machine's own user)

    def __post_init__(self) -> None:
        if self.role not in _RANK:
            raise ValueError(f"role: {self.role!r} — allowed {', '.join(ROLES)}")

    def at_least(self, role: str) -> bool:
        return _RANK[self.role] >= _RANK[role]


#: accounts off (the embedded default on 127.0.0.1): whoever reaches the port is the owner
LOCAL = Principal(name="local", role="admin", via="local")


def may(who: Principal, action: Action, owner: str | None = None) -> bool:
    """Whether ``who`` may take ``action`` (on a study owned by ``owner``)."""
    if action is Action.READ:
        return True
    if action is Action.CREATE:
        return who.at_least("editor")
    if action in OWN_STUDY_ACTIONS:
        return who.at_least("admin") or (
            who.role == "editor" and owner is not None and owner == who.name
        )
    return who.at_least("admin")  # purge, users


def check_role(role: str) -> str:
    """``role`` if it is one of :data:`ROLES`, else ValueError naming the allowed ones."""
    if role not in _RANK:
        raise ValueError(f"role: {role!r} — allowed {', '.join(ROLES)}")
    return role
