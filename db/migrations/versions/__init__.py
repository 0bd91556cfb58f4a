"""Revision scripts, oldest first (``0001_initial`` creates every table)."""
