"""The study page's case table on Dash AG Grid, server-side: AG Grid's infinite row model asks
for a block of rows with its sort and filter models, and :func:`rows_response` answers from
:func:`gapsweep.db.case_table.case_page` (sorted, filtered and paged in SQL), so a
10,000-case study costs the browser one block of 100 rows at a time
(``benchmarks/case_grid.py`` measures it).

Each case links to its page; ticked cases (2 to 6) open the compare page. The grid re-asks
for its rows when the study's progress fingerprint moves (the poll), not every poll.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from typing import Any

import dash_ag_grid as dag
from dash import Input, Output, State, callback, clientside_callback, dcc, no_update

from .. import data, ids
from ..figures.labels import measuring, metric_label, metric_scale, parameter_label
from ..views import study_view as view

BLOCK = 100  # rows per request


def axis_kinds(detail: Mapping[str, Any]) -> dict[str, str]:
    """{axis: "number" | "text"}: how the grid sorts and filters each axis of the study."""
    kinds = {}
    for axis, spec in ((detail.get("spec") or {}).get("axes") or {}).items():
        values = [v for k, v in spec.items() if k in ("values", "nominal", "start", "stop")]
        flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
        numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in flat)
        kinds[axis] = "number" if numeric else "text"
    return kinds


# the columns a person asks for (the "more columns" switch), not shown by default: they took
# the width so that only two metrics fitted
RUN_COLUMNS = ("attempts", "reason", "wall_time_s")


Shown = Mapping[str, Sequence[Any]]  # metric -> (header, factor from SI to the shown unit)


def shown_metrics(detail: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
    """The grid's metric columns of a study ({name: [header, factor]}): its measures'
    headline (a mechanism's own settled peaks, not the slider's); the built-in models' for
    None."""
    measures = view.measures_of(detail) if detail is not None else None
    names = measures.headline if measures is not None else view.TABLE_METRICS
    with measuring(measures) if measures is not None else nullcontext():
        return {m: [metric_label(m), metric_scale(m)] for m in names}


def _metrics(shown: Any) -> Shown:
    return shown if isinstance(shown, Mapping) and shown else shown_metrics()


def column_defs(kinds: Mapping[str, str], shown: Shown | None = None, *,
                more: bool = False) -> list[dict[str, Any]]:
    """The grid's columns: the case link (with the selection tick), status, the axes, the
    metrics ``shown`` (:func:`shown_metrics`) - each sortable and filterable - and, with
    ``more``, attempts, reason and time (:data:`RUN_COLUMNS`, hidden otherwise). A dotted
    name (a mechanism's ``joints.pin.clearance_mm``) is one field, not a path."""
    number = {"filter": "agNumberColumnFilter", "type": "numericColumn"}
    text = {"filter": "agTextColumnFilter"}
    cols: list[dict[str, Any]] = [
        # links open in the same tab: the markdown renderer's default ("linkTarget" here
        # would reach react-markdown, which warns on the console that it was removed)
        {"field": "case", "headerName": "Case", "cellRenderer": "markdown",
         "minWidth": 110, **number},
        {"field": "status", "headerName": "Status", **text},
        {"field": "attempts", "headerName": "Attempts", **number},
        {"field": "reason", "headerName": "Reason", **text},
        {"field": "wall_time_s", "headerName": view.TIME_COLUMN,
         "headerTooltip": view.TIME_TOOLTIP, **number},
    ]
    cols += [{"field": a, "headerName": parameter_label(a),
              **(number if kind == "number" else text)} for a, kind in kinds.items()]
    cols += [{"field": m, "headerName": header, **number}
             for m, (header, _) in _metrics(shown).items()]
    for col in cols:
        if col["field"] in RUN_COLUMNS:
            col["hide"] = not more
    # the run columns after the metrics
    return ([c for c in cols if c["field"] not in RUN_COLUMNS]
            + [c for c in cols if c["field"] in RUN_COLUMNS])


def grid(detail: Mapping[str, Any]) -> dag.AgGrid:
    return dag.AgGrid(
        id=ids.STUDY_CASE_GRID,
        rowModelType="infinite",
        columnDefs=column_defs(axis_kinds(detail), shown_metrics(detail)),
        defaultColDef={"sortable": True, "resizable": True, "minWidth": 100,
                       "filterParams": {"maxNumConditions": 2}, "wrapHeaderText": True,
                       "autoHeaderHeight": True},
        getRowId="params.data.id",
        dashGridOptions={
            # a mechanism's parameters are dotted names, not paths into the row
            "suppressFieldDotNotation": True,
            "rowSelection": {"mode": "multiRow", "checkboxes": True, "headerCheckbox": False,
                             "enableClickSelection": False},
            "cacheBlockSize": BLOCK, "maxBlocksInCache": 20, "infiniteInitialRowCount": 1,
            "rowBuffer": 10,
        },
        columnSize="autoSize",
        style={"height": "560px"},
    )


def _show(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else None
    return value


def rows_response(study_id: Any, request: Mapping[str, Any] | None,
                  kinds: Mapping[str, str], shown: Shown | None = None) -> dict[str, Any]:
    """``getRowsResponse`` for a grid's ``getRowsRequest``: ``{"rowData", "rowCount"}``
    (the count of cases passing the filter, so the grid knows where the table ends)."""
    request = request or {}
    shown = _metrics(shown)
    start = int(request.get("startRow") or 0)
    end = int(request.get("endRow") or start + BLOCK)
    rows, total = data.grid_page(int(study_id), axes=dict(kinds), start=start, end=end,
                                 sort_model=request.get("sortModel") or [],
                                 filter_model=stored_units(request.get("filterModel") or {},
                                                           shown),
                                 metrics=list(shown))
    return {"rowData": [shown_row(row, shown) for row in rows], "rowCount": total}


def shown_row(row: Mapping[str, Any], shown: Shown | None = None) -> dict[str, Any]:
    """A :func:`case_page` row as the grid shows it: the case link, each metric in the unit
    its header names (penetrations in µm), numbers to 6 significant digits."""
    out = dict(row)
    twin = " (ideal twin)" if row.get("kind") == "twin" else ""
    out["case"] = f"[{row['id']}{twin}](/cases/{row['id']})"
    for m, (_, factor) in _metrics(shown).items():
        if isinstance(out.get(m), (int, float)) and not isinstance(out[m], bool):
            out[m] = out[m] * factor
    return {k: _show(v) if not isinstance(v, (list, dict)) else str(v) for k, v in out.items()}


def stored_units(filter_model: Mapping[str, Any], shown: Shown | None = None) -> dict[str, Any]:
    """The grid's filter model with each metric's typed numbers (in the shown unit, e.g. µm)
    turned back into the stored unit (m) the SQL compares with."""
    if not isinstance(filter_model, Mapping):
        return filter_model  # case_page refuses it by name

    def scaled(entry: Any, factor: float) -> Any:
        if not isinstance(entry, Mapping):
            return entry
        out = dict(entry)
        for key in ("filter", "filterTo"):
            if isinstance(out.get(key), (int, float)) and not isinstance(out[key], bool):
                out[key] = out[key] / factor
        if isinstance(out.get("conditions"), list):
            out["conditions"] = [scaled(c, factor) for c in out["conditions"]]
        return out

    factors = {m: factor for m, (_, factor) in _metrics(shown).items()}
    return {k: scaled(v, factors[k]) if factors.get(k, 1) != 1 else v
            for k, v in filter_model.items()}


def get_rows(request, study_id, kinds, shown=None):
    try:
        return rows_response(study_id, request, kinds or {}, shown)
    except (TypeError, ValueError):  # a hand-made request: no rows rather than an error page
        return {"rowData": [], "rowCount": 0}


def compare_link(selected):
    chosen = [r["id"] for r in selected or [] if isinstance(r, Mapping) and "id" in r]
    ok = 2 <= len(chosen) <= 6
    return (view.compare_href(chosen) if ok else "/compare"), not ok


def pinned_twins(_version: Any, study_id: Any, kinds: Any, shown: Any = None) -> Any:
    """The rows of the ideal twins pinned under the cases (marked "ideal twin" in the case
    column), refreshed as the study moves; the browser pins them through the grid's API.

    Not a ``Patch`` of the grid's options: one that arrives after the user left the page
    (Clone pressed while a refresh was in flight) has no options to patch, and the renderer
    throws "Cannot patch undefined" (seen in a CI run of the clone test)."""
    shown = _metrics(shown)
    try:
        rows = data.twin_rows(int(study_id), dict(kinds) if isinstance(kinds, Mapping) else {},
                              metrics=list(shown))
    except (TypeError, ValueError):
        return no_update
    return [shown_row(r, shown) for r in rows]


def more_columns(more: Any, kinds: Any, shown: Any = None) -> list[dict[str, Any]]:
    """The grid's columns once the "more columns" switch moved."""
    return column_defs(kinds if isinstance(kinds, Mapping) else {}, _metrics(shown),
                       more=bool(more))


def stores(detail: Mapping[str, Any]) -> list[Any]:
    """What the grid's callbacks read: the axes' kinds, and where the refresh reports."""
    return [dcc.Store(id=ids.STUDY_CASE_GRID_KINDS, data=axis_kinds(detail)),
            dcc.Store(id=ids.STUDY_CASE_GRID_METRICS, data=shown_metrics(detail)),
            dcc.Store(id=ids.STUDY_CASE_GRID_REFRESHED),
            dcc.Store(id=ids.STUDY_CASE_GRID_PINNED),
            dcc.Store(id=ids.STUDY_CASE_GRID_PINNED_SHOWN)]


def register_callbacks() -> None:
    """Wire the grid's callbacks (called by the study page module, once per app)."""
    callback(
        Output(ids.STUDY_CASE_GRID, "getRowsResponse"),
        Input(ids.STUDY_CASE_GRID, "getRowsRequest"),
        State(ids.STUDY_ID_STORE, "data"),
        State(ids.STUDY_CASE_GRID_KINDS, "data"),
        State(ids.STUDY_CASE_GRID_METRICS, "data"),
        prevent_initial_call=True,
    )(get_rows)
    callback(
        Output(ids.STUDY_CASE_GRID_PINNED, "data"),
        Input(ids.STUDY_VERSION, "data"),
        State(ids.STUDY_ID_STORE, "data"),
        State(ids.STUDY_CASE_GRID_KINDS, "data"),
        State(ids.STUDY_CASE_GRID_METRICS, "data"),
    )(pinned_twins)
    # a grid that is gone (the page left) has no API: nothing is written
    clientside_callback(
        """async function(rows, gridId) {
            try {
                const api = await dash_ag_grid.getApiAsync(gridId);
                api.setGridOption('pinnedBottomRowData', rows || []);
            } catch (e) { return window.dash_clientside.no_update; }
            return (rows || []).length;
        }""",
        Output(ids.STUDY_CASE_GRID_PINNED_SHOWN, "data"),
        Input(ids.STUDY_CASE_GRID_PINNED, "data"),
        State(ids.STUDY_CASE_GRID, "id"),
        prevent_initial_call=True,
    )
    callback(
        Output(ids.STUDY_CASE_GRID, "columnDefs"),
        Input(ids.STUDY_CASE_GRID_MORE, "value"),
        State(ids.STUDY_CASE_GRID_KINDS, "data"),
        State(ids.STUDY_CASE_GRID_METRICS, "data"),
        prevent_initial_call=True,
    )(more_columns)
    callback(
        Output(ids.STUDY_COMPARE_LINK, "href"),
        Output(ids.STUDY_COMPARE_LINK, "disabled"),
        Input(ids.STUDY_CASE_GRID, "selectedRows"),
    )(compare_link)
    # the study moved (a case finished): the grid asks again for the blocks it shows
    clientside_callback(
        """async function(version, gridId) {
            try {
                const api = await dash_ag_grid.getApiAsync(gridId);
                api.refreshInfiniteCache();
            } catch (e) { return window.dash_clientside.no_update; }
            return version;
        }""",
        Output(ids.STUDY_CASE_GRID_REFRESHED, "data"),
        Input(ids.STUDY_VERSION, "data"),
        State(ids.STUDY_CASE_GRID, "id"),
        prevent_initial_call=True,
    )
