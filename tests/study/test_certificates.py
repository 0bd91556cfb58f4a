"""Which cases a finished study refines, how, and what the refinements say
(``gapsweep.study.certificates``); how a certificate row names its source and refinement
is tests/db/test_db_case_kinds.py's."""

from __future__ import annotations

import math

import pytest
from gapsweep.study.certificates import (
    NUMERIC_TOLERANCE,
    STIFFNESS_TOLERANCE,
    certificate_report,
    plan_certificates,
    select_sources,
)

MODEL = "slider-crank"


def case(i, clearance, peak, status="done", **params):
    return {"id": 100 + i, "status": status,
            "params": {"clearance_mm": clearance, **params},
            "metrics": {"peak_slider_accel": peak, "max_penetration": 1e-5 * peak / 100,
                        "peak_contact_force": peak / 7} if status == "done" else None}


def test_sources_are_the_largest_peak_and_the_smallest_clearance():
    cases = [case(0, 0.05, 150.0), case(1, 0.02, 110.0), case(2, 0.1, 190.0),
             case(3, 0.01, 999.0, status="failed")]  # a failed case is never a source
    sources = select_sources(MODEL, cases)
    assert [(s.index, s.roles, s.case_id) for s in sources] == [
        (1, ("smallest clearance",), 101), (2, ("largest peak",), 102)]


def test_one_source_when_they_coincide_and_ties_take_the_larger_peak():
    cases = [case(0, 0.02, 100.0), case(1, 0.02, 120.0), case(2, 0.05, 110.0)]
    sources = select_sources(MODEL, cases)
    assert [(s.index, s.roles) for s in sources] == [
        (1, ("largest peak", "smallest clearance"))]
    # a case without clearance_mm has the model's default (0.5 mm): the largest here
    assert [s.index for s in select_sources(MODEL, [case(0, 0.05, 1.0),
                                                    {**case(1, 0, 2.0), "params": {}}])] == [0, 1]
    assert select_sources(MODEL, [case(0, 0.05, 1.0, status="failed")]) == []


def test_plan_refines_each_source_four_ways_from_its_effective_values():
    cases = [case(0, 0.02, 100.0, stiffness_scale=1.3), case(1, 0.1, 200.0, rtol=1e-5,
                                                              n_output=101)]
    plan = plan_certificates(MODEL, "grid", cases)
    assert [(c.source_index, c.slot) for c in plan] == [(0, s) for s in range(4)] + [
        (1, s) for s in range(4)]
    changed = [{k: v for k, v in c.params.items() if cases[c.source_index]["params"].get(k) != v}
               for c in plan]
    assert changed[:4] == [{"rtol": pytest.approx(1e-7)}, {"n_output": 4801},
                           {"stiffness_scale": pytest.approx(2.6)},
                           {"stiffness_scale": pytest.approx(5.2)}]
    assert changed[4:] == [{"rtol": pytest.approx(1e-6)}, {"n_output": 201},
                           {"stiffness_scale": pytest.approx(2.0)},
                           {"stiffness_scale": pytest.approx(4.0)}]


def test_plan_skips_what_does_not_apply():
    assert plan_certificates(MODEL, "convergence", [case(0, 0.05, 1.0)]) == []
    # an ideal-joint case has no contact to stiffen; rtol at its floor (1e-13) cannot drop
    plan = plan_certificates(MODEL, "grid", [case(0, 0.05, 1.0, ideal=True, rtol=1e-13)])
    assert [c.slot for c in plan] == [1]


def certificates_for(source, peaks):
    """Certificates of ``source`` with the given headline peaks per slot 0..3."""
    factors = {0: ("rtol", 1e-7), 1: ("n_output", 4801), 2: ("stiffness_scale", 2.0),
               3: ("stiffness_scale", 4.0)}
    out = []
    for slot, peak in peaks.items():
        name, value = factors[slot]
        out.append({"id": 900 + slot, "source_id": source["id"], "slot": slot,
                    "status": "done" if peak is not None else "queued",
                    "params": {**source["params"], name: value},
                    "metrics": None if peak is None else {
                        "peak_slider_accel": peak, "max_penetration": 1e-5,
                        "peak_contact_force": peak / 7}})
    return out


