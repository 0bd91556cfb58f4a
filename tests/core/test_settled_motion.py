"""The settled motion of the reference mechanism (issue 23, design.md 4.10).

References are the issue's measurements with an independent implementation (5000 rpm):
from the centred start c = 0.02 mm settles into continuous contact with a fixed-point
section; c = 0.1 mm is chaotic (141 irregular impacts in 80 revolutions); the ideal joint is
periodic-1 (a driven one-degree-of-freedom mechanism repeats every revolution); from the wall
start c = 0.05 mm still drifts after 80 revolutions. A run-up from rest removes the
artificial start-up impact. All cases run in one batch (a few seconds).

Issue 33: the classification tests are marked ``roundoff`` (tests/conftest.py): they run
with the contact stiffness x (1 + eps) for eps in (0, +-1e-13, +-1e-12) and assert what holds
for every such trajectory - a rattling (chaotic) transient, or a capture after one; the
transient's sensitivity; statements over an ensemble of eps - never one chaotic
trajectory's impact count or capture revolution. Layout and spectrum tests read fixed-length
runs or cases whose class does not hang on round-off.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.constraints import driver_motion
from gapsweep.core.motion import observable, section_period, zero_one_test
from gapsweep.core.postprocessing import series_spectrum
from gapsweep.core.settled import Revolutions, analyse
from gapsweep.core.simulation import simulate_batch
from gapsweep.core.stepping import (
    N_REV,
    R_CONTACT,
    R_FREE,
    R_IMPACT,
    R_PEAK_ACC,
    R_PEAK_FN,
    R_PEAK_TORQUE,
    R_SECTION,
    R_TIME,
)

T = SliderCrankCase().period  # one crank revolution at 5000 rpm [s]
CAP = SliderCrankCase().max_revolutions
T1000 = SliderCrankCase(speed_rpm=1000).period
CASES = {
    "c02": {"clearance_mm": 0.02, "initial": "centred"},
    # c = 0.1 mm from the wall start (seed 002) and from the centred start: chaotic impacts,
    # then - at a revolution that is itself chaotic, or not within the cap - captured by
    # the wall (the reference, 200 revolutions from the centred start: at revolution 127
    # for K, at 53 for K x (1 + 1e-6))
    "c10": {"clearance_mm": 0.1, "initial": "wall"},
    "c10_centred": {"clearance_mm": 0.1, "initial": "centred"},
    # c = 0.02 mm at 1000 rpm rides the wall and rocks chaotically along it (no impact): a
    # run to the cap whatever round-off does (the layout and spectrum tests read it)
    "low1000": {"clearance_mm": 0.02, "speed_rpm": 1000},
    "low1000_frictionless": {"clearance_mm": 0.02, "speed_rpm": 1000, "friction": 0.0},
    "ideal": {"clearance_mm": 0.05, "ideal": True, "initial": "centred"},
    "wall05": {"clearance_mm": 0.05, "initial": "wall", "max_revolutions": 40},
    "centred05": {"clearance_mm": 0.05, "initial": "centred"},
    "runup05": {"clearance_mm": 0.05, "initial": "run-up", "max_revolutions": 16},
    "ideal_runup": {"clearance_mm": 0.05, "ideal": True, "initial": "run-up"},
}


@pytest.fixture(scope="module")
def results(roundoff_eps):
    out = simulate_batch(list(CASES.values()))
    for r in out:
        assert r.ok, r.reason
    return dict(zip(CASES, out, strict=True))


def section(r, c_mm: float) -> np.ndarray:
    """The case's Poincare section ``[K + 1, 2]`` in units of the clearance."""
    return np.column_stack([r.series["poincare_eccentricity_x"],
                            r.series["poincare_eccentricity_y"]]) / (c_mm * 1e-3)


