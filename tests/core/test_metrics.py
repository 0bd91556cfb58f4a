"""The metric registry (gapsweep.core.metrics): the patterns it resolves, the unknown names it
still answers, and the lists the other layers derive from it."""

from __future__ import annotations

import pytest
from gapsweep.core import metrics
from gapsweep.core.metrics import DIMENSIONLESS, REGISTRY, Metric, lookup, measure_metrics

# design.md 4.5: the study table's columns (the issue-23 slice moves them to settled metrics)
HEADLINE = ("peak_slider_accel", "rms_slider_accel", "peak_contact_force", "max_penetration",
            "impacts", "peak_slider_accel_steady")
# the settled-motion names the other slices register values under (BRIEF, issue 23)
SETTLED = tuple(f"{stat}_{q}_settled" for q in ("slider_accel", "contact_force", "driving_torque")
                for stat in ("peak", "p95", "mean"))


def test_the_headline_is_design_4_5s_six():
    assert metrics.headline() == HEADLINE


def test_the_twin_deviations_are_the_three_of_design_4_5():
    assert metrics.with_deviation() == ("peak_slider_accel", "rms_slider_accel",
                                        "peak_driving_torque")


def test_patterns_resolve_to_their_base_metric_with_its_unit():
    pen = lookup("max_penetration")
    assert (pen.si_unit, pen.display_unit, pen.scale) == ("m", "µm", 1e6)
    steady = lookup("peak_driving_torque_steady")  # not registered: the _steady pattern
    assert steady.title == "Peak driving torque (last revolution) [N m]"
    joint = lookup("max_penetration_steady.piston_pin")
    assert joint.title == "Max penetration (last revolution), joint piston_pin [µm]"
    assert joint.scale == 1e6 and not joint.headline and not joint.column
    dev = lookup("deviation_peak_contact_force.crank_pin")
    assert dev.title == "Deviation of peak contact force from the ideal joint, joint crank_pin [–]"
    assert lookup("impacts.crank_pin").integer


def test_an_unknown_name_is_answered_never_refused():
    for name in ("foo_bar", "peak_", "_steady", ".", "x.", "deviation_", ""):
        entry = lookup(name)
        assert entry.display_unit == DIMENSIONLESS and entry.scale == 1.0, name
    assert lookup("energy_of_the_flywheel").title == "Energy of the flywheel [–]"
    # a measure's peak without its mechanism: titled, no unit claimed
    assert lookup("peak_valve_lift").title == "Peak valve lift [–]"


def test_a_measure_gets_its_units_from_quantity_and_component():
    peak, rms, steady = measure_metrics("valve_lift", "position", "y")
    assert [m.name for m in (peak, rms, steady)] == [
        "peak_valve_lift", "rms_valve_lift", "peak_valve_lift_steady"]
    assert peak.si_unit == rms.si_unit == steady.si_unit == "m"
    assert measure_metrics("rocker", "acceleration", "angle")[0].si_unit == "rad/s²"
    assert measure_metrics("piston", "velocity", "magnitude")[1].si_unit == "m/s"
    known = {m.name: m for m in (peak, rms, steady)}
    assert lookup("peak_valve_lift", known).title == "Peak valve lift [m]"
    assert lookup("peak_valve_lift.joint_b", known).title == "Peak valve lift, joint joint_b [m]"
    assert lookup("deviation_peak_valve_lift", known).display_unit == DIMENSIONLESS
    with pytest.raises(ValueError, match="quantity 'jerk'"):
        measure_metrics("x", "jerk", "x")


def test_the_settled_motion_names_are_registered():
    for name in (*SETTLED, "peak_slider_accel_startup", "settled", "revolutions",
                 "settled_after_revolutions", "section_drift", "motion", "motion_period",
                 "chaos_indicator", "share_free_flight", "share_impact", "share_contact"):
        assert name in REGISTRY, name
    assert all("settled" in REGISTRY[n].label for n in SETTLED)
    assert "start-up" in REGISTRY["peak_slider_accel_startup"].label
    assert REGISTRY["peak_contact_force_settled"].si_unit == "N"
    assert REGISTRY["mean_driving_torque_settled"].si_unit == "N m"
    motion = REGISTRY["motion"]
    assert motion.text and motion.display("chaotic") == "chaotic"
    assert "0-1 test" in REGISTRY["chaos_indicator"].label


def test_display_scales_numbers_only():
    pen = lookup("max_penetration")
    assert pen.display(1.52726e-5) == pytest.approx(15.2726, rel=1e-12)
    assert pen.display(None) is None and pen.display(True) is True
    assert lookup("impacts").display(7) == 7 and isinstance(lookup("impacts").display(7), int)


def test_a_text_metric_cannot_be_scaled():
    with pytest.raises(ValueError, match="motion2"):
        Metric("motion2", "Motion", text=True, scale=2.0)


def test_a_new_entry_is_in_the_derived_lists(monkeypatch):
    entry = Metric("peak_valve_lift_x", "Peak valve lift", "m", display_unit="mm", scale=1e3,
                   headline=True, has_deviation=True, trend=True)
    monkeypatch.setitem(REGISTRY, entry.name, entry)
    assert metrics.headline() == (*HEADLINE, entry.name)
    assert entry.name in metrics.with_deviation() and entry.name in metrics.trend_metrics()
    assert metrics.label(entry.name) == "Peak valve lift [mm]"
