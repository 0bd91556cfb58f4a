"""A study's cases a page at a time, by a keyset cursor (issue 41, design.md 4.16).

``GET /api/studies/<id>/cases?limit=&cursor=&sort=&status=``, the first page of
``GET /api/studies/<id>``, ``gapsweep show --json`` (streamed page by page) and the Python
API's chunked table all read here. A page is the ``limit`` rows after the cursor in the sort
order, so the ``k``-th page costs one index range scan - not the ``k * limit`` rows an
``OFFSET`` walks past - and a case stored between two requests neither repeats nor hides a
row (the order is total: the sort key, then the design index, unique within a study's kind).

The cursor is the last row's sort key, as URL-safe base64 of JSON: opaque to a client, read
back and checked here (a malformed one is a ValueError naming it, never SQL).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Sequence
from typing import Any

from gapsweep.core import metrics as metric_registry
from sqlalchemy import and_, false, func, or_, select, true
from sqlalchemy.orm import Session

from .metrics import case_entry
from .models import CASE_KINDS, CASE_STATUSES, METRIC_COLUMNS, Case, Result

PAGE = 1000  # the default and largest page (design.md 4.16)
#: sort keys: the design order, the case id, or a metric column; ``-`` before one: descending
SORTS = ("index", "id", *METRIC_COLUMNS)


def _sort_expression(key: str) -> Any:
    if key == "index":
        return Case.index
    if key == "id":
        return Case.id
    return getattr(Result, key)


def parse_sort(sort: str | None) -> tuple[str, bool]:
    """``(key, descending)`` of a ``sort`` argument (``index`` when empty); ValueError
    naming the allowed keys for any other."""
    raw = (sort or "index").strip()
    descending = raw.startswith("-")
    key = raw[1:] if descending else raw
    if key not in SORTS:
        raise ValueError(f"sort: {sort!r} — one of {', '.join(SORTS)}, '-' before one for "
                         "descending")
    return key, descending


def encode_cursor(value: Any, index: int) -> str:
    """The cursor after a row whose sort value is ``value`` and design index ``index``."""
    raw = json.dumps([value, index], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[Any, int]:
    """``(value, index)`` of a cursor from :func:`encode_cursor`; ValueError otherwise."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value, index = json.loads(raw)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise ValueError(f"cursor: {cursor!r} — a cursor a previous page gave") from None
    ok_value = value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
    if not ok_value or not isinstance(index, int) or isinstance(index, bool):
        raise ValueError(f"cursor: {cursor!r} — a cursor a previous page gave")
    return value, index


def _after(expr: Any, descending: bool, value: Any, index: int, nullable: bool) -> Any:
    """Rows after ``(value, index)`` in the order ``expr`` (nulls last), then index."""
    later = Case.index > index
    if value is None:  # in the nulls already, at the end of either order
        return and_(expr.is_(None), later) if nullable else false()
    beyond = expr < value if descending else expr > value
    tail = expr.is_(None) if nullable else false()
    return or_(beyond, and_(expr == value, later), tail)


