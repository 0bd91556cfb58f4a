"""The few cases a large study's tab draws, read by the database (issue 41, design.md 4.16):
past :data:`gapsweep.web.figures.trend_bands.POINT_LIMIT` cases the Spectra, Motion and
Convergence tabs read these, never a table of every case.

- :func:`axis_levels`: an axis's distinct values among the done cases (``GROUP BY``);
- :func:`spread_cases`: at most ``limit`` done cases, some axes held at a level, spread
  evenly along another (a window's row numbers pick them: ``limit`` rows come back);
- :func:`cases_by_id`: the cases of some ids (a picker's choice, certificates' sources);
- :func:`motion_cells`: the motion class counts per (x, y) level pair (``GROUP BY``);
- :func:`start_dependent_cases`: the (first few) cases whose settled motion depends on
  their start, with their count and largest spread.

Each case comes back as :func:`.case_pages.study_table` lists one: ``{"id", "status",
"twin_id", "params" (the spec's base and the axes' values), "metrics" (those asked)}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from .case_pages import _axis_value
from .models import METRIC_COLUMNS, Case, Result, Study

#: a metric stored as text (read by its JSON path as a string, not a number)
TEXT_METRICS = frozenset({"motion", "contact_mode"})


def _metric(name: str) -> Any:
    if name in METRIC_COLUMNS:
        return getattr(Result, name)
    return (Result.extra[name].as_string() if name in TEXT_METRICS
            else Result.extra[name].as_float())


def _spec(session: Session, study_id: int) -> dict[str, Any]:
    return session.scalar(select(Study.spec).where(Study.id == study_id)) or {}


def _axes(spec: dict[str, Any]) -> dict[str, Any]:
    return {a: _axis_value(a, v) for a, v in (spec.get("axes") or {}).items()}


def _done(study_id: int) -> list[Any]:
    return [Case.study_id == study_id, Case.kind == "case", Case.status == "done"]


def _entries(session: Session, spec: dict[str, Any], conds: Sequence[Any],
             metrics: Sequence[str], order: Any = None, limit: int | None = None
             ) -> list[dict[str, Any]]:
    """The cases passing ``conds`` as entries (their axes and ``metrics`` only)."""
    base = {k: v for k, v in (spec.get("base") or {}).items() if k != "mechanism"}
    axes = _axes(spec)
    query = (select(Case.id, Case.status, Case.twin_id,
                    *[e.label(f"p{i}") for i, e in enumerate(axes.values())],
                    *[_metric(m).label(f"m{i}") for i, m in enumerate(metrics)])
             .select_from(Case).outerjoin(Result, Result.case_id == Case.id).where(*conds)
             .order_by(order if order is not None else Case.index))
    if limit is not None:
        query = query.limit(limit)
    out = []
    n = len(axes)
    for row in session.connection().execute(query):
        params = dict(base)
        params.update((a, v) for a, v in zip(axes, row[3:3 + n], strict=True) if v is not None)
        out.append({"id": row.id, "status": row.status, "twin_id": row.twin_id,
                    "params": params,
                    "metrics": {m: v for m, v in zip(metrics, row[3 + n:], strict=True)
                                if v is not None}})
    return out


def axis_levels(session: Session, *, study_id: int, axis: str) -> list[Any]:
    """The distinct values of ``axis`` among the study's done cases (one row per level)."""
    expr = _axes(_spec(session, study_id)).get(axis)
    if expr is None:
        return []
    return [v for v in session.scalars(select(expr).select_from(Case)
                                       .where(*_done(study_id)).group_by(expr))
            if v is not None]


def spread_cases(session: Session, *, study_id: int, along: str | None,
                 equal: dict[str, Any] | None = None, limit: int,
                 metrics: Sequence[str] = ()) -> tuple[list[dict[str, Any]], int]:
    """At most ``limit`` done cases with the axes of ``equal`` at those values, spread
    evenly along ``along`` (design order without one), first and last included; and how
    many passed the filter. Two queries: the count, then the ``limit`` picked rows (their
    row numbers in the order along the axis, from a window function)."""
    spec = _spec(session, study_id)
    axes = _axes(spec)
    conds = _done(study_id) + [axes[a] == v for a, v in (equal or {}).items() if a in axes]
    total = int(session.scalar(select(func.count()).select_from(Case).where(*conds)) or 0)
    if total == 0 or limit < 1:
        return [], total
    key = axes.get(along) if along else None
    order = [key, Case.index] if key is not None else [Case.index]
    if total <= limit:
        positions = list(range(1, total + 1))
    else:
        step = (total - 1) / (limit - 1) if limit > 1 else 0
        positions = sorted({round(i * step) + 1 for i in range(limit)})
    ranked = (select(Case.id.label("cid"),
                     func.row_number().over(order_by=order).label("rn"))
              .select_from(Case).where(*conds).subquery())
    picked = select(ranked.c.cid).where(ranked.c.rn.in_(positions))
    cases = _entries(session, spec, [Case.id.in_(picked)], metrics)
    ordered = sorted(cases, key=lambda c: _sort_key(c["params"].get(along)) if along else 0)
    return ordered, total


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))