@pytest.mark.roundoff
def test_small_clearance_settles_to_periodic_1_within_20_revolutions(results) -> None:
    m = results["c02"].metrics
    assert m["motion"] == "periodic-1"
    assert m["settled"] == 1
    assert m["revolutions"] <= 20
    # the run stopped where it settled: adaptive length
    assert results["c02"].series["poincare_time"][-1] == pytest.approx(m["revolutions"] * T)
    # the settled window sits after the start-up and the start-up peak is far above it
    assert 1 <= m["settled_after_revolutions"] < m["revolutions"]
    assert m["peak_slider_accel_startup"] > 2 * m["peak_slider_accel_settled"]
    assert m["section_drift"] < 1e-3
    # classified above its own jitter (the integration's noise: 5e-5 - 7.5e-4 c at rtol 1e-6
    # over issue 33's 21 changes of K), with the settling tolerance as the floor and 3x it
    # as the ceiling
    assert 0 < m["section_jitter"] < 1e-3
    tol = min(max(1e-3, 5 * m["section_jitter"]), 3e-3)
    assert m["motion_tolerance"] == pytest.approx(tol)


def assert_chaos_then_capture_or_not(r, c_mm: float) -> np.ndarray:
    """What every trajectory of the reference mechanism at c = 0.1 mm does, whatever
    round-off does to it (issue 33's sweep of K x (1 + eps), eps +-1e-14 ... +-3e-11): a
    chaotic transient - a section that never repeats, the 0-1 test high on it - and then
    either chaos to the cap (chaotic, or irregular where the journal ends sliding along the
    wall) or capture by the wall: a periodic motion without impact after the chaotic
    section. Returns the section of the chaotic transient (units of c)."""
    m = r.metrics
    points = section(r, c_mm)
    if m["settled"]:
        capture = m["settled_after_revolutions"]
        assert m["motion"].startswith("periodic-") and m["motion_period"] >= 1
        assert m["impacts_settled"] == 0 and m["contact_mode"] == "continuous contact"
        assert 1 <= capture < m["revolutions"] <= CAP
        transient = points[1 : capture + 1]
        # its spectra span a multiple of its period (subharmonics k f1/N on bins)
        assert m["spectrum_revolutions"] % m["motion_period"] == 0
    else:
        assert m["revolutions"] == CAP
        assert m["motion"] in ("chaotic", "irregular")
        assert m["motion_period"] == 0
        transient = points[1:]
    assert m["impacts"] >= 1
    assert section_period(transient, 1e-3) == 0
    if len(transient) >= 32:  # the 0-1 test's minimum; 0.81 - 1.00 over the sweep
        assert zero_one_test(observable(transient)) > 0.75
    return transient


@pytest.mark.roundoff
def test_large_clearance_from_the_wall_rattles_chaotically(results) -> None:
    # c = 0.1 mm from the wall start (seed 002; the reference: 141 irregular impacts in 80
    # revolutions): chaotic impacts, then captured by the wall or not within the cap - a
    # 1e-13 change of K decides which (issue 33: captured at revolution 79 or 29 under
    # changes of 1e-14 to 3e-11), so the test asserts what holds either way
    m = results["c10"].metrics
    assert_chaos_then_capture_or_not(results["c10"], 0.1)
    # the journal rattles (1 to 146 impacts over the sweep) or is caught by the wall at once
    # and rides it chaotically: the case says which
    assert m["contact_mode"] == ("impacting" if m["impacts_settled"] else "continuous contact")


@pytest.mark.roundoff
def test_large_clearance_from_the_centred_start_is_transient_chaos(results) -> None:
    # the same c = 0.1 mm from the centred start: chaotic impacts (20 to 146 over the
    # sweep), then - at a revolution that is itself chaotic - captured by the wall, or not
    # within the cap. Not a numerical artefact: the independent reference is captured too
    # (revolution 127 for K, 53 for K x (1 + 1e-6))
    m = results["c10_centred"].metrics
    assert_chaos_then_capture_or_not(results["c10_centred"], 0.1)
    assert m["impacts"] >= 10  # the free journal hits the wall from the centre, and again


