"""Analyses against functions whose sensitivities are known."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from gapsweep.study.analysis import (
    analyse,
    convergence_summary,
    morris_indices,
    sobol_indices,
)
from gapsweep.study.designs import morris_matrix, plan_study, sobol_matrix
from gapsweep.study.spec import parse_spec

# Ishigami (a = 7, b = 0.1) on [-pi, pi]^3: analytic indices (Saltelli et al. 2008)
ISHIGAMI_S1 = (0.3139, 0.4424, 0.0)
ISHIGAMI_ST = (0.5576, 0.4424, 0.2437)

SAMPLED_AXES = {
    "friction": {"start": 0.0, "stop": 0.1, "count": 2},
    "restitution": {"start": 0.5, "stop": 0.9, "count": 2},
    "speed_rpm": {"nominal": 5000.0, "relative_percent": 20, "levels": 3},
}


def ishigami(x: np.ndarray) -> np.ndarray:
    return np.sin(x[:, 0]) + 7.0 * np.sin(x[:, 1]) ** 2 + 0.1 * x[:, 2] ** 4 * np.sin(x[:, 0])


def json_ready(result: dict) -> dict:
    return json.loads(json.dumps(result, allow_nan=False))


def sampled(design: str, n: int) -> tuple:
    spec = parse_spec({"name": "s", "design": design, "samples": n, "seed": 3,
                       "axes": SAMPLED_AXES})
    return spec, plan_study(spec)


def unit(params: dict) -> tuple[float, float, float]:
    """The three sampled parameters scaled to [0, 1] over their bounds."""
    return (params["friction"] / 0.1, (params["restitution"] - 0.5) / 0.4,
            (params["speed_rpm"] - 4000.0) / 2000.0)


def test_sobol_indices_of_the_ishigami_function() -> None:
    bounds = [[-math.pi, math.pi]] * 3
    x = sobol_matrix(bounds, 1024, seed=1)
    assert x.shape == (1024 * 8, 3)
    res = sobol_indices(["x1", "x2", "x3"], bounds, ishigami(x), seed=1)
    for j, name in enumerate(("x1", "x2", "x3")):
        s = res[name]
        assert abs(s["S1"] - ISHIGAMI_S1[j]) <= s["S1_conf"]
        assert abs(s["ST"] - ISHIGAMI_ST[j]) <= s["ST_conf"]
        assert s["S1_conf"] < 0.1 and s["ST_conf"] < 0.1


def test_sobol_through_a_slider_crank_spec() -> None:
    spec, plan = sampled("sobol", 512)
    # additive in the unit coordinates: variances 4^2 : 2^2 : 0 -> S1 = ST = 0.8, 0.2, 0
    rows = [{"m": 4.0 * u[0] + 2.0 * u[1], "flat": 1.0, "wall_time_s": 0.1}
            for u in map(unit, plan.cases)]
    res = json_ready(analyse(spec, plan, rows))
    assert set(res["indices"]) == {"m", "flat"}  # wall time is not a property of a case
    m = res["indices"]["m"]
    assert list(m) == ["friction", "restitution", "speed_rpm"]
    for axis, s1 in zip(m, (0.8, 0.2, 0.0), strict=True):
        assert m[axis]["S1"] == pytest.approx(s1, abs=max(m[axis]["S1_conf"], 0.02))
        assert m[axis]["ST"] == pytest.approx(s1, abs=max(m[axis]["ST_conf"], 0.02))
    rows[5] = None
    assert analyse(spec, plan, rows) == {"incomplete": 1}


def test_morris_ranking_of_a_known_function() -> None:
    bounds = [[0.0, 1.0]] * 4
    x = morris_matrix(bounds, 20, seed=2, levels=4)
    y = 10.0 * x[:, 0] + 3.0 * x[:, 1] + 0.5 * x[:, 2] ** 2
    res = morris_indices(["a", "b", "c", "d"], bounds, x, y, levels=4, seed=2)
    ranking = sorted(res, key=lambda k: -res[k]["mu_star"])
    assert ranking == ["a", "b", "c", "d"]
    assert res["a"]["mu_star"] == pytest.approx(10.0)  # linear: the slope over the range
    assert res["a"]["sigma"] == pytest.approx(0.0, abs=1e-9)
    assert res["d"]["mu_star"] == 0.0


def test_morris_through_a_slider_crank_spec() -> None:
    spec, plan = sampled("morris", 10)
    assert len(plan.cases) == 10 * 4
    rows = [{"m": 100.0 * p["friction"] - 0.001 * p["speed_rpm"]} for p in plan.cases]
    res = json_ready(analyse(spec, plan, rows))["indices"]["m"]
    # elementary effects in metric units per full range: 100 * 0.1, 0, 0.001 * 2000
    assert res["friction"]["mu_star"] == pytest.approx(10.0)
    assert res["restitution"]["mu_star"] == pytest.approx(0.0, abs=1e-9)
    assert res["speed_rpm"]["mu_star"] == pytest.approx(2.0)
    assert res["speed_rpm"]["mu"] == pytest.approx(-2.0)


def test_latin_hypercube_rank_correlations() -> None:
    spec, plan = sampled("latin-hypercube", 30)
    rows = [{"m": math.exp(u[0]) - 0.0 * u[1], "n": -u[2] ** 3} for u in map(unit, plan.cases)]
    res = json_ready(analyse(spec, plan, rows))["correlations"]
    assert res["m"]["friction"]["rho"] == pytest.approx(1.0)
    assert res["n"]["speed_rpm"]["rho"] == pytest.approx(-1.0)
    assert abs(res["m"]["restitution"]["rho"]) < 0.5
    rows[0] = None
    assert analyse(spec, plan, rows) == {"incomplete": 1}


def oat_spec() -> tuple:
    spec = parse_spec({
        "name": "s", "design": "one-at-a-time",
        "axes": {"stiffness_scale": {"nominal": 1.0, "relative_percent": 1, "levels": 3},
                 "restitution": {"values": [0.4, 0.5, 0.8], "nominal": 0.5},
                 "contact_law": {"values": ["hertz", "lankarani-nikravesh"],
                                 "nominal": "lankarani-nikravesh"}},
    })
    return spec, plan_study(spec)


def power_law(params: dict) -> dict:
    """m = s^2 * r^-0.5 (x 1.1 for the Hertz law)."""
    law = 1.1 if params["contact_law"] == "hertz" else 1.0
    return {"m": law * params["stiffness_scale"] ** 2 * params["restitution"] ** -0.5}


def test_one_at_a_time_coefficients_of_a_power_law() -> None:
    spec, plan = oat_spec()
    rows = [power_law(p) for p in plan.cases]
    res = json_ready(analyse(spec, plan, rows))
    assert res["nominal"] == {"stiffness_scale": 1.0, "restitution": 0.5,
                              "contact_law": "lankarani-nikravesh"}
    m0 = 0.5**-0.5
    coeffs = res["coefficients"]["m"]
    s = coeffs["stiffness_scale"]
    assert [c["value"] for c in s] == [0.99, 1.01]
    assert [c["coefficient"] for c in s] == pytest.approx([(0.99**2 - 1) / -0.01,
                                                           (1.01**2 - 1) / 0.01])
    assert all(abs(c["coefficient"] - 2.0) < 0.011 for c in s)  # -> k = 2 as dp -> 0
    r = coeffs["restitution"]
    assert r[0]["coefficient"] == pytest.approx(((0.4 / 0.5) ** -0.5 - 1) / (-0.1 / 0.5))
    assert r[1]["metric"] == pytest.approx(0.8**-0.5)
    assert coeffs["contact_law"] == [{"value": "hertz", "metric": pytest.approx(1.1 * m0),
                                      "coefficient": None}]
    bars = res["tornado"]["m"]
    assert [b["axis"] for b in bars] == ["restitution", "contact_law", "stiffness_scale"]
    assert bars[0]["low_value"] == 0.4 and bars[0]["high_value"] == 0.8
    assert bars[0]["low"] == pytest.approx(0.4**-0.5)
    assert bars[0]["swing"] == pytest.approx(0.4**-0.5 - 0.8**-0.5)
    assert bars[2]["swing"] == pytest.approx(m0 * (1.01**2 - 0.99**2))


def test_one_at_a_time_with_missing_cases() -> None:
    spec, plan = oat_spec()
    rows = [power_law(p) for p in plan.cases]
    rows[1] = None  # stiffness_scale 0.99
    res = json_ready(analyse(spec, plan, rows))
    assert res["missing"] == 1
    assert res["coefficients"]["m"]["stiffness_scale"][0]["coefficient"] is None
    assert res["coefficients"]["m"]["stiffness_scale"][1]["coefficient"] is not None
    rows[0] = None
    assert analyse(spec, plan, rows) == {"incomplete": 2}


def test_convergence_of_a_second_order_sequence() -> None:
    h = [0.1, 0.05, 0.025, 0.0125]
    res = convergence_summary(h, [2.0 + 3.0 * x**2 for x in h])
    assert res["observed_order"] == pytest.approx(2.0)
    assert res["richardson_estimate"] == pytest.approx(2.0)
    assert res["ratio"] == pytest.approx(2.0)
    assert res["converged"] is True and "observed order 2.00" in res["verdict"]


def test_convergence_through_a_spec() -> None:
    spec = parse_spec({"name": "s", "design": "convergence", "metric": "peak_contact_force",
                       "axes": {"max_step": {"values": [1e-4, 5e-5, 2.5e-5]}}})
    plan = plan_study(spec)
    rows = [{"peak_contact_force": 1000.0 * (1.0 + 1e6 * p["max_step"] ** 2)}
            for p in plan.cases]
    res = json_ready(analyse(spec, plan, rows))
    assert res["axis"] == "max_step" and res["metric"] == "peak_contact_force"
    assert res["levels"] == [1e-4, 5e-5, 2.5e-5]
    assert res["observed_order"] == pytest.approx(2.0)
    assert res["richardson_estimate"] == pytest.approx(1000.0)
    assert res["relative_changes"][-1] == pytest.approx(1.875 / 1000.625)
    assert res["converged"] is True
    flat = [{"peak_contact_force": 5.0}] * 3  # no change at all: order undefined -> None
    res = json_ready(analyse(spec, plan, flat))
    assert res["observed_order"] is None and res["richardson_estimate"] is None
    assert analyse(spec, plan, [rows[0], None, rows[2]]) == {"incomplete": 1}
    res = analyse(spec, plan, [{"impacts": 1}] * 3)
    assert "error" in res


def test_grid_has_no_study_level_analysis_and_lengths_must_match() -> None:
    spec = parse_spec({"name": "s", "axes": {"clearance_mm": {"values": [0.05, 0.1]}}})
    plan = plan_study(spec)
    assert analyse(spec, plan, [{"m": 1.0}, None]) == {}
    with pytest.raises(ValueError):
        analyse(spec, plan, [None])


def test_a_stored_study_is_analysed_from_its_cases_not_planned_again(monkeypatch) -> None:
    """Issue 34.4: the analysis of a stored one-at-a-time study reads its plan from the
    cases' params; a sampling design, whose matrix the cases do not carry, plans again."""
    from gapsweep.study import analysis

    spec, plan = oat_spec()
    detail = {"spec": spec.to_dict(),
              "cases": [{"params": p, "status": "done", "metrics": power_law(p)}
                        for p in plan.cases]}
    expected = analyse(spec, plan, [power_law(p) for p in plan.cases])

    def planned(*_a, **_k):
        raise AssertionError("planned again")

    monkeypatch.setattr(analysis, "plan_study", planned)
    assert analysis.analyse_study(detail) == expected
    sampled = parse_spec({"name": "s", "design": "latin-hypercube", "samples": 4,
                          "axes": {"clearance_mm": {"start": 0.05, "stop": 0.1, "count": 2}}})
    assert "planned again" in analysis.analyse_study(
        {"spec": sampled.to_dict(), "cases": []})["error"]
