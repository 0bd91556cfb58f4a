"""One case's page data: its detail, series, its ideal twin's series, the study's
provenance; and the tables the case and compare pages show. Server side."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from gapsweep.core.api import measures_of as core_measures_of

from .. import data
from ..figures.labels import metric_display, metric_label
from .parameters import label as parameter_label

# the solver's own counters among a case's metrics (how hard the step control worked)
SOLVER_COUNTERS = ("accepted_steps", "rejected_steps", "rhs_evaluations", "peak_refinements",
                   "wall_time_s", "max_constraint_drift", "energy_balance_error")


def measures_of(detail: Mapping[str, Any]) -> Any:
    """What the case's study measures (:class:`gapsweep.core.measures.Measures`): its model's,
    a described mechanism's read from its table (the case's params, else its study's spec)."""
    params = detail.get("params") or {}
    table = params.get("mechanism") or (detail.get("spec") or {}).get("mechanism")
    return core_measures_of(detail.get("model"), table)


def load_case(case_id: int) -> dict[str, Any] | None:
    """``{"detail", "series", "twin_series", "provenance"}`` of a case, None if unknown."""
    return data.case_with_series(case_id)


def _show(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    if isinstance(value, (dict, list)):
        return ", ".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) \
            else ", ".join(map(str, value))
    return str(value)


DEFAULT_MARK = "default"


def parameter_rows(
    params: Mapping[str, Any], defaults: Mapping[str, Any] | None = None
) -> list[dict[str, str]]:
    """Every parameter that made the run: those the case set (study base and axes, in their
    order), then the model's defaults it left alone, marked as such in ``source``. A
    described mechanism's table is shown by its name (the whole table is the study's)."""
    rows = [{"parameter": parameter_label(k),
             "value": _mechanism_name(v) if k == "mechanism" else _show(v), "source": "set"}
            for k, v in params.items()]
    rows += [{"parameter": parameter_label(k), "value": _show(v), "source": DEFAULT_MARK}
             for k, v in (defaults or {}).items() if k not in params and k != "mechanism"]
    return rows


def _mechanism_name(table: Any) -> str:
    name = table.get("name", "mechanism") if isinstance(table, Mapping) else "mechanism"
    return f"{name} (the study's [mechanism] table)"


def metric_rows(metrics: Mapping[str, Any], *, counters: bool) -> list[dict[str, str]]:
    """Metrics (``counters=False``) or the solver counters (``True``) as label/value rows."""
    names = [m for m in metrics if (m in SOLVER_COUNTERS) == counters]
    return [{"quantity": metric_label(m), "value": _show(metric_display(m, metrics[m]))}
            for m in names]


def provenance_rows(provenance: Mapping[str, Any]) -> list[dict[str, str]]:
    rows = []
    for key, value in provenance.items():
        if key == "spec":
            continue  # the study page offers the spec as a file
        rows.append({"item": key, "value": _show(value)})
    return rows


def side_by_side(cases: Sequence[Mapping[str, Any]]) -> tuple[list[dict], list[dict]]:
    """Columns and rows of the compare page's table: one row per parameter or headline
    metric, one column per case (a parameter a case does not set shows its absence)."""
    columns = [{"id": "name", "name": ""}] + [
        {"id": str(c["id"]), "name": f"Case {c['id']}"} for c in cases]
    names: dict[str, None] = {}
    for c in cases:
        names.update(dict.fromkeys(c.get("params") or {}))
    def shown(n: str, c: Mapping[str, Any]) -> str:
        value = (c.get("params") or {}).get(n, "—")
        return _mechanism_name(value) if n == "mechanism" else _show(value)

    rows = [{"name": parameter_label(n), **{str(c["id"]): shown(n, c) for c in cases}}
            for n in names]
    rows.append({"name": "status", **{str(c["id"]): c.get("status", "") for c in cases}})
    for m in compared_metrics(cases):
        rows.append({"name": metric_label(m),
                     **{str(c["id"]): _show(metric_display(m, (c.get("metrics") or {}).get(m)))
                    for c in cases}})
    return columns, rows


def compared_metrics(cases: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The headline metrics cases are compared on: their model's (the first case's; a
    mechanism's measures), the built-in models' when there are none."""
    return measures_of(cases[0]).headline if cases else core_measures_of(None).headline


def parse_case_ids(text: str | None, lo: int = 2, hi: int = 6) -> tuple[list[int], str | None]:
    """``"1,2,3"`` -> ([1, 2, 3], None); a message when it is not lo..hi integer ids."""
    tokens = [t for t in str(text or "").replace(" ", ",").split(",") if t]
    try:
        case_ids = list(dict.fromkeys(int(t) for t in tokens))
    except ValueError:
        return [], f"cases: {text!r} — comma-separated case ids"
    if not lo <= len(case_ids) <= hi:
        return case_ids, f"cases: {len(case_ids)} given — {lo} to {hi} case ids"
    return case_ids, None
