"""Issue 19 in a real browser (chromium through Playwright) against ``gapsweep serve`` with
its local worker (one server for the module, its own port and data folder).

Reads what each change shows: the Convergence tab's certificate values (equal to the API's),
its verdict; the Spectra tab's default x range (up to the 40th crank harmonic), its harmonic
order labels (once, every 5th), its log-x switch; the Cancel/Retry buttons' disabled state
on a queued study, a running one (then cancelled from the page), a finished clean one and a
finished one with a failed case - the last two seen change as the poll reports progress.
"""

from __future__ import annotations

import math
import time

import pytest
import test_browser as tb
from support.api import api_request, wait_done
from test_browser import STUDY_S, shot, wait_status

# the browser module's fixtures, instantiated for this module: its own server (module scope)
server, browser, page = tb.server, tb.browser, tb.page

pytestmark = pytest.mark.timeout(600)
RPM = 5000.0
F1 = RPM / 60.0
POISON_SCALE = 1e-9  # the solver's final verdict within a millisecond: "penetration exceeded"


def submit(server, spec: dict) -> int:
    status, body = api_request(server["base"] + "/api/studies", body=spec)
    assert status == 201, body
    return int(body["id"])


def certified(detail: dict) -> bool:
    certs = detail.get("certificates") or []
    return detail["status"] == "done" and bool(certs) and all(
        c["status"] in ("done", "failed") for c in certs)


def plot(page, graph_css: str, ready: str = "el.data && el.data.length > 0") -> dict:
    """The figure inside ``graph_css`` as Plotly holds it: traces (decoded), x axis,
    annotations and the count of shapes."""
    page.wait_for_function(
        f"""() => {{ const el = document.querySelector('{graph_css} .js-plotly-plot');
                     return el && ({ready}); }}""")
    return page.evaluate(
        f"""() => {{ const el = document.querySelector('{graph_css} .js-plotly-plot');
             return {{data: el._fullData.map(t => ({{name: t.name, x: Array.from(t.x || []),
                        y: Array.from(t.y || []),
                        customdata: Array.from(t.customdata || []).map(r => Array.from(r))}})),
                     xaxis: {{range: el._fullLayout.xaxis.range, type: el._fullLayout.xaxis.type}},
                     annotations: (el.layout.annotations || []).map(a => ({{text: a.text,
                        name: a.name, x: a.x}})),
                     shapes: (el.layout.shapes || []).length,
                     title: (el.layout.title || {{}}).text || ''}}; }}""")


def buttons(page) -> tuple[bool, bool]:
    """(Cancel disabled, Retry disabled) as the page shows them."""
    return page.is_disabled("#study-cancel"), page.is_disabled("#study-retry")


