"""The archive ``/``: every study, paged, sorted and filtered on the server (the table asks
for one page at a time, so 10,000 studies cost what 25 do)."""

from __future__ import annotations

import re
from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, dash_table, dcc, html, no_update
from gapsweep.db.models import MAX_ID
from gapsweep.web import actions, context, data, ids
from gapsweep.web.auth import principal
from gapsweep.web.views.parameters import model_names

dash.register_page(__name__, path="/", name="Archive", title="gapsweep — archive", order=0)

PAGE_SIZE = 25
MAX_PAGE = 10**9  # far beyond any archive; keeps the offset inside the database's integers
# the name is shown as a markdown link: its punctuation must read as text, not as markup
_MARKDOWN_PUNCTUATION = re.compile(r"[\\`*_{}\[\]()#+\-.!|<>~]")
STATUSES = ("queued", "running", "done", "cancelled")
# table column -> list_studies sort key
# (the other columns are not columns of the studies table: sorting them falls back to created)
SORTABLE = {"id": "id", "link": "name", "model": "model", "status": "status",
            "created": "created"}
COLUMNS = [
    {"id": "id", "name": "Id"},
    {"id": "link", "name": "Study", "presentation": "markdown"},
    {"id": "model", "name": "Model"},
    {"id": "status", "name": "Status"},
    {"id": "progress", "name": "Progress"},
    {"id": "cases", "name": "Cases"},
    {"id": "tags", "name": "Tags"},
    {"id": "created", "name": "Created (UTC)"},
]


def layout(**_query: Any) -> html.Div:
    filters = dbc.Row(
        [
            dbc.Col(dbc.Input(id=ids.ARCHIVE_SEARCH, type="search", debounce=True,
                              placeholder="Search name or description, then Enter"), md=4),
            dbc.Col(dbc.Input(id=ids.ARCHIVE_TAG, placeholder="Tag, then Enter",
                              debounce=True), md=2),
            dbc.Col(dcc.Dropdown(id=ids.ARCHIVE_STATUS, placeholder="Any status",
                                 options=list(STATUSES)), md=2),
            dbc.Col(dcc.Dropdown(id=ids.ARCHIVE_MODEL, placeholder="Any model",
                                 options=model_names()), md=2),
            dbc.Col(html.Div(id=ids.ARCHIVE_TOTAL, className="pt-2 text-muted"), md=2),
        ],
        className="g-2 mb-2",
    )
    table = dash_table.DataTable(
        id=ids.ARCHIVE_TABLE,
        columns=COLUMNS,
        data=[],
        page_action="custom",
        page_current=0,
        page_size=PAGE_SIZE,
        page_count=1,
        sort_action="custom",
        sort_mode="single",
        sort_by=[{"column_id": "created", "direction": "desc"}],
        row_selectable="multi",
        selected_rows=[],
        markdown_options={"link_target": "_self"},
        style_table={"overflowX": "auto"},
        style_cell={"textAlign": "left", "padding": "4px 8px", "fontSize": "0.9rem"},
        style_header={"fontWeight": "bold"},
        style_cell_conditional=[{"if": {"column_id": "link"}, "minWidth": "260px"}],
    )
    actions_row = html.Div(
        [
            dbc.Button("New study", href="/studies/new", color="primary", className="me-2"),
            dbc.Button("Delete selected", id=ids.ARCHIVE_DELETE, color="danger",
                       outline=True, className="me-2", disabled=True),
            dbc.Button("Compare selected", id=ids.ARCHIVE_COMPARE, href="/compare",
                       color="secondary", outline=True, disabled=True),
            dbc.FormText(" select studies: delete any, compare 2–6", className="ms-2"),
            dcc.ConfirmDialog(id=ids.ARCHIVE_DELETE_CONFIRM,
                              message="Delete the selected studies? (gapsweep purge removes "
                                      "them for good; until then they are only hidden.)"),
            html.Span(id=ids.ARCHIVE_MESSAGE, className="ms-3 text-muted"),
            html.Span(id=ids.ARCHIVE_WORKERS, className="ms-3 text-success"),
        ],
        className="mb-2",
    )
    return html.Div(
        [
            html.H3("Study archive"),
            first_step(),
            filters,
            actions_row,
            table,
            dcc.Store(id=ids.ARCHIVE_REFRESH, data=0),
            dcc.Interval(id=ids.ARCHIVE_POLL, interval=5000),  # running studies' progress
        ]
    )


