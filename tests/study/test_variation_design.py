"""design = "monte-carlo": distributions, seeds, supports, truncation, fits and twins."""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.core.api import get_model
from gapsweep.core.errors import InputError
from gapsweep.study.designs import plan_study
from gapsweep.study.errors import SpecError
from gapsweep.study.spec import parse_spec
from gapsweep.study.variation_design import axis_distribution
from scipy.special import ndtr


def _spec(axes, samples=400, seed=7, **extra):
    return parse_spec({"name": "mc", "design": "monte-carlo", "samples": samples,
                       "seed": seed, "axes": axes, **extra})


FIT_AND_STIFFNESS = {
    "clearance_mm": {"fit": "H7/g6", "diameter_mm": 20},
    "stiffness_scale": {"distribution": "normal", "nominal": 1.0, "relative_percent": 30},
}


def _column(plan, name):
    return np.array([c[name] for c in plan.cases])


def test_same_seed_same_samples_other_seed_other_samples():
    a = plan_study(_spec(FIT_AND_STIFFNESS))
    b = plan_study(_spec(FIT_AND_STIFFNESS))
    c = plan_study(_spec(FIT_AND_STIFFNESS, seed=8))
    assert a.cases == b.cases
    assert _column(a, "clearance_mm").tolist() != _column(c, "clearance_mm").tolist()
    assert len(a.cases) == 400


def test_fit_axis_draws_the_radial_clearance_and_sets_the_bearing_radius():
    plan = plan_study(_spec(FIT_AND_STIFFNESS))
    c = _column(plan, "clearance_mm")
    # H7/g6 on 20 mm (ISO 286-2): hole 20.000..20.021, shaft 19.980..19.993 mm
    assert c.min() >= 0.0035 and c.max() <= 0.0205
    assert {case["bearing_radius_mm"] for case in plan.cases} == {10.0}
    # (hole - shaft)/2 of two uniforms: a trapezoid with mean (0.0105+0.0135)/2/2... its centre
    assert c.mean() == pytest.approx((0.0035 + 0.0205) / 2, abs=4 * c.std() / 20)
    w_h, w_s = 0.021, 0.013
    assert c.std() == pytest.approx(np.sqrt((w_h**2 + w_s**2) / 12) / 2, rel=0.1)


def test_normal_relative_percent_is_3_sigma():
    plan = plan_study(_spec(FIT_AND_STIFFNESS, samples=2000))
    k = _column(plan, "stiffness_scale")
    assert k.mean() == pytest.approx(1.0, abs=4 * 0.1 / np.sqrt(2000))
    assert k.std(ddof=1) == pytest.approx(0.1, rel=0.06)


def test_uniform_forms_stay_in_their_support():
    spec = _spec({"friction": {"distribution": "uniform", "low": 0.0, "high": 0.05},
                  "restitution": {"distribution": "uniform", "nominal": 0.8,
                                  "half_width": 0.1}})
    plan = plan_study(spec)
    f, r = _column(plan, "friction"), _column(plan, "restitution")
    assert f.min() >= 0.0 and f.max() <= 0.05 and r.min() >= 0.7 and r.max() <= 0.9
    assert f.max() - f.min() > 0.045  # spread over the whole support


def test_a_normal_is_truncated_to_the_parameters_allowed_range():
    # restitution is allowed in (0, 1]: nominal 0.9, σ = 0.1 puts 16 % of the mass above 1
    spec = _spec({"restitution": {"distribution": "normal", "nominal": 0.9,
                                  "three_sigma": 0.3}}, samples=3000)
    plan = plan_study(spec)
    r = _column(plan, "restitution")
    model = get_model("slider-crank")
    assert r.max() <= 1.0 and r.min() > 0.0
    for v in (r.min(), r.max()):
        model.parse({"restitution": float(v)})  # the core accepts every extreme drawn
    dist = axis_distribution(spec, "restitution")
    assert dist.high == 1.0
    assert dist.truncated_mass == pytest.approx(1 - ndtr(1.0), rel=1e-6)
    assert "truncated" in dist.describe()
    # truncated, not clipped: no pile-up at the bound
    assert np.count_nonzero(r == 1.0) == 0


def test_every_sample_is_a_case_the_core_accepts():
    plan = plan_study(_spec(FIT_AND_STIFFNESS, samples=100))
    model = get_model("slider-crank")
    for case in plan.cases:
        model.parse(case)


@pytest.mark.parametrize("axes, extra, field", [
    ({"clearance_mm": {"fit": "H7/q6", "diameter_mm": 20}}, {}, "axes.clearance_mm.fit"),
    ({"clearance_mm": {"fit": "H7/g6", "diameter_mm": 900}}, {},
     "axes.clearance_mm.diameter_mm"),
    ({"stiffness_scale": {"fit": "H7/g6", "diameter_mm": 20}}, {}, "axes.stiffness_scale.fit"),
    ({"friction": {"distribution": "uniform", "low": -0.1, "high": 0.1}}, {},
     "axes.friction.low"),
    ({"clearance_mm": {"fit": "H7/g6", "diameter_mm": 20}}, {"base": {"bearing_radius_mm": 12}},
     "base.bearing_radius_mm"),
    ({"friction": {"distribution": "uniform", "low": 0.1}}, {}, "axes.friction"),
    ({"friction": {"values": [0.0, 0.1]}}, {}, "axes.friction"),
])
def test_bad_distribution_axes_are_refused_with_their_field(axes, extra, field):
    with pytest.raises(SpecError) as exc:
        _spec(axes, **extra)
    assert field in [e.field for e in exc.value.errors]


def test_a_distribution_axis_needs_the_monte_carlo_design():
    with pytest.raises(SpecError) as exc:
        parse_spec({"name": "g", "design": "grid", "axes": FIT_AND_STIFFNESS})
    assert any("monte-carlo" in e.allowed for e in exc.value.errors)


def test_fit_and_contact_samples_share_one_twin_a_sampled_speed_gets_its_own():
    assert len(plan_study(_spec(FIT_AND_STIFFNESS, samples=50)).twins) == 1
    speed = {**FIT_AND_STIFFNESS,
             "speed_rpm": {"distribution": "normal", "nominal": 5000, "three_sigma": 150}}
    plan = plan_study(_spec(speed, samples=50))
    assert len(plan.twins) == 50 and plan.twin_of == list(range(50))


def test_fit_limits_error_is_an_input_error():
    with pytest.raises(InputError):
        from gapsweep.study.distributions import fit
        fit("H7/g6", -1)
