"""The convergence-certificate figure: the headline metric of each source case against its
refinements, from a report of ``gapsweep.study.certificates``."""

from __future__ import annotations

import pytest
from gapsweep.study.certificates import certificate_report
from gapsweep.web.figures.convergence import certificate_figure, certificate_steps


def report(peaks_by_slot, status="done"):
    source = {"id": 7, "status": "done", "params": {"clearance_mm": 0.02},
              "metrics": {"peak_slider_accel": 100.0, "max_penetration": 1e-5}}
    params = {0: {"rtol": 1e-7}, 1: {"n_output": 4801}, 2: {"stiffness_scale": 2.0},
              3: {"stiffness_scale": 4.0}}
    certs = [{"id": 20 + k, "source_id": 7, "slot": k, "params": {**source["params"], **params[k]},
              "status": status if peak is None else "done",
              "metrics": None if peak is None else {"peak_slider_accel": peak,
                                                    "max_penetration": 1e-5}}
             for k, peak in peaks_by_slot.items()]
    return certificate_report("slider-crank", [source], certs)


def test_one_line_per_source_over_the_refinements_with_ids_and_changes():
    fig = certificate_figure(report({0: 100.2, 1: 100.0, 2: 130.0, 3: 170.0}),
                             {7: "case 7 (c = 0.02 mm)"})
    (trace,) = fig.data
    assert list(trace.x) == ["as run", "rtol ÷ 10", "output step ÷ 2", "K × 2", "K × 4"]
    assert list(trace.y) == [100.0, 100.2, 100.0, 130.0, 170.0]
    assert [row[0] for row in trace.customdata] == [7, 20, 21, 22, 23]
    assert [row[1] for row in trace.customdata] == pytest.approx([0.0, 0.2, 0.0, 30.0, 70.0])
    assert trace.name == "largest peak, smallest clearance: case 7 (c = 0.02 mm)"
    assert fig.layout.yaxis.title.text == "Peak slider acceleration [m/s²]"
    assert "numerics converged within 1 %" in fig.layout.title.text


def test_a_run_not_done_is_a_gap_and_no_verdict_is_claimed():
    rep = report({0: 100.0, 1: None, 2: None, 3: None}, status="queued")
    assert certificate_steps(rep) == ["as run", "rtol ÷ 10", "output step ÷ 2", "K × 2",
                                      "K × 4"]
    (trace,) = certificate_figure(rep).data
    assert list(trace.y) == [100.0, 100.0, None, None, None]
    assert trace.connectgaps is False
    assert "numerics" not in certificate_figure(rep).layout.title.text
