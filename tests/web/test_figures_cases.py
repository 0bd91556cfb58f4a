"""Figures fed with real solver output: spectra (overlay, waterfall), the case views and
compare. Three short slider-crank runs (two crank revolutions at 5000 rpm) and an ideal twin."""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.core.api import run_case
from gapsweep.core.spectra import amplitude_spectrum
from gapsweep.web.figures.case_views import (
    ENERGY_TERMS,
    case_figures,
    contact_force_figure,
    contact_state_figure,
    driving_torque_figure,
    energy_figure,
    orbit_figure,
    penetration_figure,
    slider_acceleration_figure,
    time_of,
)
from gapsweep.web.figures.compare import MAX_CASES, compare_figure, compare_figures, compare_labels
from gapsweep.web.figures.spectra import (
    HARMONICS_IN_VIEW,
    MAX_HARMONIC_MARKERS,
    case_label,
    default_band_hz,
    harmonic_frequencies,
    labelled_orders,
    spectra_figure,
    spectra_overlay_figure,
    spectra_waterfall_figure,
    spectrum_arrays,
    waterfall_figure,
)
from gapsweep.workers.series_policy import select_series

CLEARANCES_MM = (0.1, 0.02, 0.05)  # deliberately unsorted: the waterfall sorts
RPM = 5000.0
T_END = 0.024  # two revolutions


@pytest.fixture(scope="module")
def runs():
    """{clearance_mm: CaseResult}, plus the ideal twin under key None."""
    out = {c: run_case("slider-crank", {"clearance_mm": c, "t_end": T_END}) for c in CLEARANCES_MM}
    out[None] = run_case("slider-crank", {"clearance_mm": 0.05, "t_end": T_END, "ideal": True})
    assert all(r.status == "ok" for r in out.values()), [r.reason for r in out.values()]
    return out


def worker_spectrum(result) -> dict[str, np.ndarray]:
    """The spectra as the worker stores them, taken independently with amplitude_spectrum
    (rectangular window over whole revolutions: the repeated last sample dropped)."""
    t = result.series["t"][:-1]
    out = {}
    for name in ("slider_acceleration", "contact_normal_force"):
        s = amplitude_spectrum(t, result.series[name][:-1])
        out["freq_hz"], out[name] = s.frequency_hz, s.amplitude
    return out


@pytest.fixture(scope="module")
def spectra(runs):
    return [worker_spectrum(runs[c]) for c in CLEARANCES_MM]


# --- spectra -------------------------------------------------------------------------------


def test_overlay_one_trace_per_case_with_the_data_up_to_the_x_limit(spectra):
    labels = [case_label({"params": {"clearance_mm": c}}) for c in CLEARANCES_MM]
    fig = spectra_overlay_figure(spectra, labels, speed_rpm=RPM, f_max_hz=900.0)
    # each legend entry says where its peak is: a crank order when it sits on a harmonic
    for trace, label, s in zip(fig.data, labels, spectra, strict=True):
        f, a = s["freq_hz"], s["slider_acceleration"]
        band = (f > 0) & (f <= 900.0)
        f_dom = f[band][np.argmax(a[band])]
        n = round(f_dom / (RPM / 60))
        on_harmonic = abs(f_dom - n * RPM / 60) <= 0.5 * (f[1] - f[0])
        assert trace.name == (f"{label} · peak {n}×" if on_harmonic
                              else f"{label} · peak {f_dom:.4g} Hz")
    for trace, s in zip(fig.data, spectra, strict=True):
        keep = s["freq_hz"] <= 900.0
        np.testing.assert_array_equal(trace.x, s["freq_hz"][keep])
        np.testing.assert_array_equal(trace.y, s["slider_acceleration"][keep])
    assert tuple(fig.layout.xaxis.range) == (0.0, 900.0)
    assert fig.layout.xaxis.title.text == "Frequency [Hz]"
    assert fig.layout.yaxis.title.text == "Slider acceleration amplitude [m/s²]"


