"""Seed 002's step cap inside contact: more, smaller steps in contact, the same answer."""

import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.errors import InputError
from gapsweep.core.simulation import simulate


def test_contact_step_cap_refines_only_the_contact_phases():
    free = simulate(SliderCrankCase(clearance_mm=0.05, t_end=0.006))
    capped = simulate(SliderCrankCase(clearance_mm=0.05, t_end=0.006, contact_max_step=2e-7))
    assert capped.ok, capped.reason
    # the journal is in contact ~98 % of the time here: a 0.2 us cap forces >= that many steps
    in_contact = free.metrics["contact_time_fraction"] * 0.006
    assert capped.metrics["accepted_steps"] >= 0.9 * in_contact / 2e-7
    assert capped.metrics["accepted_steps"] > 3 * free.metrics["accepted_steps"]
    for key in ("peak_contact_force", "max_penetration", "peak_slider_accel"):
        assert capped.metrics[key] == pytest.approx(free.metrics[key], rel=1e-4)
    assert capped.metrics["impacts"] == free.metrics["impacts"]


@pytest.mark.parametrize("value", [0.0, -1e-6, float("nan")])
def test_contact_step_cap_must_be_positive(value):
    with pytest.raises(InputError) as info:
        SliderCrankCase(contact_max_step=value).validate()
    assert info.value.field == "contact_max_step"
