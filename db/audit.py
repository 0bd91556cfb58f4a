"""The audit log: who deleted, purged, cancelled, changed a role or an account, and when.

``record`` joins the caller's transaction, so an action and its audit row commit together
(a change that is rolled back leaves no record, a recorded change cannot go missing).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import AuditEvent, utcnow


def record(session: Session, *, actor: str, action: str, target: str, **detail: Any) -> None:
    session.add(AuditEvent(at=utcnow(), actor=actor[:200], action=action, target=target[:200],
                           detail=detail))


def recent(session: Session, *, limit: int = 100) -> list[dict[str, Any]]:
    """The newest ``limit`` events, newest first."""
    rows = session.scalars(select(AuditEvent).order_by(AuditEvent.id.desc()).limit(limit))
    return [
        {"id": e.id, "at": e.at.isoformat(), "actor": e.actor, "action": e.action,
         "target": e.target, "detail": e.detail}
        for e in rows
    ]
