"""Every figure's downloads: its data as CSV and the figure as PNG or SVG, from a small
toolbar under it (and PNG from Plotly's own modebar camera,
:data:`~gapsweep.web.figures.style.GRAPH_CONFIG`).

The toolbar names a target element: a ``dcc.Graph``'s id, or a container whose graphs it
takes (a tab whose figures a callback fills). The work happens in the browser, on the
figure as drawn (:data:`DOWNLOAD_JS`): ``Plotly.downloadImage`` for the images, and for the
CSV one row per plotted point - ``figure`` (when the target holds several), ``trace`` (its
legend name), x, y and ``z`` (when a trace has one; a heatmap's cell per row), the x and y
columns named by the axes' titles with their units (``Clearance [mm]``) where every trace
shares them, else ``x`` and ``y`` - or, for
parallel coordinates, one row per line with a column per dimension. So the CSV equals the
traces on the screen, whatever callback drew them.
"""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import ALL, MATCH, Input, Output, State, dcc, html

from .. import ids
from ..figures.style import GRAPH_CONFIG  # noqa: F401 - where the toolbar's users looked

FORMATS = ("png", "svg", "csv")

DOWNLOAD_JS = """
async function(clicks, storeId, filename) {
    const ctx = window.dash_clientside.callback_context;
    if (!clicks.some(n => n) || !ctx.triggered.length) {
        return window.dash_clientside.no_update;
    }
    const prop = ctx.triggered[0].prop_id;
    const format = JSON.parse(prop.slice(0, prop.lastIndexOf("."))).format;
    const target = storeId.graph;
    const root = document.getElementById(target);
    if (!root) { return "no element " + target; }
    const plots = root.classList.contains("js-plotly-plot") ? [root]
        : Array.from(root.querySelectorAll(".js-plotly-plot"));
    if (!plots.length) { return "no figure in " + target; }
    const name = (i) => filename + (plots.length > 1 ? "-" + (i + 1) : "");
    if (format !== "csv") {
        for (let i = 0; i < plots.length; i++) {
            await window.Plotly.downloadImage(plots[i], {format: format, filename: name(i),
                                                         scale: format === "png" ? 2 : 1});
        }
        return format + " " + plots.length;
    }
    const list = (v) => (v === undefined || v === null) ? [] :
        (Array.isArray(v) || ArrayBuffer.isView(v)) ? Array.from(v) : [v];
    const cell = (v) => {
        if (v === undefined || v === null || (typeof v === "number" && !isFinite(v))) {
            return "";
        }
        const s = String(v);
        return /[",\\n\\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    };
    const many = plots.length > 1;
    // the x and y columns are named by the axes' titles, with their units ("Clearance [mm]"),
    // where every trace drawn shares them; else plain "x" and "y"
    const axisTitle = (gd, t, letter) => {
        const ref = String(t[letter + "axis"] || letter).replace(letter, letter + "axis");
        const ax = (gd._fullLayout || gd.layout || {})[ref];
        const title = ax && ax.title && (typeof ax.title === "string" ? ax.title : ax.title.text);
        return title ? String(title).replace(/<[^>]*>/g, "") : letter;
    };
    const names = {x: null, y: null};
    const name_axis = (gd, t, letter) => {
        const title = axisTitle(gd, t, letter);
        names[letter] = names[letter] === null || names[letter] === title ? title : letter;
    };
    let rows = [];
    let header = null;
    plots.forEach((gd, f) => {
        const traces = gd._fullData || gd.data;
        traces.forEach((t, i) => {
            if (t.visible === false) { return; }
            const label = t.name || ("trace " + i);
            const lead = many ? [f + 1, label] : [label];
            if (t.dimensions) {  // parallel coordinates: a column per dimension
                const dims = t.dimensions.map(d => list(d.values));
                header = header || [...(many ? ["figure"] : []), "trace",
                                    ...t.dimensions.map(d => d.label)];
                const n = Math.max(0, ...dims.map(d => d.length));
                for (let k = 0; k < n; k++) { rows.push([...lead, ...dims.map(d => d[k])]); }
                return;
            }
            name_axis(gd, t, "x");
            name_axis(gd, t, "y");
            const x = list(t.x), y = list(t.y), z = list(t.z);
            if (z.length && Array.isArray(z[0]) || (z.length && ArrayBuffer.isView(z[0]))) {
                z.forEach((zr, r) => list(zr).forEach((v, c) => rows.push(
                    [...lead, x.length ? x[c] : c, y.length ? y[r] : r, v])));
                return;
            }
            const n = Math.max(x.length, y.length, z.length);
            for (let k = 0; k < n; k++) {
                const row = [...lead, x[k], y[k]];
                if (z.length) { row.push(z[k]); }
                rows.push(row);
            }
        });
    });
    if (!header) {
        const withZ = rows.some(r => r.length > (many ? 4 : 3));
        header = [...(many ? ["figure"] : []), "trace", names.x || "x", names.y || "y",
                  ...(withZ ? ["z"] : [])];
    }
    const text = [header, ...rows].map(r => r.map(cell).join(",")).join("\\n") + "\\n";
    const blob = new Blob([text], {type: "text/csv"});
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = filename + ".csv";
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    return "csv " + rows.length;
}
"""


def tools(target: str, filename: str | None = None) -> html.Div:
    """Download buttons (PNG, SVG, CSV) for the figure(s) of element ``target``."""
    name = filename or target
    return html.Div([
        dbc.ButtonGroup([
            dbc.Button(fmt.upper(), id={"type": ids.FIGURE_DOWNLOAD, "graph": target,
                                        "format": fmt},
                       size="sm", color="secondary", outline=True,
                       title=f"Download {'the data as CSV' if fmt == 'csv' else fmt.upper()}")
            for fmt in FORMATS], size="sm"),
        # what the last download did (the callback's output), and the file name to use
        dcc.Store(id={"type": ids.FIGURE_DOWNLOAD_DONE, "graph": target}),
        dcc.Store(id={"type": ids.FIGURE_DOWNLOAD_NAME, "graph": target}, data=name),
    ], className="d-flex justify-content-end mb-2 figure-downloads")


def install(app: Any) -> None:
    """One clientside callback serves every toolbar of every page."""
    app.clientside_callback(
        DOWNLOAD_JS,
        Output({"type": ids.FIGURE_DOWNLOAD_DONE, "graph": MATCH}, "data"),
        Input({"type": ids.FIGURE_DOWNLOAD, "graph": MATCH, "format": ALL}, "n_clicks"),
        State({"type": ids.FIGURE_DOWNLOAD_DONE, "graph": MATCH}, "id"),
        State({"type": ids.FIGURE_DOWNLOAD_NAME, "graph": MATCH}, "data"),
        prevent_initial_call=True,
    )