def test_large_clearance_capture_is_itself_chaotic_over_an_ensemble_of_stiffness() -> None:
    # an ensemble of K x (1 + eps), eps from 1e-9 to 1e-7 (rounding-sized against the
    # chaotic transient's growth): every member is a chaotic transient then captured or
    # not, as above; the members are different trajectories (their capture revolutions and
    # impact counts spread: sensitivity), the ensemble's 0-1 test on the transients reads
    # chaos, and the ensemble rattles (over the sweep 20-146 impacts a run, mean ~70)
    changes = (0.0, 1e-9, -1e-9, 1e-8, -1e-8, 1e-7)
    runs = simulate_batch([{"clearance_mm": 0.1, "stiffness_scale": 1.0 + e} for e in changes])
    ends, indicators, impacts = [], [], []
    for r in runs:
        assert r.ok, r.reason
        transient = assert_chaos_then_capture_or_not(r, 0.1)
        ends.append((r.metrics["settled_after_revolutions"], r.metrics["impacts"]))
        indicators.append(zero_one_test(observable(transient)))
        impacts.append(r.metrics["impacts"])
    assert len(set(ends)) >= 4  # sensitive: not one trajectory six times
    assert np.nanmedian(indicators) > 0.9
    assert np.mean(impacts) > 20


@pytest.mark.roundoff
def test_ideal_twin_is_periodic_1(results) -> None:
    for key in ("ideal", "ideal_runup"):
        m = results[key].metrics
        assert m["motion"] == "periodic-1", key
        assert m["settled"] == 1


@pytest.mark.roundoff
def test_wall_start_is_not_silently_settled(results) -> None:
    wall, centred = results["wall05"].metrics, results["centred05"].metrics
    # not settled within the cap, or settled to another motion than the centred start's:
    # either way the case says so
    if wall["settled"] == 1:
        other = abs(wall["peak_slider_accel_settled"] / centred["peak_slider_accel_settled"] - 1)
        assert other > 0.01 or wall["motion"] != centred["motion"]
    else:
        assert wall["motion"] in ("irregular", "chaotic")
        assert wall["section_drift"] > 0
        assert wall["revolutions"] == 40


@pytest.mark.roundoff
def test_run_up_has_no_start_up_impact(results) -> None:
    ideal_peak = results["ideal"].metrics["peak_slider_accel_settled"]
    runup = results["runup05"].metrics
    assert runup["peak_slider_accel_startup"] < 2 * ideal_peak
    assert runup["peak_slider_accel"] < 2 * ideal_peak
    # while the centred start at full speed hits the free pin hard
    assert results["centred05"].metrics["peak_slider_accel_startup"] > 2 * ideal_peak


def synthetic_record(peaks: np.ndarray, times: tuple[float, float, float],
                     sections: np.ndarray) -> Revolutions:
    """A per-revolution record of one clearance joint with known contents: revolution k's
    peaks ``peaks[k - 1]`` (slider acceleration, contact force, driving torque), the
    ``times`` (free flight, impact, continuous contact) [s] of every revolution, and the
    section ``sections`` ``[K + 1, 2]`` [m]."""
    k = len(peaks)
    rec = np.zeros((k + 1, N_REV + 2))
    rec[1:, R_PEAK_ACC] = peaks[:, 0]
    rec[1:, R_PEAK_FN] = peaks[:, 1]
    rec[1:, R_PEAK_TORQUE] = peaks[:, 2]
    rec[1:, R_FREE], rec[1:, R_IMPACT], rec[1:, R_CONTACT] = times
    rec[:, R_TIME] = np.arange(k + 1) * T
    rec[:, R_SECTION : R_SECTION + 2] = sections
    return Revolutions(rec, 1)