def test_harmonic_markers_at_n_times_rpm_over_60_and_only_below_the_x_limit(spectra):
    fig = spectra_overlay_figure(spectra, ["a", "b", "c"], speed_rpm=RPM, f_max_hz=900.0)
    xs = [s.x0 for s in fig.layout.shapes]
    np.testing.assert_allclose(xs, [n * RPM / 60 for n in range(1, 11)], rtol=1e-12)
    assert all(
        s.x1 == s.x0 and s.line.dash == "dot" and s.yref == "paper" for s in fig.layout.shapes
    )
    # 10 harmonics: 1x and every 2nd labelled, once for the figure (not once per case)
    orders = [a for a in fig.layout.annotations if a.name == "harmonic order"]
    assert [a.text for a in orders] == ["1×", "2×", "4×", "6×", "8×", "10×"]
    np.testing.assert_allclose([a.x for a in orders], [n * RPM / 60 for n in (1, 2, 4, 6, 8, 10)])
    assert len(spectra_overlay_figure(spectra, ["a", "b", "c"]).layout.shapes) == 0


def test_default_view_opens_on_the_40th_crank_harmonic_with_every_bin_kept(spectra):
    fig = spectra_overlay_figure(spectra, ["a", "b", "c"], speed_rpm=RPM)
    top = HARMONICS_IN_VIEW * RPM / 60  # 3333 Hz at 5000 rpm, not Nyquist's 50 kHz
    assert tuple(fig.layout.xaxis.range) == pytest.approx((0.0, top))
    for trace, s in zip(fig.data, spectra, strict=True):  # zooming out shows everything
        np.testing.assert_array_equal(trace.x, s["freq_hz"])
    assert len(fig.layout.shapes) == MAX_HARMONIC_MARKERS == 40
    orders = [a.text for a in fig.layout.annotations if a.name == "harmonic order"]
    assert orders == ["1×", "5×", "10×", "15×", "20×", "25×", "30×", "35×", "40×"]
    # labels sit right of their line (xanchor left): 1x does not straddle the y axis; the
    # one at the right edge (40x) left of it, not cut off
    assert [a.xanchor for a in fig.layout.annotations] == ["left"] * 8 + ["right"]
    assert all(a.yref == "paper" for a in fig.layout.annotations)
    # the subtitle states the band and the share of the energy in it, summed over cases
    energy = [np.where(s["freq_hz"] > 0, s["slider_acceleration"] ** 2, 0.0) for s in spectra]
    below = [e[s["freq_hz"] <= top].sum() for e, s in zip(energy, spectra, strict=True)]
    share = sum(below) / sum(e.sum() for e in energy)
    assert f"up to the 40th crank harmonic, {100 * share:.3g} % of the energy" in (
        fig.layout.title.text)
    assert 0.5 < share < 1.0  # most of it, not all: impacts spread the rest up to ~24 kHz
    # and the resolution: each stored spectrum's bin is f1/N over its N whole revolutions
    counts = sorted({round(RPM / 60 / (s["freq_hz"][1] - s["freq_hz"][0])) for s in spectra})
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    assert f"bins f1/N over N = {n} revolutions" in fig.layout.title.text


def test_log_x_spans_the_whole_spectrum_with_orders_evenly_spaced_in_log(spectra):
    fig = spectra_overlay_figure(spectra, ["a", "b", "c"], speed_rpm=RPM, log_x=True)
    f = spectra[0]["freq_hz"]
    assert fig.layout.xaxis.type == "log"
    assert tuple(fig.layout.xaxis.range) == pytest.approx((np.log10(f[1]), np.log10(f[-1])))
    assert all(np.min(t.x) > 0 for t in fig.data)  # 0 Hz has no place on a log axis
    orders = [a for a in fig.layout.annotations if a.name == "harmonic order"]
    assert [a.text for a in orders] == ["1×", "2×", "5×", "10×", "20×"]
    # annotation positions on a log axis are log10 of the frequency; shapes stay in Hz
    np.testing.assert_allclose([a.x for a in orders],
                               np.log10([n * RPM / 60 for n in (1, 2, 5, 10, 20)]))
    assert fig.layout.shapes[0].x0 == pytest.approx(RPM / 60)