def wait_buttons(page, wanted: tuple[bool, bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while buttons(page) != wanted:
        assert time.monotonic() < deadline, f"buttons {buttons(page)}, wanted {wanted}"
        page.wait_for_timeout(300)


def test_finished_study_certificates_spectra_and_buttons(server, page):
    study_id = submit(server, {
        "name": "certificates in the browser", "ideal_twin": True, "series": "preview",
        "base": {"speed_rpm": RPM},
        "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1]}},
    })
    detail = wait_done(server["base"], study_id, until=certified, timeout_s=STUDY_S)
    # 3 cases, one twin; certificates apart: the largest settled peak (the headline, issue 23)
    # and (0.02 mm) the smallest c
    assert detail["counts"]["total"] == 3 and len(detail["cases"]) == 3
    assert len(detail["twins"]) == 1 and len(detail["certificates"]) == 8
    assert all(c["status"] == "done" for c in detail["certificates"])

    page.goto(f"{server['base']}/studies/{study_id}")
    assert wait_status(page, {"done"}, 30) == "done"
    assert buttons(page) == (True, True)  # nothing queued or running, nothing failed

    page.get_by_role("tab", name="Convergence").click()
    fig = plot(page, "#certificate-graph", "el.data && el.data.length == 2")
    assert fig["data"][0]["x"] == ["as run", "rtol ÷ 10", "output step ÷ 2", "K × 2", "K × 4"]
    by_source: dict[int, dict[int, dict]] = {}
    for cert in detail["certificates"]:
        by_source.setdefault(cert["source_id"], {})[cert["slot"]] = cert
    cases = {c["id"]: c for c in detail["cases"]}
    peaks = {cid: c["metrics"]["peak_slider_accel_settled"] for cid, c in cases.items()}
    # one judged metric for the study (issue 35): the settled peak where every refined run
    # settles to its source's motion, else the whole-run peak, in the chart as in the verdict
    from gapsweep.study.certificates import certificate_report

    judged = certificate_report("slider-crank", detail["cases"], detail["certificates"])[
        "metric"]
    assert judged in ("peak_slider_accel_settled", "peak_slider_accel")
    assert set(by_source) == {max(peaks, key=peaks.get), detail["cases"][0]["id"]}
    for trace in fig["data"]:
        source_id = trace["customdata"][0][0]
        runs = by_source[source_id]
        want = [cases[source_id]["metrics"][judged]] + [
            runs[k]["metrics"][judged] for k in range(4)]
        assert trace["y"] == pytest.approx(want, rel=1e-12)  # the API's numbers
        assert [r[0] for r in trace["customdata"]] == [source_id] + [runs[k]["id"]
                                                                    for k in range(4)]
        # the change the hover shows, in %, from the same numbers
        assert trace["customdata"][1][1] == pytest.approx(100 * abs(want[1] / want[0] - 1),
                                                          rel=1e-6, abs=1e-12)
    verdict = page.inner_text("#certificate-verdict")
    assert verdict.startswith("Numerics converged within 1 %"), verdict
    span = "settled" if judged.endswith("_settled") else "whole-run"
    assert verdict.startswith(f"Numerics converged within 1 % on the {span} peak slider "
                              "acceleration"), verdict
    stated = page.inner_text("#certificate-metric")
    assert stated.split(" [")[0] == "Judged metric: Peak slider acceleration" + (
        ", settled" if span == "settled" else ""), stated
    assert "Certificates: 8 of 8 done" in page.inner_text("#certificate-progress")
    shot(page, "study-certificates")

    page.get_by_role("tab", name="Spectra").click()
    fig = plot(page, "#spectra-graph", "el.data && el.data.length == 3")
    assert fig["xaxis"]["type"] == "linear"
    assert fig["xaxis"]["range"] == pytest.approx([0.0, 40 * F1])  # 3333 Hz, not 50 kHz
    orders = [a for a in fig["annotations"] if a["name"] == "harmonic order"]
    assert [a["text"] for a in orders] == ["1×", "5×", "10×", "15×", "20×", "25×", "30×",
                                           "35×", "40×"]  # once, not once per case
    assert [a["x"] for a in orders] == pytest.approx([n * F1 for n in (1, *range(5, 41, 5))])
    assert fig["shapes"] == 40
    assert sum(a["text"].endswith("Hz") for a in fig["annotations"]) == 0
    shot(page, "study-spectra")
    page.get_by_label("log x (the whole spectrum)").check()
    fig = plot(page, "#spectra-graph", "el._fullLayout.xaxis.type == 'log'")
    # the whole spectra: from the finest first bin (f1/N over the N revolutions a case's
    # spectrum covers - the settled window's, issue 23; c = 0.1 mm's N is 6 when captured,
    # 32 when it stays chaotic to the cap, as round-off decides) to the Nyquist frequency, as the
    # API stores them
    freqs = [api_request(f"{server['base']}/api/cases/{c['id']}/series"
                  "?names=spectrum_freq_hz")[1]["spectrum_freq_hz"] for c in detail["cases"]]
    first = min(freq[1] for freq in freqs)
    assert fig["xaxis"]["range"] == pytest.approx([math.log10(first),
                                                   math.log10(max(f[-1] for f in freqs))])
    assert all(F1 / f[1] == pytest.approx(round(F1 / f[1]), rel=1e-6) for f in freqs)  # whole Ns
    orders = [a for a in fig["annotations"] if a["name"] == "harmonic order"]
    assert [a["text"] for a in orders] == ["1×", "2×", "5×", "10×", "20×"]
    shot(page, "study-spectra-log")
    assert page.errors == []


def test_cancel_and_retry_follow_the_progress(server, page):
    long = submit(server, {  # keeps the one worker busy while the other waits its turn
        "name": "long sweep", "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1, "count": 20},
                 "friction": {"start": 0.0, "stop": 0.1, "count": 20}},
    })
    poisoned = submit(server, {
        "name": "one poison case", "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"values": [0.05]},
                 "stiffness_scale": {"values": [POISON_SCALE, 1.0]}},
    })
    page.goto(f"{server['base']}/studies/{poisoned}")
    page.wait_for_selector("#study-status")
    assert page.inner_text("#study-status").strip() == "queued"
    assert buttons(page) == (False, True)  # something queued; nothing failed yet

    other = page.context.new_page()
    other.goto(f"{server['base']}/studies/{long}")
    wait_status(other, {"running"}, STUDY_S)
    assert buttons(other) == (False, True)  # running, nothing failed
    other.once("dialog", lambda d: d.accept())
    other.click("#study-cancel")
    other.wait_for_selector("#study-action-message:has-text('Cancelled')")
    wait_buttons(other, (True, True))  # cancelled: nothing more to cancel
    other.close()

    # the poisoned study runs once the long one's remaining messages are skipped: the page
    # sees it finish with one failure - Cancel off, Retry on
    assert wait_status(page, {"done"}, STUDY_S) == "done"
    wait_buttons(page, (True, False))
    detail = api_request(f"{server['base']}/api/studies/{poisoned}")[1]
    assert (detail["counts"]["failed"], detail["counts"]["done"]) == (1, 1)
    shot(page, "study-failed-retry")
    page.click("#study-retry")
    page.wait_for_selector("#study-action-message:has-text('Queued 1 failed')")
    assert wait_status(page, {"done"}, 60) == "done"  # the poison fails again at once
    wait_buttons(page, (True, False))
    assert page.errors == []
