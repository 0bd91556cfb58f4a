"""The motion figures (design.md 4.10) on synthetic data whose answer is known: the logistic
map's orbits as sections (period 2 at r = 3.2, period 4 at r = 3.5, a band at r = 4), a
journal on a known orbit for the phase portrait, a sum of crank harmonics for the case's
spectrum. No browser, no solver."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.spectra import amplitude_spectrum
from gapsweep.web.figures.bifurcation import (
    DEPENDS_ON_START,
    bifurcation_figure,
    class_order,
    depends_on_start,
    motion_map_figure,
    quantity_label,
    start_dependence_note,
)
from gapsweep.web.figures.motion import (
    SETTLED_NAME,
    START_NAME,
    case_spectrum_figure,
    clearance_of,
    driver_period_s,
    motion_words,
    orbit_in_time_figure,
    phase_portrait_figure,
    poincare_figure,
    section_joints,
    settled_from_s,
    short_number,
    starts_words,
    window_mask,
)

C_MM = 0.05
C = C_MM * 1e-3
T = 0.012  # 5000 rpm


def logistic(r: float, n: int, skip: int = 500, x0: float = 0.3) -> np.ndarray:
    """n iterates of x -> r x (1 - x) after ``skip`` (the transient)."""
    x, out = x0, []
    for i in range(skip + n):
        x = r * x * (1.0 - x)
        if i >= skip:
            out.append(x)
    return np.array(out)


def section(values: np.ndarray, c: float = C) -> dict[str, np.ndarray]:
    """A section whose |e|/c are ``values`` (the journal at angle 30°)."""
    t = T * np.arange(values.size)
    return {"poincare_time": t,
            "poincare_eccentricity_x": values * c * math.cos(math.pi / 6),
            "poincare_eccentricity_y": values * c * math.sin(math.pi / 6)}


# --- the case: Poincaré map, phase portrait, orbit in time, spectrum, words -------------


def test_poincare_map_shows_each_joints_section_relative_to_its_clearance():
    ring = logistic(3.5, 40)
    series = {**section(ring)}
    other = section(logistic(3.2, 40), c=2 * C)
    series["poincare_eccentricity_x.crank_pin"] = other["poincare_eccentricity_x"]
    series["poincare_eccentricity_y.crank_pin"] = other["poincare_eccentricity_y"]
    assert section_joints(series) == ["", "crank_pin"]
    fig = poincare_figure(series, {"": C, "crank_pin": 2 * C})
    journal, pin = fig.data
    np.testing.assert_allclose(np.hypot(journal.x, journal.y), ring, rtol=1e-12)
    # period 4 (r = 3.5) visits 4 points, period 2 (r = 3.2) two
    assert len(set(np.round(np.hypot(journal.x, journal.y), 9))) == 4
    assert len(set(np.round(np.hypot(pin.x, pin.y), 9))) == 2
    np.testing.assert_allclose(journal.customdata, T * np.arange(40))
    circle = fig.layout.shapes[0]
    assert (circle.x0, circle.x1) == (-1, 1)
    assert "e_x/c" in fig.layout.xaxis.title.text and "[–]" in fig.layout.xaxis.title.text


def test_clearance_of_a_joint_from_the_case_parameters():
    params = {"clearance_mm": 0.1, "joints.crank_pin.clearance_mm": 0.02}
    assert clearance_of(params, "crank_pin") == pytest.approx(2e-5)
    assert clearance_of(params, "") == pytest.approx(1e-4)
    assert clearance_of({}, "") is None


def test_phase_portrait_rate_matches_the_analytic_derivative():
    """|e|/c = 0.6 + 0.3 sin(w t): the rate is 0.3 w cos(w t) (second-order differences on
    an uneven grid: error below 1 % of the amplitude)."""
    w = 2 * math.pi / T
    rng = np.random.default_rng(5)
    t = np.sort(np.r_[0.0, rng.uniform(0, 3 * T, 3000), 3 * T])
    r = 0.6 + 0.3 * np.sin(w * t)
    series = {"t": t, "eccentricity_x": r * C, "eccentricity_y": 0 * t}
    fig = phase_portrait_figure(series, C)
    trace = fig.data[0]
    np.testing.assert_allclose(trace.x, r, rtol=1e-12)
    exact = 0.3 * w * np.cos(w * t)
    inner = slice(1, -1)  # one-sided at the ends
    assert np.max(np.abs(trace.y[inner] - exact[inner])) < 0.01 * 0.3 * w
    assert fig.layout.yaxis.title.text == "Rate of |e|/c [1/s]"


def test_orbit_in_time_sets_the_settled_part_apart_and_marks_the_start():
    t = np.linspace(0, 10 * T, 1001)
    r = 0.9 - 0.5 * np.exp(-t / (2 * T))
    series = {"t": t, "eccentricity_x": r * C * np.cos(t / T), "eccentricity_y":
              r * C * np.sin(t / T)}
    start = 4.05 * T  # between two samples
    fig = orbit_in_time_figure(series, C, start)
    names = [d.name for d in fig.data]
    early, settled, star = (fig.data[names.index(n)] for n in
                            ("before settling (colour: time)", SETTLED_NAME, START_NAME))
    assert min(settled.customdata) >= start and max(early.customdata) < start + T / 100
    # every instant drawn once, but the first settled one (the join) also in the early part
    assert len(early.x) + len(settled.x) == t.size + 1
    np.testing.assert_allclose(early.marker.color, early.customdata)
    assert (star.x[0], star.y[0]) == pytest.approx((r[0], 0.0))
    assert early.marker.colorbar.title.text == "Time [s]"
    not_settled = orbit_in_time_figure(series, C, None)
    assert SETTLED_NAME not in [d.name for d in not_settled.data]


def test_case_spectrum_marks_crank_orders_and_states_the_resolution_f1_over_n():
    """20 settled revolutions of 1x + 3x harmonics: the bin is f1/20, the peaks at the
    marked orders 1 and 3."""
    rpm, n_rev = 5000.0, 20
    f1 = rpm / 60
    t = np.arange(n_rev * 256) / (256 * f1)
    x = 100 * np.sin(2 * math.pi * f1 * t) + 30 * np.sin(2 * math.pi * 3 * f1 * t)
    s = amplitude_spectrum(t, x, window="boxcar")
    series = {"spectrum_freq_hz": s.frequency_hz, "spectrum_slider_acceleration": s.amplitude}
    fig = case_spectrum_figure(series, "slider_acceleration", rpm)
    assert "f1/20" in fig.layout.title.text and "settled window" in fig.layout.title.text
    assert "over 20 revolutions" in fig.layout.title.text
    lines = sorted(sh.x0 for sh in fig.layout.shapes)
    np.testing.assert_allclose(lines[:3], [f1, 2 * f1, 3 * f1])
    amp, freq = np.asarray(fig.data[0].y), np.asarray(fig.data[0].x)
    top2 = freq[np.argsort(amp)[-2:]]
    np.testing.assert_allclose(sorted(top2), [f1, 3 * f1])
    assert fig.layout.xaxis.range[1] == pytest.approx(40 * f1)


@pytest.mark.parametrize(("metrics", "words"), [
    ({"settled": 1, "settled_after_revolutions": 14, "revolutions": 20,
      "motion": "periodic-1"}, "settled after 14 revolutions, periodic-1"),
    ({"settled": 0, "revolutions": 80, "section_drift": 3.1e-3, "motion": "irregular"},
     "did not settle within 80 revolutions: drift 3e-3 c per revolution, irregular"),
    ({"settled": 0, "revolutions": 80, "section_drift": 0.04, "motion": "chaotic",
      "chaos_indicator": 0.934}, "did not settle within 80 revolutions: drift 0.04 c per "
                                 "revolution, chaotic (0-1 test K = 0.93)"),
    # chaotic is not rattling: the settled window's contact mode and impacts
    ({"settled": 0, "revolutions": 80, "section_drift": 0.3, "motion": "chaotic",
      "chaos_indicator": 0.99, "contact_mode": "continuous contact", "impacts_settled": 0},
     "did not settle within 80 revolutions: drift 0.3 c per revolution, chaotic (0-1 test "
     "K = 0.99), no impact: continuous contact"),
    ({"settled": 0, "motion": "chaotic", "contact_mode": "impacting", "impacts_settled": 77},
     "did not settle, chaotic, 77 impacts"),
    ({"peak_slider_accel": 3.0}, None),
])
def test_motion_in_words(metrics, words):
    assert motion_words(metrics) == words


def test_short_number():
    assert [short_number(v) for v in (3.1e-3, 0.25, 4e-7, 0.0)] == ["3e-3", "0.2", "4e-7",
                                                                     "0"]


def test_settled_window_start_from_the_metrics():
    metrics = {"settled": 1, "settled_after_revolutions": 14}
    assert settled_from_s(metrics, driver_period_s({}, 5000.0)) == pytest.approx(14 * T)
    assert driver_period_s({"poincare_time": T * np.arange(5)}, None) == pytest.approx(T)
    assert settled_from_s({"settled": 0, "settled_after_revolutions": 3}, T) is None


# --- the study: bifurcation diagram, class map, start dependence --------------------------

R_CLASSES = {3.2: "periodic-2", 3.5: "periodic-4", 3.7: "chaotic", 4.0: "chaotic"}


def logistic_study() -> tuple[list[dict], dict[int, dict]]:
    """One case per r: its section the logistic map's orbit (|e|/c = x_n), its class the
    known one; a case without a section and a failed case."""
    cases, sections = [], {}
    for i, (r, motion) in enumerate(R_CLASSES.items(), start=1):
        cases.append({"id": i, "status": "done", "params": {"speed_rpm": 1000 * r,
                                                            "clearance_mm": C_MM},
                      "metrics": {"motion": motion, "chaos_indicator": 0.95 if motion ==
                                  "chaotic" else 0.02}})
        sections[i] = section(logistic(r, 64))
    cases.append({"id": 9, "status": "done", "params": {"speed_rpm": 5000.0,
                                                        "clearance_mm": C_MM}, "metrics": {}})
    cases.append({"id": 10, "status": "failed", "params": {"speed_rpm": 5500.0}})
    return cases, sections


def test_bifurcation_diagram_plots_every_section_point_by_class():
    cases, sections = logistic_study()
    fig = bifurcation_figure(cases, sections, axis="speed_rpm")
    assert [d.name for d in fig.data] == ["periodic-2", "periodic-4", "chaotic"]
    for trace in fig.data:
        ids = np.asarray(trace.customdata)[:, 0].astype(int)
        for case_id in set(ids):
            r = cases[case_id - 1]["params"]["speed_rpm"] / 1000
            mine = ids == case_id
            np.testing.assert_allclose(np.asarray(trace.y)[mine], logistic(r, 64), rtol=1e-12)
            np.testing.assert_allclose(np.asarray(trace.x)[mine], 1000 * r)
    p2 = np.asarray(fig.data[0].y)
    assert len(set(np.round(p2, 9))) == 2  # period 2: two dots at its x
    assert "2 of 6 cases without a section" in fig.layout.title.text
    assert fig.layout.xaxis.title.text.endswith(" [rpm]")
    assert fig.layout.yaxis.title.text == quantity_label("eccentricity_ratio")


def test_bifurcation_quantity_e_x_over_c():
    cases, sections = logistic_study()
    fig = bifurcation_figure(cases, sections, axis="speed_rpm", quantity="eccentricity_x_ratio")
    ids = np.asarray(fig.data[0].customdata)[:, 0].astype(int)
    np.testing.assert_allclose(np.asarray(fig.data[0].y)[ids == 1],
                               logistic(3.2, 64) * math.cos(math.pi / 6), rtol=1e-12)


def test_class_order():
    names = ["chaotic", "periodic-10", "irregular", "periodic-2", "periodic-1"]
    assert sorted(names, key=class_order) == ["periodic-1", "periodic-2", "periodic-10",
                                              "chaotic", "irregular"]


def test_motion_map_over_clearance_and_speed():
    cases = []
    for i, (c, rpm) in enumerate([(0.02, 1000), (0.02, 6000), (0.1, 1000), (0.1, 6000)]):
        cases.append({"id": i + 1, "status": "done",
                      "params": {"clearance_mm": c, "speed_rpm": rpm},
                      "metrics": {"motion": "chaotic" if c == 0.1 and rpm == 6000 else
                                  "periodic-1", "chaos_indicator": 0.1 * (i + 1)}})
    # chaotic without an impact (the journal rocking on the wall at low speed): struck
    # through, and the hover says so; an impacting or an older case (no mode) is not
    cases.append({"id": 5, "status": "done", "params": {"clearance_mm": 0.06, "speed_rpm": 1000},
                  "metrics": {"motion": "chaotic", "contact_mode": "continuous contact"}})
    cases[3]["metrics"]["contact_mode"] = "impacting"
    fig = motion_map_figure(cases, x_axis="clearance_mm", y_axis="speed_rpm")
    by_name = {d.name: d for d in fig.data}
    assert list(by_name) == ["periodic-1", "chaotic", "no impact in the settled window"]
    assert [cd[0] for cd in by_name["chaotic"].customdata] == [4, 5]
    assert (by_name["chaotic"].x[0], by_name["chaotic"].y[0]) == (0.1, 6000)
    quiet = by_name["no impact in the settled window"]
    assert [cd[0] for cd in quiet.customdata] == [5]
    assert "continuous contact" in quiet.text[0] and "impacting" in by_name["chaotic"].text[0]
    cases.pop()
    cases[3]["metrics"].pop("contact_mode")
    k = motion_map_figure(cases, x_axis="clearance_mm", y_axis="speed_rpm",
                          show="chaos_indicator")
    np.testing.assert_allclose(k.data[0].marker.color, [0.1, 0.2, 0.3, 0.4])
    assert (k.data[0].marker.cmin, k.data[0].marker.cmax) == (0.0, 1.0)


def test_start_dependence_flag():
    cases = [{"id": 1, "status": "done", "metrics": {"start_spread": 0.27}},
             {"id": 2, "status": "done", "metrics": {"start_spread": 0.001}},
             {"id": 3, "status": "done", "metrics": {"start_dependent": 1}},
             {"id": 4, "status": "done", "metrics": {}}]
    assert [depends_on_start(c) for c in cases] == [True, False, True, False]
    note = start_dependence_note(cases)
    assert DEPENDS_ON_START in note.lower() and "cases 1, 3" in note and "27 %" in note
    assert start_dependence_note(cases[1:2]) is None


def test_phase_portrait_has_no_rate_across_a_gap_of_the_stored_series():
    """A long run keeps its first revolution and a ring of its last ones: the portrait
    breaks the line there instead of drawing the jump as a huge rate."""
    t = np.r_[np.linspace(0, T, 200), np.linspace(40 * T, 43 * T, 600)]
    r = np.r_[np.full(200, 0.2), np.full(600, 0.95)]
    fig = phase_portrait_figure({"t": t, "eccentricity_x": r * C, "eccentricity_y": 0 * t}, C)
    y = np.asarray(fig.data[0].y, dtype=float)
    assert np.isnan(y).sum() == 1
    assert np.nanmax(np.abs(y)) < 1e-9  # |e| constant on each stretch (the jump: 7e4 /s)


def test_the_transient_sections_are_left_out_of_the_diagram_and_faint_on_the_map():
    """Settled after 3 revolutions: the first three sections (the start-up) are not points
    of the bifurcation diagram; the Poincaré map draws them apart."""
    values = np.r_[0.1, 0.5, 0.7, np.full(10, 0.9)]
    case = {"id": 1, "status": "done", "params": {"clearance_mm": C_MM, "speed_rpm": 5000.0},
            "metrics": {"motion": "periodic-1", "settled": 1, "settled_after_revolutions": 3}}
    fig = bifurcation_figure([case], {1: section(values)}, axis="clearance_mm")
    np.testing.assert_allclose(fig.data[0].y, np.full(10, 0.9), rtol=1e-12)
    # not settled in 13 revolutions: the second half (from section 6) is the window
    unsettled = {**case, "metrics": {"motion": "irregular", "settled": 0,
                                     "settled_after_revolutions": -1, "revolutions": 12}}
    fig = bifurcation_figure([unsettled], {1: section(values)}, axis="clearance_mm")
    assert len(fig.data[0].y) == 7
    pmap = poincare_figure(section(values), {"": C}, first=3, period_s=T)
    main, faint = pmap.data
    np.testing.assert_allclose(np.hypot(faint.x, faint.y), [0.1, 0.5, 0.7])
    assert len(main.x) == 10 and faint.name == "before the settled window"


def test_several_starts_in_words():
    metrics = {"motion": "periodic-1", "start_spread": 0.27, "start_dependent": 1,
               "motion.wall": "periodic-2", "peak_slider_accel_settled.wall": 25_900.0,
               "motion.run-up": "periodic-1", "peak_slider_accel_settled.run-up": 20_400.0}
    assert starts_words(metrics) == (
        "from the run-up start: periodic-1, settled peak 20.4 km/s²; from the wall start: "
        "periodic-2, settled peak 25.9 km/s²; spread between starts 27 %")
    assert starts_words({"motion": "chaotic"}) is None


def test_the_solvers_settled_window_is_read_first():
    t = T * np.arange(10)
    metrics = {"settled": 0, "revolutions": 9, "settled_from_s": 4 * T}  # not half: stored
    assert list(window_mask(t, metrics, {}, T)) == [False] * 4 + [True] * 6
    assert settled_from_s({"settled": 1, "settled_from_s": 0.05,
                           "settled_after_revolutions": 3}, T) == 0.05


def test_each_window_reads_its_own_metric_or_says_what_it_shows():
    from gapsweep.web.figures.windows import DEFAULT_WINDOW, study_metric, windowed_metric

    assert DEFAULT_WINDOW == "settled"
    assert windowed_metric("peak_slider_accel", "settled") == ("peak_slider_accel_settled",
                                                               None)
    assert windowed_metric("peak_slider_accel", "startup") == ("peak_slider_accel_startup",
                                                               None)
    assert windowed_metric("peak_contact_force", "steady")[0] == "peak_contact_force_steady"
    assert windowed_metric("rms_slider_accel", "startup") == (
        "rms_slider_accel", "no start-up version of this metric: whole run shown")
    old = [{"status": "done", "metrics": {"peak_slider_accel": 3.0}}]
    key, note = study_metric(old, "peak_slider_accel", "settled")
    assert key == "peak_slider_accel" and "whole run shown" in note