def cases_by_id(session: Session, *, study_id: int, ids: Sequence[int],
                metrics: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The study's cases among ``ids`` (of any status), in design order."""
    ids = [int(i) for i in ids][:1000]
    if not ids:
        return []
    return _entries(session, _spec(session, study_id),
                    [Case.study_id == study_id, Case.kind == "case", Case.id.in_(ids)],
                    metrics)


#: the class map's cells per axis at most (1,600 squares: a readable map, a figure of
#: ~0.2 MB): an axis of more levels is binned by level rank
MAP_BINS = 40


def motion_cells(session: Session, *, study_id: int, x_axis: str, y_axis: str,
                 show: str = "motion", bins: int = MAP_BINS) -> list[dict[str, Any]]:
    """The done cases counted per (``x_axis``, ``y_axis``) cell: a cell is a level pair, or
    where an axis has more than ``bins`` levels, ``bins`` runs of consecutive levels (by
    their rank: ``dense_rank`` over the axis, integer division). ``show="motion"``: one row
    per class present in a cell, ``{"x", "y", "motion", "count", "id"}``; else one row per
    cell with the mean indicator ``{"x", "y", "chaos_indicator", "count", "id"}``. ``x``,
    ``y``: the middle of the cell's levels; ``id``: its lowest case id (a click opens it).
    Three queries: the two axes' level counts, the grouped cells."""
    axes = _axes(_spec(session, study_id))
    if x_axis not in axes or y_axis not in axes:
        return []
    x, y = axes[x_axis], axes[y_axis]
    levels = session.execute(select(func.count(x.distinct()), func.count(y.distinct()))
                             .select_from(Case).where(*_done(study_id))).one()
    n_x, n_y = max(1, int(levels[0] or 0)), max(1, int(levels[1] or 0))
    motion = _metric("motion") if show == "motion" else _metric("chaos_indicator")
    ranked = (select(Case.id.label("id"), x.label("x"), y.label("y"), motion.label("v"),
                     ((func.dense_rank().over(order_by=x) - 1) * bins // n_x).label("bx"),
                     ((func.dense_rank().over(order_by=y) - 1) * bins // n_y).label("by"))
              .select_from(Case).outerjoin(Result, Result.case_id == Case.id)
              .where(*_done(study_id), x.is_not(None), y.is_not(None)).subquery())
    keys = [ranked.c.bx, ranked.c.by] + ([ranked.c.v] if show == "motion" else [])
    value = ranked.c.v if show == "motion" else func.avg(ranked.c.v)
    rows = session.connection().execute(
        select(ranked.c.bx, ranked.c.by, value, func.count(), func.min(ranked.c.id),
               func.min(ranked.c.x), func.max(ranked.c.x), func.min(ranked.c.y),
               func.max(ranked.c.y)).group_by(*keys)).all()
    # a cell's place: the middle of its column's levels, and of its row's (every class
    # and every cell of the column or row alike: the cells line up)
    cols: dict[Any, list[Any]] = {}
    lines: dict[Any, list[Any]] = {}
    for r in rows:
        for spans, key, lo, hi in ((cols, r[0], r[5], r[6]), (lines, r[1], r[7], r[8])):
            have = spans.setdefault(key, [lo, hi])
            have[:] = [min(have[0], lo), max(have[1], hi)]
    name = "motion" if show == "motion" else "chaos_indicator"
    return [{"x": _mid(*cols[r[0]]), "y": _mid(*lines[r[1]]), name: r[2], "count": r[3],
             "id": r[4]} for r in rows]


def _mid(low: Any, high: Any) -> Any:
    """The middle of a cell's levels (its one level, or the first of text levels)."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (low, high))
    return (low + high) / 2 if numbers and low != high else low


def start_dependent_cases(session: Session, *, study_id: int, tolerance: float,
                          limit: int = 12) -> tuple[list[dict[str, Any]], int, float | None]:
    """The first ``limit`` done cases whose settled motion depends on the start (their own
    verdict ``start_dependent``, else ``start_spread`` above ``tolerance``), how many there
    are, and the largest spread among them."""
    verdict, spread = _metric("start_dependent"), _metric("start_spread")
    flagged = or_(verdict > 0, and_(verdict.is_(None), spread > tolerance))
    conds = [*_done(study_id), flagged]
    count, largest = session.execute(
        select(func.count(), func.max(spread)).select_from(Case)
        .join(Result, Result.case_id == Case.id).where(*conds)).one()
    if not count:
        return [], 0, None
    cases = _entries(session, _spec(session, study_id), conds, ("start_dependent",
                                                                "start_spread"), limit=limit)
    return cases, int(count), None if largest is None else float(largest)


def whole_cases(session: Session, *, study_id: int, ids: Sequence[int]
                ) -> list[dict[str, Any]]:
    """The study's cases among ``ids`` whole, as ``show --json`` lists them (every metric,
    their stored ``params``): a few, e.g. the certificates' sources."""
    from .metrics import case_entry

    ids = [int(i) for i in ids][:1000]
    if not ids:
        return []
    rows = session.execute(
        select(Case, Result).outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "case", Case.id.in_(ids))
        .order_by(Case.index)).all()
    return [case_entry(r.Case, r.Result) for r in rows]