def test_verdict_reads_the_relative_change_of_the_whole_run_peak():
    src = case(0, 0.02, 100.0)
    certs = certificates_for(src, {0: 100.5, 1: 100.0, 2: 120.0, 3: 144.0})
    report = certificate_report(MODEL, [src], certs)
    assert report["metric"] == "peak_slider_accel" and report["numerics_converged"] is True
    ladders = {lad["ladder"]: lad for lad in report["sources"][0]["ladders"]}
    tol, out, stiff = ladders["tolerance"], ladders["output step"], ladders["contact stiffness"]
    assert tol["change"] == pytest.approx(0.5 / 100.5) and tol["converged"] is True
    assert tol["tolerance"] == NUMERIC_TOLERANCE
    assert [s["level"] for s in tol["steps"]] == pytest.approx([1e-6, 1e-7])
    assert out["change"] == 0.0 and out["converged"] is True
    # a run until settled (no t_end): (n_output - 1) / 4 samples a revolution of 0.012 s
    assert [s["level"] for s in out["steps"]] == pytest.approx([0.012 / 600, 0.012 / 1200])
    # the stiffness ladder judges its last step, 2K -> 4K, against seed 002's 5 %
    assert stiff["tolerance"] == STIFFNESS_TOLERANCE
    assert stiff["change"] == pytest.approx(24.0 / 144.0) and stiff["converged"] is False
    assert stiff["stiffness_exponent"] == pytest.approx(math.log(1.2) / math.log(2.0))
    assert [s["changes"]["peak_slider_accel"] for s in stiff["steps"]] == pytest.approx(
        [0.0, 0.2, 0.44])
    # the table's column: each step against the one before, the verdict's own reference
    steps = [s["step_changes"]["peak_slider_accel"] for s in stiff["steps"]]
    assert steps == pytest.approx([0.0, 20.0 / 120.0, 24.0 / 144.0])
    assert steps[-1] == pytest.approx(stiff["change"])
    assert "converged within 1 %" in tol["verdict"]
    # a sensitivity to a modelling input, with its exponent, not a failed convergence
    assert stiff["verdict"].startswith("sensitive to the contact stiffness, a modelling input")
    assert "converged" not in stiff["verdict"] and "peak ∝ K^0.26" in stiff["verdict"]
    assert report["verdict"].startswith("Numerics converged within 1 %")

    # 2 % under rtol / 10 is a numerical error the study must not hide
    report = certificate_report(MODEL, [src], certificates_for(src, {0: 102.0, 1: 100.0}))
    assert report["numerics_converged"] is False
    assert report["verdict"].startswith("Numerics NOT converged")


def test_no_verdict_until_every_run_is_in():
    src = case(0, 0.02, 100.0)
    report = certificate_report(MODEL, [src], certificates_for(src, {0: 100.0, 1: None}))
    assert report["numerics_converged"] is None
    assert report["counts"] == {"done": 1, "queued": 1}
    ladder = report["sources"][0]["ladders"][1]
    assert ladder["converged"] is None and ladder["verdict"] == "waiting for the refined runs"
    assert certificate_report(MODEL, [src], [])["sources"] == []


def settled_run(run, settled_peak, motion, settled=1):
    """``run`` (a case or a certificate) with settled metrics added."""
    return {**run, "metrics": {**run["metrics"], "peak_slider_accel_settled": settled_peak,
                               "motion": motion, "settled": settled}}


