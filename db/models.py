"""The archive's tables (SQLAlchemy 2 typed models), one schema for SQLite and PostgreSQL.

Only portable column types (Integer, Float, String, Text, JSON, LargeBinary, and
:class:`UTCDateTime` over ``DateTime(timezone=True)``), so ``0001_initial`` creates the same
tables on both. Every constraint and index is named (:data:`NAMING_CONVENTION`), so Alembic's
batch mode can rebuild SQLite tables and later migrations can drop them by name.

- :class:`Study` - one submitted spec, its status and provenance; soft-deleted by
  ``deleted_at``. Its tags are also rows of :class:`StudyTag` so "studies tagged T" is an
  indexed lookup on both databases (no dialect JSON operators).
- :class:`Case` - one solver run: ``kind`` "case" (the study's design) or "twin" (an ideal-joint
  case several clearance cases share, linked from them by ``twin_id``). The DB is the source of
  truth for its status, attempts (claims), lease, timings and failure reason (design.md 3).
- :class:`Result` - the metrics of a done case; exactly one per case (unique ``case_id``). The
  contract metrics (design.md 4.1) are real columns the archive can sort and filter on; the
  rest sit in ``extra`` (JSON).
- :class:`Series` - the case's series per the study's policy, one compressed blob
  (:mod:`.series_codec` gives the format and the measurements behind it).
- Accounts (``0002_accounts``): :class:`User` (a role, a scrypt hash, a disabled flag),
  :class:`ApiToken` and :class:`WebSession` (each stored as the SHA-256 of a random secret,
  never the secret), :class:`LoginFailure` (the sign-in limiter's memory, shared by every web
  process) and :class:`AuditEvent` (who deleted, purged, cancelled, changed a role; when).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from gapsweep.core import metrics as metric_registry
from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

CASE_STATUSES = ("queued", "running", "done", "failed", "cancelled")
STUDY_STATUSES = ("queued", "running", "done", "cancelled")
#: a design case, an ideal twin, or a convergence certificate (a finished study's refined
#: re-run of one design case: its ``source_case_id`` and refinement ``slot``)
CASE_KINDS = ("case", "twin", "certificate")
CERTIFICATE = "certificate"
SERIES_POLICIES = ("preview", "full", "none")
ROLES = ("viewer", "editor", "admin")
#: the largest id either database holds (a signed 64-bit integer): a larger one names nothing
MAX_ID = 2**63 - 1

#: Metrics stored as columns, in export order: the metric registry's columned entries (the
#: contract of design.md 4.1 plus the peak driving torque the twin deviations use and the wall
#: time); each is a column of :class:`Result` below (tests/db: the table and the registry
#: agree, so a new columned metric needs its migration). Counts are INT_METRICS.
METRIC_COLUMNS = tuple(m.name for m in metric_registry.columns())
INT_METRICS = frozenset(m.name for m in metric_registry.columns() if m.integer)


def utcnow() -> datetime:
    """The current time, timezone-aware UTC (what every timestamp column holds)."""
    return datetime.now(timezone.utc)


def _in(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)  # constants of this module, not user input


class UTCDateTime(TypeDecorator):
    """``DateTime(timezone=True)`` that always stores UTC and always returns aware UTC.

    SQLite has no time zone type: SQLAlchemy writes the wall-clock digits and drops the
    offset, so a non-UTC value would compare wrongly with the lease times. Converting on the
    way in and tagging on the way out makes both databases agree."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column; use utcnow()")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base with the naming convention on its MetaData."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Study(Base):
    """One study: the spec as submitted and what became of it."""

    __tablename__ = "studies"
    __table_args__ = (
        CheckConstraint(f"status IN ({_in(STUDY_STATUSES)})", name="status"),
        CheckConstraint(f"series_policy IN ({_in(SERIES_POLICIES)})", name="series_policy"),
        Index("ix_studies_created", "created"),
        Index("ix_studies_status_created", "status", "created"),
        Index("ix_studies_name", "name"),
        Index("ix_studies_deleted_at_created", "deleted_at", "created"),
        # ids are never reused after a purge, so an id an outside script kept stays unique
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    model: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    design: Mapped[str] = mapped_column(String(40))
    series_policy: Mapped[str] = mapped_column(String(16), default="preview")
    status: Mapped[str] = mapped_column(String(16), default="queued")
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished: Mapped[datetime | None] = mapped_column(UTCDateTime)
    notes: Mapped[str] = mapped_column(Text, default="")
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    owner: Mapped[str | None] = mapped_column(String(200))
    provenance: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: an adaptive study's search (``0004_measurements``): generation, best so far, cost
    #: history, finished - derived from its cases (the cases are the optimizer's state)
    search: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    cases: Mapped[list[Case]] = relationship(
        back_populates="study", passive_deletes=True, order_by="Case.id"
    )


class StudyTag(Base):
    """One (study, tag) pair: the index behind the archive's tag filter."""

    __tablename__ = "study_tags"
    __table_args__ = (Index("ix_study_tags_tag", "tag"),)

    study_id: Mapped[int] = mapped_column(
        ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(String(100), primary_key=True)


class Case(Base):
    """One solver run of a study: a design case, an ideal twin, or a convergence certificate
    (which alone has ``source_case_id`` and ``slot``; the database checks it)."""

    __tablename__ = "cases"
    __table_args__ = (
        CheckConstraint(f"status IN ({_in(CASE_STATUSES)})", name="status"),
        CheckConstraint(f"kind IN ({_in(CASE_KINDS)})", name="kind"),
        CheckConstraint(
            f"(kind = '{CERTIFICATE}' AND source_case_id IS NOT NULL AND slot IS NOT NULL) OR "
            f"(kind <> '{CERTIFICATE}' AND source_case_id IS NULL AND slot IS NULL)",
            name="source"),
        UniqueConstraint("study_id", "kind", "index", name="uq_cases_study_id_kind_index"),
        # one certificate per source case and refinement, whoever writes them
        UniqueConstraint("source_case_id", "slot", name="uq_cases_source_case_id_slot"),
        Index("ix_cases_study_id_status", "study_id", "status"),
        # a study's page of cases of one status, in design order (0005_case_pages)
        Index("ix_cases_study_id_kind_status_index", "study_id", "kind", "status", "index"),
        Index("ix_cases_status_lease_expires", "status", "lease_expires"),
        Index("ix_cases_twin_id", "twin_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16), default="case")
    #: position within the study's rows of its kind: design order for cases, 0, 1, ... for
    #: twins, and for certificates by source then slot
    index: Mapped[int] = mapped_column(Integer)
    twin_id: Mapped[int | None] = mapped_column(ForeignKey("cases.id", ondelete="SET NULL"))
    #: a certificate's design case (the one it refines) and its refinement
    #: (``gapsweep.study.certificates.REFINEMENTS``); None for cases and twins
    source_case_id: Mapped[int | None] = mapped_column(
        ForeignKey("cases.id", ondelete="CASCADE"))
    slot: Mapped[int | None] = mapped_column(Integer)
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_holder: Mapped[str | None] = mapped_column(String(200))
    lease_expires: Mapped[datetime | None] = mapped_column(UTCDateTime)
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    enqueued_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    #: solver wall time of the successful run [s]
    wall_time_s: Mapped[float | None] = mapped_column(Float)
    reason: Mapped[str | None] = mapped_column(Text)
    #: how far the running case has come, as its worker last said: ``{"step", "steps"}`` (a
    #: wear life's settled runs, design.md 4.12); None when it says nothing (0007)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    study: Mapped[Study] = relationship(back_populates="cases")


class Result(Base):
    """The metrics of one done case (SI units as the core reports them)."""

    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("cases.id", ondelete="CASCADE"), unique=True)
    peak_slider_accel: Mapped[float | None] = mapped_column(Float)  # m/s^2
    rms_slider_accel: Mapped[float | None] = mapped_column(Float)  # m/s^2
    peak_contact_force: Mapped[float | None] = mapped_column(Float)  # N
    max_penetration: Mapped[float | None] = mapped_column(Float)  # m
    impacts: Mapped[int | None] = mapped_column(Integer)
    peak_slider_accel_steady: Mapped[float | None] = mapped_column(Float)
    rms_slider_accel_steady: Mapped[float | None] = mapped_column(Float)
    peak_contact_force_steady: Mapped[float | None] = mapped_column(Float)
    max_penetration_steady: Mapped[float | None] = mapped_column(Float)
    impacts_steady: Mapped[int | None] = mapped_column(Integer)
    peak_driving_torque: Mapped[float | None] = mapped_column(Float)  # N m
    wall_time_s: Mapped[float | None] = mapped_column(Float)  # s
    #: every other metric the model reported, in its order
    extra: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Series(Base):
    """A done case's series, compressed (:func:`.series_codec.encode_series`)."""

    __tablename__ = "series"

    case_id: Mapped[int] = mapped_column(
        ForeignKey("cases.id", ondelete="CASCADE"), primary_key=True
    )
    policy: Mapped[str] = mapped_column(String(16))
    n_bytes: Mapped[int] = mapped_column(Integer)
    #: on PostgreSQL stored EXTERNAL (uncompressed TOAST): it is compressed already
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Measurement(Base):
    """A measured record (design.md 4.9) attached to a study, optionally to one of its
    cases: the validated CSV as JSON (``gapsweep.study.measurements.Measurement.to_json``)."""

    __tablename__ = "measurements"
    __table_args__ = (
        Index("ix_measurements_study_id", "study_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id", ondelete="CASCADE"))
    case_id: Mapped[int | None] = mapped_column(ForeignKey("cases.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(200), default="")
    time_base: Mapped[str] = mapped_column(String(16))
    n_samples: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class User(Base):
    """An account: a unique name, a role, a password hash (never the password)."""

    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint(f"role IN ({_in(ROLES)})", name="role"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(255))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ApiToken(Base):
    """A personal API token, shown once when made; kept as the SHA-256 of the secret."""

    __tablename__ = "api_tokens"
    __table_args__ = (
        Index("ix_api_tokens_user_id", "user_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(String(100), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class WebSession(Base):
    """A signed-in browser: the cookie's secret (hashed), its CSRF token, its expiry."""

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_user_id", "user_id"),)

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    csrf_token: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires: Mapped[datetime] = mapped_column(UTCDateTime)


class LoginFailure(Base):
    """One failed sign-in, under the account's key and under the address's key."""

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AuditEvent(Base):
    """Who did what to what, and when: deletes, purges, cancels, role and account changes."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_at", "at"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    actor: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(40))
    target: Mapped[str] = mapped_column(String(200))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
