"""One page of a study's design cases for the case grid: sorted, filtered and paged in SQL,
so a 10,000-case study sends the browser only the rows it shows.

The grid's sort and filter models (AG Grid's infinite row model, as dash-ag-grid forwards
them) name columns; only the columns of :func:`columns` are understood - an unknown column or
operator is a ValueError naming it, never SQL made from the request. Axis values are read from
the ``params`` JSON (portable: ``JSON_EXTRACT`` on SQLite, ``->>`` on PostgreSQL), metrics
from the results' columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from gapsweep.core import metrics as metric_registry
from sqlalchemy import and_, func, not_, or_, select
from sqlalchemy.orm import Session

from .models import METRIC_COLUMNS, Case, Result


def _metric_expression(name: str) -> Any:
    """The SQL value of metric ``name``: its column, or its number in ``Result.extra``."""
    return getattr(Result, name) if name in METRIC_COLUMNS else Result.extra[name].as_float()


MAX_ROWS = 1000  # rows per request (the grid asks for blocks of 100)
#: the headline metrics the table shows (design.md 4.5, the metric registry's): a Result
#: column where the metric has one, else its number in ``Result.extra``
TABLE_METRICS = metric_registry.headline()
TEXT_COLUMNS = {"status": Case.status, "reason": Case.reason}
NUMBER_COLUMNS = {"case": Case.id, "id": Case.id, "attempts": Case.attempts,
                  "wall_time_s": Case.wall_time_s,
                  **{m: _metric_expression(m) for m in TABLE_METRICS}}


def columns(axes: Mapping[str, str],
            metrics: Sequence[str] = TABLE_METRICS) -> dict[str, tuple[str, Any]]:
    """{column id: ("number" | "text", SQL expression)} for a study with ``axes``
    ({name: "number" | "text"}: how its values compare) and metric columns ``metrics``."""
    out: dict[str, tuple[str, Any]] = {c: ("text", e) for c, e in TEXT_COLUMNS.items()}
    out.update({c: ("number", e) for c, e in NUMBER_COLUMNS.items()})
    out.update({m: ("number", _metric_expression(m)) for m in metrics if m not in out})
    for name, kind in axes.items():
        value = Case.params[name]
        out[name] = (kind, value.as_float() if kind == "number" else value.as_string())
    return out


def _number(value: Any, where: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x):
        raise ValueError(f"{where}: {value!r} — a finite number")
    return x


def _condition(kind: str, expr: Any, model: Mapping[str, Any], where: str) -> Any:
    """One filter condition of AG Grid's number or text filter."""
    op = model.get("type")
    if op == "blank":
        return expr.is_(None)
    if op == "notBlank":
        return expr.is_not(None)
    if kind == "number":
        x = _number(model.get("filter"), f"{where}.filter")
        ops = {"equals": expr == x, "notEqual": expr != x, "lessThan": expr < x,
               "lessThanOrEqual": expr <= x, "greaterThan": expr > x,
               "greaterThanOrEqual": expr >= x}
        if op == "inRange":
            hi = _number(model.get("filterTo"), f"{where}.filterTo")
            return and_(expr >= x, expr <= hi)
    else:
        text = str(model.get("filter") or "")
        ops = {"contains": expr.icontains(text, autoescape=True),
               "notContains": not_(expr.icontains(text, autoescape=True)),
               "equals": expr == text, "notEqual": expr != text,
               "startsWith": expr.istartswith(text, autoescape=True),
               "endsWith": expr.iendswith(text, autoescape=True)}
    if op not in ops:
        allowed = ", ".join([*ops, "blank", "notBlank"] + (["inRange"] if kind == "number"
                                                           else []))
        raise ValueError(f"{where}.type: {op!r} — one of {allowed}")
    return ops[op]


def _filter(cols: Mapping[str, tuple[str, Any]], filter_model: Mapping[str, Any]) -> list:
    conds = []
    for col, model in (filter_model or {}).items():
        if col not in cols:
            raise ValueError(f"filterModel.{col}: not a column — one of {', '.join(cols)}")
        if not isinstance(model, Mapping):
            raise ValueError(f"filterModel.{col}: {model!r} — a filter model")
        kind, expr = cols[col]
        if "conditions" in model:  # two conditions joined by AND / OR
            parts = [_condition(kind, expr, m, f"filterModel.{col}.conditions[{i}]")
                     for i, m in enumerate(model["conditions"] or []) if isinstance(m, Mapping)]
            conds.append(or_(*parts) if model.get("operator") == "OR" else and_(*parts))
        else:
            conds.append(_condition(kind, expr, model, f"filterModel.{col}"))
    return conds