def case_page(
    session: Session,
    *,
    study_id: int,
    kind: str = "case",
    limit: int = PAGE,
    cursor: str | None = None,
    sort: str | None = None,
    status: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of the study's rows of ``kind``: ``(entries, next cursor or None)``, each
    entry as ``show --json`` lists a case (``{"id","params","status","attempts","reason",
    "metrics","twin_id"}``, ``deviation_*`` from its twin when it has one; a certificate adds
    ``source_id`` and ``slot``). ``sort``: :data:`SORTS`, ``-`` for descending, the design
    index breaking ties, empty values last; ``status``: only the cases of one status. Two
    queries: the page, and its twins' metrics."""
    rows, after = page_rows(session, study_id=study_id, kind=kind, limit=limit, cursor=cursor,
                            sort=sort, status=status)
    return [_row_entry(r) for r in rows], after


def page_rows(
    session: Session, *, study_id: int, kind: str = "case", limit: int = PAGE,
    cursor: str | None = None, sort: str | None = None, status: str | None = None,
) -> tuple[list[Any], str | None]:
    """:func:`case_page`'s rows as the database gives them (Core rows of
    :func:`page_query`'s columns), and the next cursor: for a reader that shapes its own
    output (the export writes them as rows without building each case's entry first)."""
    query = page_query(study_id=study_id, kind=kind, limit=limit, cursor=cursor, sort=sort,
                       status=status)
    rows = session.connection().execute(query).all()  # Core rows: no ORM loading
    more = len(rows) > limit
    rows = rows[:limit]
    if not more:
        return rows, None
    last = rows[-1]
    return rows, encode_cursor(last.sort_value, last.index)


def row_metrics(row: Any) -> dict[str, Any]:
    """The metrics of a row of :func:`page_rows` (columns then ``extra``; {} without a
    result)."""
    if row.result_id is None:
        return {}
    start = len(_CASE_COLUMNS) + 1  # the metric columns follow the result's id
    metrics = {m: v for m, v in zip(METRIC_COLUMNS, row[start:start + len(METRIC_COLUMNS)],
                                    strict=True) if v is not None}
    metrics.update(row.extra or {})
    return metrics


#: the columns a page reads: plain rows, not ORM objects (a third of the time per page)
_CASE_COLUMNS = (Case.id, Case.index, Case.kind, Case.params, Case.status, Case.attempts,
                 Case.reason, Case.twin_id, Case.source_case_id, Case.slot)
_RESULT_COLUMNS = tuple(getattr(Result, m).label(f"r_{m}") for m in METRIC_COLUMNS)


def _row_entry(row: Any) -> dict[str, Any]:
    """A page's row as :func:`.metrics.case_entry` shapes a case."""
    metrics = row_metrics(row)
    entry = {"id": row.id, "params": row.params, "status": row.status,
             "attempts": row.attempts, "reason": row.reason, "metrics": metrics,
             "twin_id": row.twin_id}
    if row.kind == "certificate":
        entry.update(source_id=row.source_case_id, slot=row.slot)
    return entry


def page_query(*, study_id: int, kind: str = "case", limit: int = PAGE,
               cursor: str | None = None, sort: str | None = None,
               status: str | None = None) -> Any:
    """The SELECT of :func:`case_page` (one row more than ``limit``: whether a next page
    exists), checked argument by argument."""
    if kind not in CASE_KINDS:
        raise ValueError(f"kind: {kind!r} — one of {', '.join(CASE_KINDS)}")
    if status is not None and status not in CASE_STATUSES:
        raise ValueError(f"status: {status!r} — one of {', '.join(CASE_STATUSES)}")
    if not 1 <= limit <= PAGE:
        raise ValueError(f"limit: {limit} — an integer from 1 to {PAGE}")
    key, descending = parse_sort(sort)
    expr = _sort_expression(key)
    nullable = key not in ("index", "id")
    conds = [Case.study_id == study_id, Case.kind == kind]
    if status is not None:
        conds.append(Case.status == status)
    if cursor:
        value, index = decode_cursor(cursor)
        conds.append(_after(expr, descending, value, index, nullable))
    order = [expr.desc() if descending else expr.asc(), Case.index]
    if nullable:
        order.insert(0, expr.is_(None))
    if key == "index":
        order = [Case.index.desc()] if descending else [Case.index]
    return (select(*_CASE_COLUMNS, Result.id.label("result_id"), *_RESULT_COLUMNS,
                   Result.extra, expr.label("sort_value"))
            .outerjoin(Result, Result.case_id == Case.id)
            .where(*conds).order_by(*order).limit(limit + 1))


def _entry(case: Case, result: Result | None) -> dict:
    entry = case_entry(case, result)
    if case.kind == "certificate":
        entry.update(source_id=case.source_case_id, slot=case.slot)
    return entry


def count(session: Session, *, study_id: int, kind: str = "case",
          status: str | None = None) -> int:
    """How many rows of ``kind`` (and ``status``) the study has: one indexed count."""
    conds = [Case.study_id == study_id, Case.kind == kind,
             Case.status == status if status is not None else true()]
    return int(session.scalar(select(func.count()).select_from(Case).where(*conds)) or 0)


def iter_pages(
    sessions: Any, *, study_id: int, kind: str = "case", page: int = PAGE,
    sort: str | None = None, status: str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Every row of ``kind`` a page at a time, each page read in its own short session from
    ``sessions`` (a session factory): memory bounded by one page, however large the study,
    and no read transaction held open while the caller writes the page out."""
    for rows in iter_page_rows(sessions, study_id=study_id, kind=kind, page=page, sort=sort,
                               status=status):
        yield [_row_entry(r) for r in rows]


def iter_page_rows(
    sessions: Any, *, study_id: int, kind: str = "case", page: int = PAGE,
    sort: str | None = None, status: str | None = None,
) -> Iterator[list[Any]]:
    """:func:`iter_pages` as the rows of :func:`page_rows`."""
    cursor = None
    while True:
        with sessions() as session:
            rows, cursor = page_rows(session, study_id=study_id, kind=kind, limit=page,
                                     cursor=cursor, sort=sort, status=status)
        if rows:
            yield rows
        if cursor is None:
            return


def case_at(session: Session, *, study_id: int, index: int) -> dict[str, Any] | None:
    """The design case at ``index`` as :func:`case_page` lists it (an adaptive study's best
    case), None when there is none."""
    row = session.execute(
        select(Case, Result).outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "case", Case.index == index)).first()
    if row is None:
        return None
    return _entry(row.Case, row.Result)


def metric_columns(
    session: Session, *, study_id: int, names: Sequence[str], kind: str = "case",
) -> dict[str, list[Any]]:
    """``{"id", "index", "status", *names}``: columns of the study's rows of ``kind`` in design
    order, each metric read from its own column of ``results`` (no JSON decoded; a metric
    without a column is read from ``extra`` by the database's JSON path)."""
    exprs = []
    for name in names:
        if name in METRIC_COLUMNS:
            exprs.append(getattr(Result, name).label(name))
        else:
            exprs.append(Result.extra[name].as_float().label(name))
    rows = session.execute(
        select(Case.id, Case.index, Case.status, *exprs)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == kind).order_by(Case.index)).all()
    out: dict[str, list[Any]] = {"id": [], "index": [], "status": [],
                                 **{n: [] for n in names}}
    for row in rows:
        for key, value in zip(out, row, strict=True):
            out[key].append(value)
    return out


def study_table(session: Session, study_id: int, *, metrics: Sequence[str] = ()
                ) -> dict[str, Any] | None:
    """The study as :func:`.studies.study_detail` shapes it, read by columns for a large
    study's tabs (issue 41.2): each case and twin carries ``id``, ``status``, ``twin_id``,
    its ``params`` as the spec's base plus its axis values (each axis read by the database's
    JSON path, not the whole document), and ``metrics`` with every metric column, the other
    ``metrics`` asked for (each by its JSON path in ``extra``) and the ``deviation_*`` from its
    twin (those of ``metrics`` only). ``attempts`` and ``reason`` are left out; the
    certificates are whole (a few). None for a missing or deleted study."""
    from .models import Study
    from .studies import _study_fields

    study = session.get(Study, study_id)
    if study is None or study.deleted_at is not None:
        return None
    spec = study.spec or {}
    base = {k: v for k, v in (spec.get("base") or {}).items() if k != "mechanism"}
    axes = list(spec.get("axes") or {})
    names = list(dict.fromkeys([*METRIC_COLUMNS, *metrics]))
    # a number read by the JSON path as a number (SQLite's text round trip would keep only
    # 15 digits)
    metric_exprs = [(getattr(Result, n) if n in METRIC_COLUMNS else Result.extra[n].as_float())
                    .label(f"m{i}") for i, n in enumerate(names)]
    axis_exprs = [_axis_value(a, spec["axes"][a]).label(f"p{i}") for i, a in enumerate(axes)]
    rows = session.connection().execute(
        select(Case.id, Case.kind, Case.status, Case.twin_id, *axis_exprs, *metric_exprs)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind.in_(("case", "twin")))
        .order_by(Case.kind.desc(), Case.index)).all()
    n_axes = len(axes)
    cases: list[dict[str, Any]] = []
    twins: list[dict[str, Any]] = []
    for row in rows:
        params = dict(base)
        params.update((a, v) for a, v in zip(axes, row[4:4 + n_axes], strict=True)
                      if v is not None)
        values = {n: v for n, v in zip(names, row[4 + n_axes:], strict=True) if v is not None}
        entry = {"id": row.id, "params": params, "status": row.status, "metrics": values,
                 "twin_id": row.twin_id}
        (twins if row.kind == "twin" else cases).append(entry)
    # a stored deviation may be null (a twin without the metric): the JSON path reads it as
    # missing, the whole read as None - the same keys either way
    asked = [n for n in metrics if n.startswith(metric_registry.DEVIATION)]
    for entry in cases:
        if asked and entry["twin_id"] is not None and entry["metrics"]:
            for name in asked:
                entry["metrics"].setdefault(name, None)
    certificates, _ = case_page(session, study_id=study_id, kind="certificate")
    return {**_study_fields(session, study), "cases": cases, "twins": twins,
            "certificates": certificates}


def _axis_value(name: str, axis: Any) -> Any:
    """An axis's value in a case's ``params`` by the JSON path, typed as the spec gives its
    levels: integers, numbers, text (else the JSON value itself)."""
    levels = [v for k, v in (axis or {}).items() if k in ("values", "nominal", "start", "stop")]
    flat = [x for v in levels for x in (v if isinstance(v, list) else [v])]
    expr = Case.params[name]
    if flat and all(isinstance(x, int) and not isinstance(x, bool) for x in flat) \
            and "values" in (axis or {}):
        return expr.as_integer()
    if flat and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in flat):
        return expr.as_float()
    if flat and all(isinstance(x, str) for x in flat):
        return expr.as_string()
    return expr


