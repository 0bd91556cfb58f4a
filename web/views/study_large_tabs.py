"""A large study's Spectra, Motion and Convergence tabs from the few cases each draws (issue
41, design.md 4.16): past :data:`.figures.trend_bands.POINT_LIMIT` cases none of them reads a
table of every case. Spectra: the cases whose spectra are drawn (the automatic choice, picked
by the database along the first axis at the middle level of the others, or the cases chosen);
Motion: the sections of cases spread along the diagram's axis, the class map counted per
level pair by the database (``GROUP BY``); Convergence: the certificates and their sources.
The figures are the small study's (:mod:`.study_results`, :mod:`.figures.bifurcation`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import data
from ..figures import trends as trend_figs
from . import study_results
from . import study_view as view

#: a large study's bifurcation diagram: the sections of at most this many cases (each is a
#: stored series read whole), spread along its axis
MAX_SECTIONS = 400


def _ask(summary: Mapping[str, Any], question: str, **kwargs: Any) -> Any:
    return data.case_samples(summary["id"], question, **kwargs)


def _middle(levels: Sequence[Any]) -> Any:
    """The level :func:`.study_results.spectra_cases` holds an axis at: the middle number,
    else the first level by its text."""
    numeric = sorted(v for v in levels if isinstance(v, (int, float)))
    return numeric[len(numeric) // 2] if numeric else sorted(levels, key=str)[0]


def sample(summary: Mapping[str, Any], limit: int, along: str | None = None,
           metrics: Sequence[str] = ()) -> list[dict[str, Any]] | None:
    """:func:`.study_results.spectra_cases` by the database: at most ``limit`` done cases
    along ``along`` (the first axis by default), a grid's other axes at their middle level
    (all levels when that leaves fewer than two cases, and for a sampled design), spread
    evenly. None for a one-at-a-time study (its runs are read from the detail)."""
    axes = view.axes_of(summary)
    design = view.design_of(summary)
    if design == "one-at-a-time":
        return None
    along = along if along in axes else (axes[0] if axes else None)
    others = [a for a in axes if a != along]
    if others and design not in trend_figs.SAMPLING_DESIGNS:
        middle = {}
        for axis in others:
            levels = _ask(summary, "axis_levels", axis=axis) or []
            if levels:
                middle[axis] = _middle(levels)
        picked, _ = _ask(summary, "spread_cases", along=along, equal=middle, limit=limit,
                         metrics=list(metrics))
        if len(picked) >= 2:
            return picked
    picked, _ = _ask(summary, "spread_cases", along=along, limit=limit, metrics=list(metrics))
    return picked


def _done(summary: Mapping[str, Any]) -> int:
    return int((summary.get("counts") or {}).get("done", 0))


def spectra(summary: Mapping[str, Any], signal: str, kind: str, log_x: bool, log_y: bool,
            chosen: Sequence[int]) -> Any:
    """:func:`.study_results.spectra` of a large study (None: read the detail instead)."""
    if chosen:
        drawn = _ask(summary, "cases_by_id", ids=list(chosen)[:study_results.MAX_SPECTRA])
    else:
        drawn = sample(summary, study_results.MAX_SPECTRA)
    if drawn is None:
        return None
    detail = {**summary, "cases": drawn, "done_total": _done(summary)}
    return study_results.spectra(detail, signal, kind, log_x, log_y, chosen, drawn=drawn)


def spectra_choices(summary: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """:func:`.study_results.spectra_choices` of a large study: the cases the overlay would
    pick at :data:`.study_results.MAX_CHOICES` (None: read the detail instead)."""
    drawn = sample(summary, study_results.MAX_CHOICES)
    if drawn is None:
        return None
    return study_results.spectra_choices({**summary, "cases": drawn})


def convergence(summary: Mapping[str, Any]) -> Any:
    """:func:`.study_results.certificates` of a large study from its certificates and their
    source cases only (None for a convergence-design study: read the detail instead)."""
    if view.design_of(summary) == "convergence":
        return None
    certs = data.case_page(summary["id"], kind="certificate")["items"]
    sources = sorted({c["source_id"] for c in certs if c.get("source_id") is not None})
    cases = _ask(summary, "whole_cases", ids=sources) if sources else []
    return study_results.certificates({**summary, "cases": cases, "certificates": certs})


def bifurcation_detail(summary: Mapping[str, Any], axis: str | None
                       ) -> tuple[dict[str, Any], str] | None:
    """A large study as :func:`.components.study_motion.bifurcation_view` reads it: the
    cases whose sections are drawn (at most :data:`MAX_SECTIONS`, along ``axis``), and a
    note saying so; None for a one-at-a-time study."""
    drawn = sample(summary, MAX_SECTIONS, along=axis)
    if drawn is None:
        return None
    axes = view.axes_of(summary)
    along = axis if axis in axes else (axes[0] if axes else None)
    others = [a for a in axes if a != along]
    held = f", {', '.join(others)} at the middle level" if others else ""
    note = (f"A large study: the sections of {len(drawn)} of its {_done(summary)} done cases, "
            f"spread along {along}{held} (at most {MAX_SECTIONS}).")
    return {**summary, "cases": drawn}, note


def motion_cases(summary: Mapping[str, Any], x_axis: str, y_axis: str, show: str
                 ) -> list[dict[str, Any]]:
    """The class map's points of a large study: one per (x, y) level pair and motion class
    (or per pair, its mean chaos indicator), counted by the database; each carries the
    pair's lowest case id (a click opens it)."""
    cells = _ask(summary, "motion_cells", x_axis=x_axis, y_axis=y_axis, show=show) or []
    name = "motion" if show == "motion" else "chaos_indicator"
    return [{"id": c["id"], "status": "done", "params": {x_axis: c["x"], y_axis: c["y"]},
             "metrics": {} if c[name] is None else {name: c[name]}} for c in cells]


def start_note(summary: Mapping[str, Any]) -> str | None:
    """The flag above the tabs of a large study (:func:`.figures.bifurcation.
    start_dependence_note`), from the flagged cases the database counts."""
    from ..figures import bifurcation

    answer = _ask(summary, "start_dependent_cases",
                  tolerance=bifurcation.START_SPREAD_TOLERANCE)
    if not answer:
        return None
    cases, count, largest = answer
    return bifurcation.start_dependence_text([c["id"] for c in cases], count, largest)
