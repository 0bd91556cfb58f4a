"""Response surfaces (study/response_surface.py): exact recovery and the PRESS statistic."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gapsweep.study.response_surface import SurfaceError, fit_surface


def _grid(lo_a, hi_a, lo_b, hi_b, n=5):
    return np.array(list(itertools.product(np.linspace(lo_a, hi_a, n),
                                           np.linspace(lo_b, hi_b, n))))


def test_a_known_quadratic_comes_back_exactly():
    # y in coded factors u = (c - 0.06) / 0.04, v = (k - 1.0) / 0.3 (the grid spans exactly
    # c 0.02..0.1 mm, k 0.7..1.3): 3 + 2u - v + 4u² + 0.5uv - 1.5v²
    x = _grid(0.02, 0.1, 0.7, 1.3)
    u, v = (x[:, 0] - 0.06) / 0.04, (x[:, 1] - 1.0) / 0.3
    y = 3 + 2 * u - v + 4 * u**2 + 0.5 * u * v - 1.5 * v**2
    s = fit_surface(x, y, ["clearance_mm", "stiffness_scale"], order=2)
    expected = {"1": 3.0, "clearance_mm": 2.0, "stiffness_scale": -1.0,
                "clearance_mm^2": 4.0, "clearance_mm*stiffness_scale": 0.5,
                "stiffness_scale^2": -1.5}
    got = s.coefficient_table()
    assert set(got) == set(expected)
    for term, value in expected.items():
        assert got[term] == pytest.approx(value, abs=1e-9)
    assert s.r2 == pytest.approx(1.0, abs=1e-12)
    assert s.r2_predicted == pytest.approx(1.0, abs=1e-9) and not s.poor
    # and a point between the cases, from the raw-unit polynomial
    c, k = 0.047, 1.21
    uu, vv = (c - 0.06) / 0.04, (k - 1.0) / 0.3
    raw = 3 + 2 * uu - vv + 4 * uu**2 + 0.5 * uu * vv - 1.5 * vv**2
    assert s.predict_at({"clearance_mm": c, "stiffness_scale": k}) == pytest.approx(raw,
                                                                                     abs=1e-9)


def test_a_cubic_in_one_factor_comes_back_exactly_at_order_3():
    x = np.linspace(-2.0, 4.0, 9)[:, None]  # coded u = (x - 1) / 3
    u = (x[:, 0] - 1.0) / 3.0
    y = 1 - u + 2 * u**2 + 0.25 * u**3
    s = fit_surface(x, y, ["a"], order=3)
    assert list(s.coefficients) == pytest.approx([1, -1, 2, 0.25], abs=1e-9)
    # a quadratic cannot carry the cubic term: R² below 1
    assert fit_surface(x, y, ["a"], order=2).r2 < 1 - 1e-6


def test_predicted_r2_equals_explicit_leave_one_out():
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 1, size=(25, 2))
    y = 1 + x[:, 0] + x[:, 1] ** 2 + rng.normal(0, 0.1, 25)
    s = fit_surface(x, y, ["a", "b"], order=2)
    press = 0.0
    for i in range(25):
        keep = np.arange(25) != i
        # refit without case i, coded with the full data's coding as the surface is
        a = np.column_stack([np.ones(24), *(s.code(x[keep]).T), *(s.code(x[keep]).T ** 2),
                             np.prod(s.code(x[keep]), axis=1)])
        coef, *_ = np.linalg.lstsq(a, y[keep], rcond=None)
        xi = s.code(x[i:i + 1])[0]
        pred = coef @ np.array([1, xi[0], xi[1], xi[0] ** 2, xi[1] ** 2, xi[0] * xi[1]])
        press += (y[i] - pred) ** 2
    assert s.r2_predicted == pytest.approx(1 - press / ((y - y.mean()) ** 2).sum(), rel=1e-9)


def test_pure_scatter_is_flagged_poor():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, size=(30, 2))
    s = fit_surface(x, rng.normal(size=30), ["a", "b"])
    assert s.poor and s.r2_predicted < 0.5


def test_nearest_case_in_coded_units():
    x = np.array([[0.02, 0.7], [0.1, 1.3], [0.02, 1.3], [0.1, 0.7], [0.06, 1.0]])
    s = fit_surface(x, np.arange(5.0), ["c", "k"], order=1)
    assert s.nearest_case({"c": 0.095, "k": 0.75}) == 3


def test_too_few_cases_are_refused():
    with pytest.raises(SurfaceError, match="at least 6 cases"):
        fit_surface(np.random.default_rng(0).uniform(size=(5, 2)), np.arange(5.0), ["a", "b"])