@pytest.mark.roundoff
def test_mode_shares_sum_to_one(results) -> None:
    for key in ("c02", "c10", "wall05", "centred05"):
        m = results[key].metrics
        shares = [m["share_free_flight"], m["share_impact"], m["share_contact"]]
        assert all(0.0 <= s <= 1.0 for s in shares), key
        assert sum(shares) == pytest.approx(1.0, abs=1e-12), key
    # settled in continuous contact at 0.02 mm; where impacts remain in the settled window
    # (c = 0.1 mm rattling, as round-off decides: above) each follows a free flight
    assert results["c02"].metrics["share_contact"] > 0.9
    assert results["c02"].metrics["share_free_flight"] == 0.0
    for key in ("c10", "c10_centred"):
        m = results[key].metrics
        if m["impacts_settled"] > 0:
            assert m["share_free_flight"] > 0.0 and m["share_impact"] > 0.0, key
    # the shares are the record's times, each in its own column: 30 % of every revolution in
    # free flight, 10 % in impact, 60 % in continuous contact
    record = synthetic_record(np.ones((20, 3)), (0.3 * T, 0.1 * T, 0.6 * T), np.zeros((21, 2)))
    m = analyse(record, 1e-4, tolerance=1e-3)
    assert m["share_free_flight"] == pytest.approx(0.3, rel=1e-12)
    assert m["share_impact"] == pytest.approx(0.1, rel=1e-12)
    assert m["share_contact"] == pytest.approx(0.6, rel=1e-12)


@pytest.mark.roundoff
def test_large_clearance_is_sensitive_to_a_1e_6_change_of_stiffness() -> None:
    # design.md 4.10: at c = 0.1 mm a 1e-6 change of K moves the section by 0.6 c within 10
    # revolutions (the reference; here 0.94 c by revolution 4); at c = 0.02 mm (periodic-1)
    # by no more than the section's own jitter, the integration error of the journal riding
    # the wall (~1e-3 c at rtol 1e-6: 1.2e-3 c with K x (1 - 1e-12), a processor's rounding)
    moved = {}
    for c in (0.1, 0.02):
        runs = simulate_batch(
            [{"clearance_mm": c, "stiffness_scale": k, "t_end": 10 * T} for k in (1.0, 1 + 1e-6)]
        )
        a, b = (section(r, c) for r in runs)
        moved[c] = np.max(np.hypot(*(a - b).T))
    assert moved[0.1] > 0.3
    assert moved[0.02] < 1e-2


@pytest.mark.roundoff
def test_settled_statistics_are_ordered(results) -> None:
    for key, r in results.items():
        m = r.metrics
        for stem in ("slider_accel", "contact_force", "driving_torque"):
            if key.startswith("ideal") and stem == "contact_force":
                continue
            assert m[f"peak_{stem}_settled"] >= m[f"p95_{stem}_settled"] >= 0, key
            assert m[f"p95_{stem}_settled"] >= m[f"mean_{stem}_settled"] - 1e-9, key
    # and they are the statistics of the per-revolution record: 40 revolutions of known,
    # distinct peaks, not settled (a scattered section), so the window is the second half
    rng = np.random.default_rng(7)
    peaks = rng.uniform(1.0, 2.0, (40, 3)) * [2e4, 3e3, 40.0]
    c = 1e-4
    record = synthetic_record(peaks, (0.3 * T, 0.1 * T, 0.6 * T), c * rng.uniform(-1, 1, (41, 2)))
    m = analyse(record, c, tolerance=1e-3)
    assert m["motion"] != "periodic-1" and m["settled"] == 0
    window = peaks[20:]  # revolutions 21-40
    for j, stem in enumerate(("slider_accel", "contact_force", "driving_torque")):
        assert m[f"peak_{stem}_settled"] == pytest.approx(window[:, j].max(), rel=1e-12)
        assert m[f"p95_{stem}_settled"] == pytest.approx(np.percentile(window[:, j], 95),
                                                         rel=1e-12)
        assert m[f"mean_{stem}_settled"] == pytest.approx(np.mean(window[:, j]), rel=1e-12)
    assert m["peak_slider_accel_startup"] == pytest.approx(peaks[:20, 0].max(), rel=1e-12)