def test_default_band_without_a_crank_speed_is_the_99_percent_energy_bandwidth(spectra):
    arrays = [(s["freq_hz"], s["contact_normal_force"]) for s in spectra]
    top, why = default_band_hz(arrays, None)
    f = spectra[0]["freq_hz"]
    e = sum(np.where(f > 0, a**2, 0.0) for _, a in arrays)
    cum = np.cumsum(e) / e.sum()
    assert cum[f == top][0] >= 0.99 > cum[np.flatnonzero(f == top)[0] - 1]
    assert why == "99 % energy bandwidth"


def test_harmonic_frequencies_edges():
    assert list(harmonic_frequencies(6000.0, 350.0)) == [100.0, 200.0, 300.0]
    assert list(harmonic_frequencies(6000.0, 300.0)) == [100.0, 200.0, 300.0]
    assert harmonic_frequencies(6000.0, 50.0).size == 0
    assert harmonic_frequencies(0.0, 1000.0).size == 0
    assert list(harmonic_frequencies(6000.0, 1e6, limit=2)) == [100.0, 200.0]


def test_order_labels_never_crowd():
    for count in range(1, 200):
        labels = labelled_orders(count)
        assert labels[0] == 1 and len(labels) <= 10 and labels[-1] <= count
        gaps = np.diff(labels)
        # evenly spaced after 1x; at least count/10 harmonics apart
        assert len(set(gaps[1:].tolist())) <= 1
        assert all(g >= count / 10 - 1 for g in gaps[1:])
    assert labelled_orders(0) == []


def test_spectrum_arrays_reads_the_stored_preview_form(runs):
    stored = select_series(runs[0.05], "preview", RPM / 60)
    freq, amp = spectrum_arrays(stored, "slider_acceleration")
    np.testing.assert_array_equal(freq, stored["spectrum_freq_hz"])
    np.testing.assert_array_equal(amp, stored["spectrum_slider_acceleration"])
    with pytest.raises(KeyError, match="penetration"):
        spectrum_arrays(stored, "penetration")


def test_waterfall_heatmap_rows_sorted_by_clearance(spectra):
    fig = spectra_waterfall_figure(spectra, CLEARANCES_MM, speed_rpm=RPM, f_max_hz=1000.0)
    (heat,) = fig.data
    assert list(heat.y) == [0.02, 0.05, 0.1]
    keep = spectra[0]["freq_hz"] <= 1000.0
    np.testing.assert_array_equal(heat.x, spectra[0]["freq_hz"][keep])
    z = np.asarray(heat.z)
    assert z.shape == (3, keep.sum())
    np.testing.assert_array_equal(z[0], spectra[1]["slider_acceleration"][keep])  # 0.02 mm
    np.testing.assert_array_equal(z[2], spectra[0]["slider_acceleration"][keep])  # 0.1 mm
    assert fig.layout.yaxis.title.text == "Clearance [mm]"
    assert fig.layout.xaxis.title.text == "Frequency [Hz]"
    assert len(fig.layout.shapes) == 12  # 83.3 Hz x 12 = 1000 Hz, the limit included
    assert tuple(fig.layout.xaxis.range) == (0.0, 1000.0)
    log = spectra_waterfall_figure(spectra, CLEARANCES_MM, log_amplitude=True, f_max_hz=1000.0)
    assert np.nanmax(np.asarray(log.data[0].z)) == pytest.approx(np.log10(z.max()))


# --- case views ----------------------------------------------------------------------------


def test_slider_acceleration_against_the_ideal_twin(runs):
    case, twin = runs[0.05].series, runs[None].series
    fig = slider_acceleration_figure(case, twin)
    assert [t.name for t in fig.data] == ["clearance joint", "ideal joint"]
    np.testing.assert_array_equal(fig.data[0].y, case["slider_acceleration"])
    np.testing.assert_array_equal(fig.data[1].y, twin["slider_acceleration"])
    np.testing.assert_array_equal(fig.data[1].x, twin["t"])
    assert fig.data[1].line.dash == "dash"
    assert fig.layout.xaxis.title.text == "Time [s]"
    assert fig.layout.yaxis.title.text == "Slider acceleration [m/s²]"
    assert len(slider_acceleration_figure(case).data) == 1


