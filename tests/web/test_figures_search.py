"""The adaptive study's figures (web/figures/search.py) without a browser: what each trace
holds, against the data given."""

from __future__ import annotations

import numpy as np
from gapsweep.web.figures import search as fig


def test_history_traces_and_overlay_hold_the_data():
    history = [{"stage": 0, "generation": 0, "best_cost": 5.0, "best_params": {"k": 1.0}},
               {"stage": 0, "generation": 1, "best_cost": 2.0, "best_params": {"k": 1.5}},
               {"stage": 1, "generation": 0, "best_cost": 0.5, "best_params": {"k": 1.4}}]
    f = fig.cost_history(history, "Cost [–]")
    assert [list(t.y) for t in f.data] == [[5.0, 2.0], [0.5]]
    assert [list(t.x) for t in f.data] == [[0, 1], [2]]
    traces = fig.parameter_traces(history, ["k"])
    assert list(traces.data[0].y) == [1.0, 1.5, 1.4]
    t = np.linspace(0, 0.01, 11)
    t_sim = np.linspace(0, 0.01, 21)
    simulated = 1e4 * np.cos(900.0 * t_sim)
    over = fig.measurement_overlay(t, np.sin(t), t_sim, simulated, "slider_acceleration",
                                   {"peak_error": 0.1, "rms_error": 2.0, "correlation": 0.5})
    measured = next(tr for tr in over.data if tr.name == fig.MEASURED_NAME)
    assert list(measured.x) == (t * 1e3).tolist() and list(measured.y) == np.sin(t).tolist()
    best = next(tr for tr in over.data if tr.name == fig.SIMULATED_NAME)
    assert list(best.x) == (t_sim * 1e3).tolist() and list(best.y) == simulated.tolist()
    assert "peak error +10.0 %, RMS error 2, correlation 0.500" in over.layout.title.text
    assert "m/s²" in over.layout.yaxis.title.text


def test_profile_envelope_is_the_least_cost_per_bin():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 1, 500), rng.uniform(0, 1, 500)
    ex, ey = fig.profile_envelope(x.tolist(), y.tolist(), bins=10)
    edges = np.linspace(x.min(), x.max(), 11)
    for b in range(10):
        sel = (x >= edges[b]) & ((x < edges[b + 1]) if b < 9 else (x <= edges[b + 1]))
        assert ey[b] == y[sel].min() and ex[b] == x[sel][np.argmin(y[sel])]