def trend_columns(session: Session, *, study_id: int, axes: Sequence[str], metric: str,
                  kind: str = "case", ids: bool = True) -> dict[str, list[Any]]:
    """What a figure of one metric reads, and nothing else: ``{"id", "twin_id", *axes,
    metric}`` of the study's done rows of ``kind`` in design order - each axis by its JSON
    path in ``params``, the metric from its column (or by JSON path in ``extra``). {} of
    empty lists when the study has none. ``ids=False``: without ``id`` and ``twin_id`` (a
    figure that pairs no case with its twin: two columns fewer of 100,000 rows to fetch and
    transpose, issue 41)."""
    from .models import Study

    spec = session.scalar(select(Study.spec).where(Study.id == study_id)) or {}
    spec_axes = spec.get("axes") or {}
    value = getattr(Result, metric) if metric in METRIC_COLUMNS \
        else Result.extra[metric].as_float()
    exprs = [_axis_value(a, spec_axes.get(a)) for a in axes]
    keys = [Case.id, Case.twin_id] if ids else []
    rows = session.connection().execute(
        select(*keys, *exprs, value)
        .select_from(Case).join(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == kind, Case.status == "done")
        .order_by(Case.index)).all()
    names = [*(["id", "twin_id"] if ids else []), *axes, metric]
    return {n: list(col) for n, col in zip(names, zip(*rows, strict=True), strict=True)} \
        if rows else {n: [] for n in names}