def test_sections_are_exact_at_kT_against_a_fine_grid_run() -> None:
    # a fixed 4-revolution run on a fine output grid whose points miss t = k T: the section
    # must equal the cubic interpolation of the eccentricity between the grid points
    # 9973 intervals (a prime) over 4 T: t = T, 2T, 3T fall between grid points
    case = {"clearance_mm": 0.05, "t_end": 4 * T, "n_output": 9974}
    (r,) = simulate_batch([case])
    ts = r.series["poincare_time"]
    np.testing.assert_allclose(ts, np.arange(5) * T, rtol=0, atol=1e-15)
    t = r.series["t"]
    for axis in ("x", "y"):
        e = r.series[f"eccentricity_{axis}"]
        sec = r.series[f"poincare_eccentricity_{axis}"]
        for k in range(1, 4):
            i = int(np.searchsorted(t, ts[k]))
            i0 = min(max(i - 2, 0), len(t) - 4)
            window = slice(i0, i0 + 4)
            assert not np.any(np.isclose(t[window], ts[k], rtol=0, atol=1e-12))
            interp = np.polyval(np.polyfit(t[window] - ts[k], e[window], 3), 0.0)
            assert sec[k] == pytest.approx(interp, abs=1e-4 * 0.05e-3), (axis, k)


def test_fixed_length_runs_keep_the_4_1_meaning() -> None:
    # the settled c = 0.02 mm case: its adaptive run's _steady (the last revolution of the
    # run) equals a fixed run's of the same length
    (adaptive,) = simulate_batch([CASES["c02"]])
    k = adaptive.metrics["revolutions"]
    (fixed,) = simulate_batch([{**CASES["c02"], "t_end": k * T}])
    for name in ("peak_slider_accel_steady", "peak_contact_force_steady"):
        assert adaptive.metrics[name] == pytest.approx(fixed.metrics[name], rel=1e-3), name
    assert adaptive.metrics["peak_slider_accel"] == pytest.approx(
        fixed.metrics["peak_slider_accel"], rel=1e-9
    )


def test_run_up_ramp_kinematics() -> None:
    # angle, rate and acceleration of the ramp are consistent (finite differences), the
    # speed rises from 0 to omega with zero acceleration at both ends, and the ramp turns
    # omega * ramp / 2
    omega, ramp = 523.6, 0.048
    h = 1e-7
    for t in np.linspace(0.001, 0.06, 23):
        a0, r0, acc0 = driver_motion(omega, ramp, t)
        a1, r1, _ = driver_motion(omega, ramp, t + h)
        am, rm, _ = driver_motion(omega, ramp, t - h)
        assert (a1 - am) / (2 * h) == pytest.approx(r0, rel=1e-6)
        assert (r1 - rm) / (2 * h) == pytest.approx(acc0, rel=1e-5, abs=1e-3)
    assert driver_motion(omega, ramp, 0.0)[1:] == (0.0, 0.0)
    assert driver_motion(omega, ramp, ramp) == pytest.approx((omega * ramp / 2, omega, 0.0))
    assert driver_motion(omega, 0.0, 0.01) == (omega * 0.01, omega, 0.0)
    assert math.isclose(driver_motion(omega, ramp, ramp / 2)[1], omega / 2)


