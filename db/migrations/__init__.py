"""Alembic migrations of the archive (env.py, versions/); run by :mod:`gapsweep.db.engine`."""