def test_penetration_in_micrometres_with_the_clearance_labelled_as_such(runs):
    series = runs[0.05].series
    fig = penetration_figure(series, 0.05)
    np.testing.assert_allclose(fig.data[0].y, series["penetration"] * 1e6, rtol=1e-15)
    (hline,) = fig.layout.shapes
    assert hline.y0 == hline.y1 == pytest.approx(50.0)  # c = 0.05 mm = 50 µm
    assert fig.layout.yaxis.title.text == "Penetration [µm]"
    (note,) = fig.layout.annotations
    assert note.text.startswith("radial clearance c = 50 µm")
    assert np.max(fig.data[0].y) < hline.y0  # far below c, as the physics demands


def test_orbit_inside_the_clearance_circle_of_radius_c(runs):
    series = runs[0.05].series
    fig = orbit_figure(series, 0.05)
    np.testing.assert_array_equal(fig.data[0].x, series["eccentricity_x"])
    np.testing.assert_array_equal(fig.data[0].y, series["eccentricity_y"])
    (circle,) = fig.layout.shapes
    assert circle.type == "circle" and (circle.xref, circle.yref) == ("x", "y")
    c = 0.05e-3
    assert (circle.x1 - circle.x0) / 2 == pytest.approx(c)
    assert (circle.y1 - circle.y0) / 2 == pytest.approx(c)
    assert (circle.x0 + circle.x1, circle.y0 + circle.y1) == pytest.approx((0.0, 0.0))
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    assert fig.layout.xaxis.title.text == "Eccentricity x [m]"
    assert fig.layout.yaxis.title.text == "Eccentricity y [m]"
    # the whole orbit is in view: c plus the penetration
    r = np.hypot(series["eccentricity_x"], series["eccentricity_y"]).max()
    assert fig.layout.xaxis.range[1] >= r and fig.layout.yaxis.range[1] >= r


def test_energy_balance_has_each_term_and_the_residual(runs):
    series = runs[0.05].series
    fig = energy_figure(series)
    names = [t.name for t in fig.data]
    assert sorted(names[:-1]) == sorted([
        "Kinetic energy",
        "Potential energy",
        "Contact energy",
        "Damping dissipation",
        "Friction dissipation",
        "Driver work",
    ]) and names[-1] == "Energy residual"
    np.testing.assert_array_equal(fig.data[-1].y, series["energy_residual"])
    # three panels, each on its own scale: the large terms, the small ones, the residual
    panel = {t.name: t.yaxis for t in fig.data}
    assert {panel["Kinetic energy"], panel["Driver work"]} == {"y"}
    assert {panel["Contact energy"], panel["Damping dissipation"],
            panel["Friction dissipation"]} == {"y2"}
    assert panel["Energy residual"] == "y3"
    assert fig.layout.yaxis.title.text == "Energy [J]"
    assert fig.layout.yaxis2.title.text == "Small terms [J]"
    assert fig.layout.yaxis3.title.text == "Energy residual [J]"
    # each small term is below 2 % of the largest; each large one is not
    top = max(np.abs(series[n]).max() for n in ENERGY_TERMS)
    for trace in fig.data[:-1]:
        share = np.abs(trace.y).max() / top
        assert (share < 0.02) == (trace.yaxis == "y2"), (trace.name, share)


def test_forces_torque_and_contact_state(runs):
    series = runs[0.05].series
    force = contact_force_figure(series)
    assert [t.name for t in force.data] == ["Contact normal force", "Contact tangential force"]
    np.testing.assert_array_equal(force.data[1].y, series["contact_tangential_force"])
    assert force.layout.yaxis.title.text == "Contact force [N]"
    torque = driving_torque_figure(series)
    np.testing.assert_array_equal(torque.data[0].y, series["driving_torque"])
    assert torque.layout.yaxis.title.text == "Driving torque [N m]"
    state = contact_state_figure(series)
    assert state.data[0].line.shape == "hv"
    assert set(np.unique(state.data[0].y)) <= {0.0, 1.0}
    assert state.layout.yaxis.title.text == "Contact state [–]"