@pytest.mark.roundoff
def test_adaptive_series_are_bounded_and_in_time_order(results) -> None:
    # 1000 rpm, c = 0.02 mm: chaotic sliding on the wall, a run to the cap of 80 revolutions
    # whatever round-off does (a rattling case may be captured, and stop, at any revolution)
    r = results["low1000"]
    assert r.metrics["revolutions"] == 80  # the output ring wrapped many times
    t = r.series["t"]
    case = SliderCrankCase()
    per_rev = (case.n_output - 1) // 4  # 600
    # the first revolution and a ring of the last 32 revolutions, both ends
    assert len(t) == case.output_rows == per_rev * 33 + 1
    assert t[0] == 0.0 and np.all(np.diff(t) > 0)
    assert t[per_rev - 1] == pytest.approx(T1000 - T1000 / per_rev, rel=1e-9)  # the head
    assert t[per_rev] == pytest.approx(48 * T1000, rel=1e-9)  # the ring: 48 T ... 80 T
    assert t[-1] == pytest.approx(80 * T1000, rel=1e-9)
    # the poincare series are every revolution, not decimated
    assert len(r.series["poincare_time"]) == 81
    # the memory a case holds: its series' bytes (views of the batch's grid) under the
    # stated bound, 3.0 MB (core/cases.py: 19,801 rows x 19 series x 8 B, + the sections)
    held = sum(np.asarray(v).nbytes for v in r.series.values())
    assert held <= 19_801 * 19 * 8 + 81 * 3 * 8 + 1024 < 3.02e6


@pytest.mark.roundoff
def test_settled_spectra_resolve_f1_over_the_settled_revolutions(results) -> None:
    # issue 23: the spectrum over the N settled revolutions has bins f1/N apart (not f1/2),
    # the crank orders land on bins, and a periodic-1 motion has nothing between them
    f1 = 1.0 / T
    r = results["c02"]
    m = r.metrics
    n = m["revolutions"] - m["settled_after_revolutions"]
    assert n >= 5
    assert m["spectrum_revolutions"] == n
    assert m["spectrum_from_s"] == pytest.approx(m["settled_from_s"], rel=1e-12)
    assert m["spectrum_resolution_hz"] == pytest.approx(f1 / n, rel=1e-9)
    s = series_spectrum(r, "slider_acceleration", f1, t_start=m["spectrum_from_s"])
    freq, amp = s.spectrum.frequency_hz, s.spectrum.amplitude
    assert s.spectrum.bin_width_hz == pytest.approx(f1 / n, rel=1e-9)
    orders = np.arange(1, 41)
    np.testing.assert_allclose(freq[orders * n], orders * f1, rtol=1e-9)
    between = np.ones(freq.size, bool)
    between[:: n] = False
    between[40 * n :] = False
    assert amp[between].max() < 1e-3 * amp[orders * n].max()
    # an unsettled run (80 revolutions, window the last 40): the ring's last 32
    chaotic = results["low1000"].metrics
    assert chaotic["settled"] == 0 and chaotic["revolutions"] == 80
    assert chaotic["spectrum_revolutions"] == 32
    assert chaotic["spectrum_resolution_hz"] == pytest.approx(1.0 / T1000 / 32, rel=1e-9)


def test_starts_report_the_spread_between_starts() -> None:
    # the same case from the centred and the wall start, in one batch: the spread of the
    # settled peak and the flag "depends on how the machine starts"
    case = {"clearance_mm": 0.02, "max_revolutions": 16}
    main, alone = simulate_batch([{**case, "starts": "wall"}, {**case, "initial": "wall"}])
    m = main.metrics
    assert set(m) >= {"start_spread", "start_dependent", "peak_slider_accel_settled.wall",
                      "motion.wall"}
    # the wall run inside is the wall case run on its own
    assert m["peak_slider_accel_settled.wall"] == alone.metrics["peak_slider_accel_settled"]
    assert m["motion.wall"] == alone.metrics["motion"]
    peaks = [m["peak_slider_accel_settled"], m["peak_slider_accel_settled.wall"]]
    assert m["start_spread"] == pytest.approx((max(peaks) - min(peaks)) / np.mean(peaks))
    differs = m["start_spread"] > 0.05 or m["motion"] != m["motion.wall"]
    assert m["start_dependent"] == int(differs)
    # the extra start is not a case of its own
    assert "motion.centred" not in m