def test_settled_peak_is_judged_only_where_every_run_settles_to_one_motion():
    # the headline is the settled peak (issue 23); the study is judged on it only when, in
    # every ladder, the source and its refinements settled to the same motion (design.md
    # 1.3: under chaos a round-off change decides the capture, so the settled windows are
    # different motions). One judged metric per study (issue 35): the verdict, the table and
    # the chart all read the same one, never a mix of ladders.
    src = settled_run(case(0, 0.1, 100.0), 50.0, "periodic-2")
    certs = certificates_for(src, {0: 100.0 * (1 + 1e-7), 1: 100.0, 2: 120.0, 3: 144.0})
    alike = [settled_run(certs[0], 50.2, "periodic-2"),
             settled_run(certs[1], 50.0, "periodic-2"),
             settled_run(certs[2], 51.0, "periodic-2"),
             settled_run(certs[3], 51.5, "periodic-2")]
    report = certificate_report(MODEL, [src], alike)
    assert report["metric"] == report["headline"] == "peak_slider_accel_settled"
    assert report["metric_reason"] is None
    ladders = {lad["ladder"]: lad for lad in report["sources"][0]["ladders"]}
    assert {lad["metric"] for lad in ladders.values()} == {"peak_slider_accel_settled"}
    assert ladders["tolerance"]["change"] == pytest.approx(0.2 / 50.2)
    assert ladders["contact stiffness"]["change"] == pytest.approx(0.5 / 51.5)
    assert report["verdict"].startswith(
        "Numerics converged within 1 % on the settled peak slider acceleration (largest")
    assert report["metric_statement"].startswith(
        "Judged metric: Peak slider acceleration, settled [m/s²] (the study's headline")

    # rtol / 10 is not captured (chaotic): every ladder of the study, the settled ones too,
    # is read on the whole-run peak (38 % on the settled peak would be the chaos, not the
    # numerics), and the report says why once
    mixed = [settled_run(certs[0], 80.0, "chaotic", settled=0), *alike[1:]]
    report = certificate_report(MODEL, [src], mixed)
    assert report["metric"] == "peak_slider_accel" and report["headline"] != report["metric"]
    ladders = {lad["ladder"]: lad for lad in report["sources"][0]["ladders"]}
    assert {lad["metric"] for lad in ladders.values()} == {"peak_slider_accel"}
    tol, out, stiff = ladders["tolerance"], ladders["output step"], ladders["contact stiffness"]
    assert tol["change"] == pytest.approx(1e-7, rel=1e-6) and tol["converged"] is True
    assert out["change"] == 0.0
    assert stiff["change"] == pytest.approx(24.0 / 144.0)  # the whole-run peaks' 2K -> 4K
    assert report["numerics_converged"] is True
    assert "do not all settle to one motion (chaotic, periodic-2)" in report["metric_reason"]
    assert report["verdict"].startswith(
        "Numerics converged within 1 % on the whole-run peak slider acceleration (the refined "
        "runs do not all settle to one motion (chaotic, periodic-2)")
    assert report["metric_statement"].startswith(
        "Judged metric: Peak slider acceleration [m/s²], not the study's headline Peak slider "
        "acceleration, settled [m/s²]: the refined runs do not all settle")
    # a source that never settled (chaotic to the cap) is read on the whole-run peak alone
    src = settled_run(case(0, 0.1, 100.0), 50.0, "chaotic", settled=0)
    certs = [settled_run(c, 70.0, "chaotic", settled=0)
             for c in certificates_for(src, {0: 100.0, 1: 100.0})]
    report = certificate_report(MODEL, [src], certs)
    assert {lad["metric"] for lad in report["sources"][0]["ladders"]} == {"peak_slider_accel"}
    assert report["verdict"].startswith(
        "Numerics converged within 1 % on the whole-run peak slider acceleration (the refined")


def test_a_mechanism_study_is_judged_on_its_first_measure():
    # the headline of a described mechanism is its first measure's settled peak (the model
    # registry's default metric, design.md 4.7), in the table's order, not the name order
    table = {"measures": {"rocker_alpha": {"body": "rocker", "quantity": "acceleration",
                                           "component": "angle"},
                          "a_coupler": {"body": "coupler", "quantity": "velocity",
                                        "component": "x"}},
             "joints": {"pin": {"clearance_mm": 0.1}}}

    def run(i, peak, settled_peak, motion, **extra):
        return {"id": 100 + i, "status": "done", "params": {"mechanism": table, **extra},
                "metrics": {"peak_rocker_alpha": peak, "peak_rocker_alpha_settled": settled_peak,
                            "peak_a_coupler_settled": 1e9, "peak_contact_force": 1.0,
                            "max_penetration": 1e-6, "settled": 1, "motion": motion}}

    src = run(0, 900.0, 400.0, "periodic-1")
    certs = [{**run(1, 900.0, 400.4, "periodic-1", rtol=1e-7), "source_id": 100, "slot": 0}]
    report = certificate_report("mechanism", [src], certs)
    assert report["metric"] == "peak_rocker_alpha_settled"
    assert report["metric_statement"].startswith(
        "Judged metric: Peak rocker alpha, settled [rad/s²]")
    steps = report["sources"][0]["ladders"][0]["steps"]
    assert [s["metrics"]["peak_rocker_alpha_settled"] for s in steps] == [400.0, 400.4]
    assert report["sources"][0]["ladders"][0]["change"] == pytest.approx(0.4 / 400.4)
    assert report["verdict"].startswith("Numerics converged within 1 % on the settled peak "
                                        "rocker alpha")
