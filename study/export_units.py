"""The units of a study export's columns, for the sidecar file beside a cases CSV.

The export's header is the contract of design.md 4.5 (parameter names, ``status``, metric
names) that scripts read by name, so the units travel beside it: ``cases.units.csv`` with one
row per column - its name, the unit its values are in (the parameter's own, e.g. mm for
``clearance_mm``; SI for a metric, e.g. m for ``max_penetration``: an export is SI like
``--json``) and a label.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from gapsweep.core import metrics, parameters

SIDECAR_SUFFIX = ".units.csv"
HEADER = ("column", "unit", "label")


def column_units(columns: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(column, unit, label)`` of each export column (the parameters are the columns
    before ``status``, design.md 4.5; after it ``case_id`` and the metrics). No unit: ``""``."""
    params = set(columns[: list(columns).index("status")] if "status" in columns else columns)
    out = []
    for name in columns:
        if name in params:
            out.append((name, parameters.unit(name), name))
        elif name in ("status", "case_id", "id"):
            out.append((name, "", name))
        else:
            entry = metrics.lookup(name)
            out.append((name, entry.si_unit, entry.label))
    return out


def units_csv(columns: Sequence[str]) -> str:
    """The sidecar's text: :data:`HEADER`, then :func:`column_units`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(column_units(columns))
    return out.getvalue()


def sidecar_path(path: str) -> str:
    """``cases.csv`` -> ``cases.units.csv`` (the units file written beside it)."""
    stem = path[:-4] if path.lower().endswith(".csv") else path
    return stem + SIDECAR_SUFFIX