@pytest.mark.roundoff
def test_low_speed_chaos_is_sliding_on_the_wall_not_rattling(results) -> None:
    # The rattle map called every case at 1000-3000 rpm chaotic. At 1000 rpm, c = 0.02 mm
    # the journal rides the wall with no impact in the settled window and rocks irregularly
    # along it: the case must say it does not rattle (contact_mode), and the chaos is the
    # model's, not the friction law's tanh regularisation: frictionless it is chaotic too
    for key in ("low1000", "low1000_frictionless"):
        m = results[key].metrics
        assert m["motion"] == "chaotic" and m["chaos_indicator"] > 0.8, key
        assert m["impacts_settled"] == 0 and m["share_contact"] == 1.0, key
        assert m["contact_mode"] == "continuous contact", key
        assert m["section_jitter"] > 3e-3  # far above any integration noise


def test_low_speed_sliding_separates_two_nearby_stiffnesses() -> None:
    # ... nor the tolerance's: two runs 1e-8 apart in K at rtol 1e-10 separate by > 100x
    # within 8 revolutions of continuous contact (measured: 1e-5 c at revolution 4, 0.1 c
    # at 5-9)
    case = {"clearance_mm": 0.02, "speed_rpm": 1000}
    fine = {**case, "t_end": 12 * T1000, "rtol": 1e-10, "atol": 1e-13}
    a, b = simulate_batch([fine, {**fine, "stiffness_scale": 1 + 1e-8}])
    assert a.metrics["impacts_settled"] == 0  # revolutions 6-12: in contact throughout
    d = np.hypot(*(section(a, 0.02) - section(b, 0.02)).T)
    assert d[4] < 1e-3
    assert d[5:13].max() > 100 * d[4] and d[5:13].max() > 0.05


def test_contact_mode_names_the_settled_window_in_the_vocabulary():
    """An impact anywhere in the window makes it rattle; otherwise the larger share wins
    (a tie reads as contact: the journal never left the wall for longer)."""
    from gapsweep.core.settled import CONTACT_MODES, contact_mode

    modes = [contact_mode(1, 0.99, 0.01), contact_mode(0, 0.5, 0.5), contact_mode(0, 0.2, 0.8)]
    assert modes == ["impacting", "continuous contact", "free flight"]
    assert tuple(modes) == CONTACT_MODES


def test_contact_time_fraction_of_continuous_contact_is_one_and_no_more(monkeypatch) -> None:
    # c = 0.02 mm from the centred start settles into continuous contact: the journal
    # touches the bearing the whole last revolution, so its contact time fraction is 1 - but
    # a step across the section was counted whole in the revolution it ended (1.0001)
    from gapsweep.core import solver

    records = []
    add_settled = solver._add_settled

    def keep_record(result, job, record, m, clear_par):
        records.append(np.array(record, copy=True))
        return add_settled(result, job, record, m, clear_par)

    monkeypatch.setattr(solver, "_add_settled", keep_record)
    r = simulate_batch([CASES["c02"]])[0]
    assert r.ok, r.reason
    m = r.metrics
    assert m["contact_mode"] == "continuous contact" and m["impacts_settled"] == 0
    assert 0.0 <= m["contact_time_fraction_steady"] <= 1.0
    assert m["contact_time_fraction_steady"] == pytest.approx(1.0, abs=1e-9)
    # every revolution's times in the three states add up to its period, no more, no less
    (rec,) = records
    k = m["revolutions"]
    times = rec[1 : k + 1, R_FREE] + rec[1 : k + 1, R_IMPACT] + rec[1 : k + 1, R_CONTACT]
    np.testing.assert_allclose(times, T, rtol=1e-9)