def progress_text(item: dict[str, Any]) -> str:
    """``"12 / 15 done, 1 failed"`` from a list_studies item."""
    text = f"{item.get('done', 0)} / {item.get('cases', 0)} done"
    if item.get("failed"):
        text += f", {item['failed']} failed"
    return text


def table_rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """list_studies items as the table's rows (the name is a link to the study page)."""
    rows = []
    for item in items:
        name = _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", str(item.get("name", "")))
        rows.append({
            "id": item["id"],
            "link": f"[{name}](/studies/{item['id']})",
            "model": item.get("model", ""),
            "status": item.get("status", ""),
            "progress": progress_text(item),
            "cases": item.get("cases", 0),
            "tags": ", ".join(item.get("tags") or []),
            "created": str(item.get("created", ""))[:19].replace("T", " "),
        })
    return rows


def _text(value: Any) -> str | None:
    """A filter's value as the browser sent it: text, or no filter."""
    return (value.strip() or None) if isinstance(value, str) else None


def _page_number(page: Any) -> int:
    try:
        number = int(page or 0)
    except (TypeError, ValueError):
        return 0
    return min(max(0, number), MAX_PAGE)


def query_page(
    page: int, sort_by: list[dict] | None, search: str | None, tag: str | None,
    status: str | None, model: str | None,
) -> tuple[int, list[dict[str, Any]]]:
    """One page of the archive from the database: (total, items). The arguments are what the
    browser sent (anything, from a hand-made request): whatever is not what the table sends
    is no filter, page 0 or the default order."""
    sort = sort_by[0] if isinstance(sort_by, list) and sort_by else None
    if not isinstance(sort, dict):
        sort = {"column_id": "created", "direction": "desc"}
    column = sort.get("column_id")
    return data.list_studies(
        search=search if isinstance(search, str) and search else None,
        tag=_text(tag),
        status=_text(status),
        model=_text(model),
        limit=PAGE_SIZE,
        offset=_page_number(page) * PAGE_SIZE,
        sort=SORTABLE.get(column, "created") if isinstance(column, str) else "created",
        descending=sort.get("direction") != "asc",
    )


# the study file of the README's first command, offered as the first step on an empty archive
FIRST_EXAMPLE = "clearance_x_stiffness"


def first_step() -> dbc.Alert:
    """Shown while the archive holds no study at all (see :func:`update_table`): what to do
    first, as a button that runs the README's example study."""
    return dbc.Alert(
        [html.Span("The archive is empty. A first step: run the example study - the "
                   "Flores slider-crank, clearance 0.02-0.1 mm x contact stiffness ±30 % "
                   "(15 cases and their ideal twin), then open its trends. "),
         dbc.Button("Run the example study", id=ids.ARCHIVE_RUN_EXAMPLE, color="primary",
                    size="sm", className="ms-2"),
         html.Span(" or set up your own under New study.", className="ms-1"),
         html.Div(id=ids.ARCHIVE_EXAMPLE_MESSAGE, className="mt-2"),
         dcc.Location(id=ids.ARCHIVE_EXAMPLE_REDIRECT, refresh="callback-nav")],
        id=ids.ARCHIVE_EMPTY, color="info", is_open=False)


@callback(
    Output(ids.ARCHIVE_EXAMPLE_REDIRECT, "pathname"),
    Output(ids.ARCHIVE_EXAMPLE_MESSAGE, "children"),
    Input(ids.ARCHIVE_RUN_EXAMPLE, "n_clicks"),
    prevent_initial_call=True,
)
def run_example(_n):
    """Submit the shipped example study as the signed-in user and open its page."""
    from gapsweep.study.examples import example_spec

    # the file's own mapping: the submit parses and plans it once (as the form's does)
    data = example_spec(FIRST_EXAMPLE)
    try:
        study_id = actions.submit(data, who=principal())
    except actions.ForbiddenError as exc:
        return no_update, dbc.Alert(f"Not allowed: {exc}.", color="danger", className="py-1")
    return f"/studies/{study_id}", None