def test_case_views_use_each_series_own_time_base_in_a_preview(runs):
    preview = select_series(runs[0.05], "preview", RPM / 60)
    fig = penetration_figure(preview, 0.05)
    np.testing.assert_array_equal(fig.data[0].x, preview["t:penetration"])
    np.testing.assert_allclose(fig.data[0].y, preview["penetration"] * 1e6, rtol=1e-15)
    assert len(fig.data[0].x) < len(runs[0.05].series["t"])
    np.testing.assert_array_equal(time_of(runs[0.05].series, "penetration"), runs[0.05].series["t"])


# --- compare -------------------------------------------------------------------------------


def test_compare_overlays_the_cases_for_a_chosen_series(runs):
    cases = [runs[c].series for c in CLEARANCES_MM]
    fig = compare_figure(cases, ["A", "B", "C"], "contact_normal_force")
    assert [t.name for t in fig.data] == ["A", "B", "C"]
    for trace, s in zip(fig.data, cases, strict=True):
        np.testing.assert_array_equal(trace.y, s["contact_normal_force"])
    assert fig.layout.yaxis.title.text == "Contact normal force [N]"
    assert fig.layout.xaxis.title.text == "Time [s]"


def test_compare_refuses_more_than_six_cases(runs):
    s = runs[0.05].series
    with pytest.raises(ValueError, match="1 to 6"):
        compare_figure([s] * (MAX_CASES + 1), ["x"] * (MAX_CASES + 1))
    with pytest.raises(ValueError):
        compare_figure([], [])


# --- the pages' entry points ---------------------------------------------------------------


def test_case_figures_gives_every_view_and_none_of_the_joint_for_an_ideal_case(runs):
    figs = case_figures(
        runs[0.05].series, params={"clearance_mm": 0.05}, twin_series=runs[None].series
    )
    assert list(figs) == [
        "acceleration",
        "contact_force",
        "penetration",
        "orbit",
        "energy",
        "driving_torque",
        "contact_state",
    ]
    assert len(figs["acceleration"].data) == 2
    assert figs["orbit"].layout.shapes[0].x1 == pytest.approx(5e-5)
    ideal = case_figures(runs[None].series, params={"clearance_mm": 0.05, "ideal": True})
    assert list(ideal) == ["acceleration", "energy", "driving_torque"]
    unknown_c = case_figures(runs[0.05].series, params={})
    assert "orbit" not in unknown_c and len(unknown_c["penetration"].layout.shapes) == 0


def test_spectra_and_waterfall_of_cases_carrying_their_spectrum(spectra):
    cases = [
        {
            "id": i,
            "params": {"clearance_mm": c, "stiffness_scale": 1.0},
            "spectrum": {"freq_hz": s["freq_hz"], "amplitude": s["contact_normal_force"]},
        }
        for i, (c, s) in enumerate(zip(CLEARANCES_MM, spectra, strict=True))
    ]
    fig = spectra_figure(
        cases, signal="contact_normal_force", axis="clearance_mm", speed_rpm=RPM, f_max_hz=500.0
    )
    assert [t.name.split(" · ")[0] for t in fig.data] == [
        "c = 0.1 mm", "c = 0.02 mm", "c = 0.05 mm"]
    np.testing.assert_array_equal(
        fig.data[1].y, spectra[1]["contact_normal_force"][spectra[1]["freq_hz"] <= 500.0]
    )
    assert len(fig.layout.shapes) == 6  # 83.3 ... 500 Hz
    water = waterfall_figure(cases, signal="contact_normal_force", axis="clearance_mm")
    assert list(water.data[0].y) == [0.02, 0.05, 0.1]
    assert water.layout.yaxis.title.text == "Clearance [mm]"