def _order(cols: Mapping[str, tuple[str, Any]], sort_model: Sequence[Any]) -> list:
    order = []
    for i, item in enumerate(sort_model or []):
        col = item.get("colId") if isinstance(item, Mapping) else None
        if col not in cols:
            raise ValueError(f"sortModel[{i}].colId: {col!r} — one of {', '.join(cols)}")
        direction = item.get("sort")
        if direction not in ("asc", "desc"):
            raise ValueError(f"sortModel[{i}].sort: {direction!r} — asc or desc")
        expr = cols[col][1]
        # empty values last either way, as the grid's own sort puts them
        order += [expr.is_(None), expr.asc() if direction == "asc" else expr.desc()]
    return [*order, Case.index]  # then design order: a stable page boundary


def case_page(
    session: Session,
    *,
    study_id: int,
    axes: Mapping[str, str],
    start: int = 0,
    end: int = 100,
    sort_model: Sequence[Any] = (),
    filter_model: Mapping[str, Any] | None = None,
    metrics: Sequence[str] = TABLE_METRICS,
) -> tuple[list[dict[str, Any]], int]:
    """Rows ``start``..``end`` (end excluded) of the study's design cases after the filter and
    sort, and how many pass the filter. Each row: ``id``, ``status``, ``attempts``, ``reason``,
    ``wall_time_s``, the axis values, ``metrics`` (the study's headline, by default
    :data:`TABLE_METRICS`; None before a case is done).
    Two queries (the count and the page), whatever the study's size."""
    if not 0 <= start <= end or end - start > MAX_ROWS:
        raise ValueError(f"startRow, endRow: {start}, {end} — 0 <= start <= end, at most "
                         f"{MAX_ROWS} rows")
    cols = columns(axes, metrics)
    conds = [Case.study_id == study_id, Case.kind == "case", *_filter(cols, filter_model)]
    base = select(Case.id).outerjoin(Result, Result.case_id == Case.id).where(*conds)
    total = session.scalar(select(func.count()).select_from(base.subquery())) or 0
    # a headline metric without a column of its own is read from Result.extra
    labelled = [_metric_expression(m).label(m) for m in metrics]
    rows = session.execute(
        select(Case.id, Case.status, Case.attempts, Case.reason, Case.wall_time_s, Case.params,
               *labelled)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(*conds)
        .order_by(*_order(cols, sort_model))
        .offset(start).limit(end - start)
    ).all()
    out = []
    for row in rows:
        params = row.params or {}
        out.append({
            "id": row.id, "status": row.status, "attempts": row.attempts,
            "reason": row.reason or "", "wall_time_s": row.wall_time_s,
            **{a: params.get(a) for a in axes},
            **{m: row._mapping[m] for m in metrics},
        })
    return out, int(total)


def twin_rows(session: Session, *, study_id: int, axes: Mapping[str, str],
              metrics: Sequence[str] = TABLE_METRICS) -> list[dict[str, Any]]:
    """The study's ideal twins as rows of :func:`case_page`'s shape (``kind`` = ``twin``; an
    axis the ideal joint does not read, such as the clearance, is None): the grid shows them
    pinned under the cases, marked. A study has a few (design.md 4.5: one per distinct
    non-joint setting)."""
    labelled = [_metric_expression(m).label(m) for m in metrics]
    rows = session.execute(
        select(Case.id, Case.status, Case.attempts, Case.reason, Case.wall_time_s, Case.params,
               *labelled)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "twin")
        .order_by(Case.index)
    ).all()
    return [{"id": r.id, "kind": "twin", "status": r.status, "attempts": r.attempts,
             "reason": r.reason or "", "wall_time_s": r.wall_time_s,
             **{a: (r.params or {}).get(a) for a in axes},
             **{m: r._mapping[m] for m in metrics}} for r in rows]
