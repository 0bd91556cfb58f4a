"""Dash components the pages share, each with its callbacks (case grid, rerun form, notes
editor, figure downloads)."""