def test_compare_figures_label_cases_by_the_parameters_that_differ(runs):
    series = {7: runs[0.02].series, 9: runs[0.1].series}
    details = {
        7: {"params": {"clearance_mm": 0.02, "stiffness_scale": 1.0}},
        9: {"params": {"clearance_mm": 0.1, "stiffness_scale": 1.0}},
    }
    figs = compare_figures(series, details)
    assert list(figs) == [
        "slider_acceleration",
        "contact_normal_force",
        "penetration",
        "driving_torque",
    ]
    assert [t.name for t in figs["penetration"].data] == [
        "case 7: c = 0.02 mm",
        "case 9: c = 0.1 mm",
    ]
    assert compare_labels({3: {"params": {"stiffness_scale": 0.7}}}) == {
        3: "case 3: stiffness ×0.7"
    }
    assert compare_figures({}, {}) == {}


def test_orbit_points_pair_x_and_y_of_one_instant():
    from gapsweep.web.figures.case_views import orbit_points

    # a journal running round the circle of radius c, each component kept at its own 300 of
    # 2401 instants (as an older preview stored them)
    c, w = 5e-5, 2 * np.pi / 0.012
    grid = np.linspace(0.0, 0.024, 2401)
    rng = np.random.default_rng(7)
    tx, ty = (np.sort(rng.choice(grid, 300, replace=False)) for _ in range(2))
    series = {"eccentricity_x": c * np.cos(w * tx), "t:eccentricity_x": tx,
              "eccentricity_y": c * np.sin(w * ty), "t:eccentricity_y": ty}
    # x[i] with y[i] as stored: two instants, points far off the circle
    assert np.hypot(series["eccentricity_x"], series["eccentricity_y"]).max() > 1.2 * c
    x, y = orbit_points(series)
    t = np.union1d(tx, ty)
    assert x.shape == y.shape == t.shape
    # exact where each component is stored; in between, a chord of a 1/20-revolution arc at
    # most (linear interpolation): on the circle to 1 %
    np.testing.assert_array_equal(x[np.isin(t, tx)], series["eccentricity_x"])
    np.testing.assert_array_equal(y[np.isin(t, ty)], series["eccentricity_y"])
    np.testing.assert_allclose(np.hypot(x, y), c, rtol=0.01)
    # the figure draws these points; a shared time base is used as stored
    np.testing.assert_array_equal(orbit_figure(series, 0.05).data[0].x, x)
    shared = {**series, "eccentricity_y": c * np.sin(w * tx), "t:eccentricity_y": tx}
    assert orbit_points(shared)[1] is shared["eccentricity_y"]


def test_a_stretch_the_series_does_not_store_breaks_the_line_and_is_marked():
    """Issue 35.6: a long run stores its first revolution and its last ones; the line must
    not join them with a straight segment that reads as a constant acceleration."""
    from gapsweep.web.figures.case_views import slider_acceleration_figure

    t = np.r_[np.linspace(0.0, 0.012, 121), np.linspace(0.3, 0.312, 121)]  # 1 rev, gap, 1 rev
    a = np.sin(2 * np.pi * t / 0.012)
    fig = slider_acceleration_figure({"t": t, "slider_acceleration": a})
    (trace,) = fig.data
    y = np.asarray(trace.y, dtype=float)
    x = np.asarray(trace.x, dtype=float)
    assert y.size == a.size + 1 and np.isnan(y).sum() == 1
    k = int(np.flatnonzero(np.isnan(y))[0])
    assert x[k - 1] == 0.012 and x[k + 1] == 0.3  # the break is exactly across the gap
    assert np.array_equal(y[~np.isnan(y)], a)  # every stored sample drawn as stored
    (band,) = [s for s in fig.layout.shapes if s.type == "rect"]
    assert (band.x0, band.x1) == (0.012, 0.3)
    assert any(an.text == "not stored" for an in fig.layout.annotations)
    # a series without a gap is drawn as it is (no NaN, no band)
    whole = slider_acceleration_figure({"t": t[:121], "slider_acceleration": a[:121]})
    assert np.array_equal(np.asarray(whole.data[0].y, dtype=float), a[:121])
    assert not [s for s in whole.layout.shapes if s.type == "rect"]