@callback(
    Output(ids.ARCHIVE_TABLE, "data"),
    Output(ids.ARCHIVE_TABLE, "page_count"),
    Output(ids.ARCHIVE_TOTAL, "children"),
    Output(ids.ARCHIVE_TABLE, "selected_rows"),
    Output(ids.ARCHIVE_EMPTY, "is_open"),
    Input(ids.ARCHIVE_TABLE, "page_current"),
    Input(ids.ARCHIVE_TABLE, "sort_by"),
    Input(ids.ARCHIVE_SEARCH, "value"),
    Input(ids.ARCHIVE_TAG, "value"),
    Input(ids.ARCHIVE_STATUS, "value"),
    Input(ids.ARCHIVE_MODEL, "value"),
    Input(ids.ARCHIVE_REFRESH, "data"),
    Input(ids.ARCHIVE_POLL, "n_intervals"),
    State(ids.ARCHIVE_TABLE, "selected_rows"),
)
def update_table(page, sort_by, search, tag, status, model, _refresh, _poll, selected):
    total, items = query_page(page, sort_by, search, tag, status, model)
    page_count = max(1, -(-total // PAGE_SIZE))
    keep = selected if context.triggered_id() == ids.ARCHIVE_POLL else []
    filtered = any(_text(v) for v in (search, tag, status, model))
    counted = f"{total} stud{'y' if total == 1 else 'ies'}"
    return (table_rows(items), page_count, counted, keep or [],
            total == 0 and not filtered)


MAX_COMPARED = 6  # studies on one compare page


def selection_state(selected: Any, data: Any) -> tuple[bool, str, bool]:
    """(delete disabled, compare href, compare disabled) for the table's selection: Delete
    needs a study, Compare 2 to :data:`MAX_COMPARED` (``/compare?studies=4,5``)."""
    rows = data if isinstance(data, list) else []
    picked = selected if isinstance(selected, list) else []
    study_ids = [i for i in (row_id(rows[i]) for i in picked if _index(i, rows)) if i]
    ok = 2 <= len(study_ids) <= MAX_COMPARED
    href = "/compare?studies=" + ",".join(map(str, study_ids)) if ok else "/compare"
    return not study_ids, href, not ok


def workers_status() -> str:
    """The archive's note on the local workers: "Workers ready" once one has loaded the
    kernels (the banner, shown only to whom saw it compiling, may never have said so), else
    nothing (the banner says they compile; workers elsewhere leave no mark to read)."""
    from gapsweep.web.api.kernels import local_workers
    from gapsweep.web.app import READY_TEXT

    return READY_TEXT if local_workers(context.current().settings) else ""


@callback(Output(ids.ARCHIVE_WORKERS, "children"), Input(ids.ARCHIVE_POLL, "n_intervals"))
def show_workers(_n: int | None) -> str:
    return workers_status()


@callback(
    Output(ids.ARCHIVE_DELETE, "disabled"),
    Output(ids.ARCHIVE_COMPARE, "href"),
    Output(ids.ARCHIVE_COMPARE, "disabled"),
    Input(ids.ARCHIVE_TABLE, "selected_rows"),
    State(ids.ARCHIVE_TABLE, "data"),
)
def selection(selected, data):
    return selection_state(selected, data)


@callback(
    Output(ids.ARCHIVE_DELETE_CONFIRM, "displayed"),
    Input(ids.ARCHIVE_DELETE, "n_clicks"),
    State(ids.ARCHIVE_TABLE, "selected_rows"),
    prevent_initial_call=True,
)
def confirm_delete(_n, selected):
    return bool(selected)


@callback(
    Output(ids.ARCHIVE_MESSAGE, "children"),
    Output(ids.ARCHIVE_REFRESH, "data"),
    Input(ids.ARCHIVE_DELETE_CONFIRM, "submit_n_clicks"),
    State(ids.ARCHIVE_TABLE, "selected_rows"),
    State(ids.ARCHIVE_TABLE, "data"),
    State(ids.ARCHIVE_REFRESH, "data"),
    prevent_initial_call=True,
)
def delete_selected(_n, selected, data, refresh):
    # the selection and the rows come back from the browser: only what the table would send
    rows = data if isinstance(data, list) else []
    picked = selected if isinstance(selected, list) else []
    study_ids = [row_id(rows[i]) for i in picked if _index(i, rows)]
    study_ids = [i for i in study_ids if i is not None]
    if not study_ids:
        return no_update, no_update
    n, refused = actions.delete(study_ids, who=principal())
    text = (f"Deleted {n} stud{'y' if n == 1 else 'ies'}."
            + "".join(f" Not deleted: {r}." for r in refused))
    return text, (refresh if type(refresh) is int else 0) + 1


def _index(i: Any, rows: list) -> bool:
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(rows)


def row_id(row: Any) -> int | None:
    """The study id of a table row the browser sent back (None for anything else)."""
    try:
        study_id = int(str(row.get("id"))) if isinstance(row, dict) else None
    except ValueError:
        return None
    return study_id if study_id is not None and 0 < study_id <= MAX_ID else None
