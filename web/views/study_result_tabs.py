"""The study page's result tabs drawn on demand: sensitivity, spectra, convergence, the
search of an optimize or calibrate study, parallel coordinates (each computed only while
its tab is open)."""

from __future__ import annotations

from typing import Any

from dash import Input, Output, State, dcc

from .. import data, ids
from ..page_callbacks import PageCallbacks
from . import study_large_tabs, study_results
from . import study_view as view
from .study_page_data import (
    TAB_CONVERGENCE,
    TAB_PARALLEL,
    TAB_SEARCH,
    TAB_SENSITIVITY,
    TAB_SPECTRA,
    _large,
    _when_open,
    parse_id,
)


def metric_picker(cid: str, detail: dict[str, Any]) -> dcc.Dropdown:
    """The study's headline metrics, its model's default first chosen (a mechanism's own)."""
    options, value = view.metric_choices(detail)
    return dcc.Dropdown(id=cid, value=value, clearable=False, options=options,
                        className="my-2")


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


def _paged_or_whole(tab, wanted, study_id, paged, whole, metrics: tuple[str, ...] = ()):
    """Tab ``wanted`` while open: past the paging limit ``paged(summary)`` reads only what it
    draws (None: it cannot here, and the whole detail is read after all, issue 41), else
    ``whole(detail)`` as :func:`_when_open`."""
    if tab == wanted and _large(study_id):
        summary = data.study_summary(parse_id(study_id))
        content = None if summary is None else paged(summary)
        if content is not None:
            return content
    return _when_open(tab, wanted, study_id, whole, metrics)


@callbacks(
    Output(ids.SENSITIVITY_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.SENSITIVITY_METRIC, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def sensitivity(tab, _version, metric, study_id):
    return _paged_or_whole(tab, TAB_SENSITIVITY, study_id,  # a grid's ANOVA from columns
                           lambda s: study_results.large_sensitivity(s, metric),
                           lambda d: study_results.sensitivity(d, metric), (metric,))


@callbacks(
    Output(ids.SPECTRA_GRAPH, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.SPECTRA_SIGNAL, "value"),
    Input(ids.SPECTRA_VIEW, "value"),
    Input(ids.SPECTRA_LOG_X, "value"),
    Input(ids.SPECTRA_LOG_Y, "value"),
    Input(ids.SPECTRA_CASES, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def spectra(tab, _version, signal, kind, log_x, log_y, chosen, study_id):
    picked = [i for i in chosen or [] if isinstance(i, int) and not isinstance(i, bool)]
    logs = (isinstance(log_x, list) and "log" in log_x, isinstance(log_y, list) and "log" in log_y)
    return _paged_or_whole(tab, TAB_SPECTRA, study_id,  # the drawn cases only (issue 41)
                           lambda s: study_large_tabs.spectra(s, signal, kind, *logs, picked),
                           lambda d: study_results.spectra(d, signal, kind, *logs, picked))


@callbacks(
    Output(ids.SPECTRA_CASES, "options"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def spectra_choices(tab, _version, study_id):
    return _paged_or_whole(tab, TAB_SPECTRA, study_id, study_large_tabs.spectra_choices,
                           study_results.spectra_choices)


@callbacks(
    Output(ids.CONVERGENCE_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def convergence(tab, _version, study_id):
    return _paged_or_whole(tab, TAB_CONVERGENCE, study_id,  # certificates and their sources
                           study_large_tabs.convergence, study_results.convergence)


@callbacks(
    Output(ids.SEARCH_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def search(tab, _version, study_id):
    from gapsweep.web.views.search_view import search_content

    return _when_open(tab, TAB_SEARCH, study_id, search_content)


@callbacks(
    Output(ids.PARALLEL_GRAPH, "figure"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.PARALLEL_METRIC, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def parallel(tab, _version, metric, study_id):
    return _when_open(tab, TAB_PARALLEL, study_id,
                      lambda d: study_results.parallel(d, metric), (metric,))
