"""The study archive: SQLAlchemy models, Alembic migrations and repository functions.

- :mod:`.engine` - ``make_engine``, ``open_database`` (upgrades to head on first use),
  ``upgrade``, ``downgrade``, ``current_revision``.
- :mod:`.models` - Study, StudyTag, Case, Result, Series.
- :mod:`.studies` - the archive side (create, list, detail, progress, export, cancel, retry,
  delete, purge); :mod:`.leases` - the worker side (claim, renew, complete - per case or
  per chunk with ``complete_cases``, 3x faster -, fail, reconcile).

Repository functions take the session first and keyword-only arguments after, and never
commit: the caller owns the transaction (``with Session.begin() as session: ...``). Import
them from their modules (``from gapsweep.db import studies``): the package itself re-exports
nothing, so importing one module does not load them all.
"""
