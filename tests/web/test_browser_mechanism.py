"""The case page of a described mechanism (design.md 4.7) in Chromium: play the animation,
pause it, and read the frame Plotly shows - the crank pin at the driver angle of the frame's
time, the journal orbit drawn up to that time from the stored series."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import test_browser as tb
import tomllib
from browsers import wait_first_option
from support.api import api_request, wait_done

server, browser, page = tb.server, tb.browser, tb.page
pytestmark = pytest.mark.timeout(900)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_four_bar_crank_rocker.toml"

_FRAME = """() => {
  const el = document.querySelector('#case-mechanism-animation .js-plotly-plot');
  if (!el || !el._fullData) return null;
  const s = el._fullLayout.sliders[0];
  const joints = el._fullData.find(t => t.name === 'joints');
  const orbit = el._fullData.find(t => t.name === 'orbit rocker_pin');
  return {active: s.active, time: s.steps[s.active].args[0][0],
          text: Array.from(joints.text), x: Array.from(joints.x), y: Array.from(joints.y),
          ox: Array.from(orbit.x), oy: Array.from(orbit.y)};
}"""


def test_the_animation_plays_the_run_and_its_orbit(server, page):
    with open(EXAMPLE, "rb") as f:
        spec = tomllib.load(f)
    spec.update(name="browser animation", ideal_twin=False, series="full",
                axes={"joints.rocker_pin.clearance_mm": {"values": [0.1]}})
    status, body = api_request(server["base"] + "/api/studies", body=spec)
    assert status == 201, body
    study_id = body["id"]
    detail = wait_done(server["base"], study_id, timeout_s=tb.STUDY_S)
    assert detail["status"] == "done", detail.get("counts")
    case_id = detail["cases"][0]["id"]
    names = "t,eccentricity_x.rocker_pin,eccentricity_y.rocker_pin"
    stored = api_request(f"{server['base']}/api/cases/{case_id}/series?names={names}")[1]
    page.goto(f"{server['base']}/cases/{case_id}")
    page.wait_for_function(f"() => ({_FRAME})() !== null")
    first = page.evaluate(_FRAME)
    assert first["active"] == 0
    page.get_by_text("Play", exact=True).click()
    page.wait_for_function(f"() => ({_FRAME})().active >= 10")
    page.get_by_text("Pause", exact=True).click()
    frame = page.evaluate(_FRAME)
    t = float(frame["time"])
    omega = 600 * 2 * math.pi / 60
    k = frame["text"].index("crank_pin")
    # the frame's crank pin on the driver's circle at the frame's time (40 mm crank)
    assert math.hypot(frame["x"][k] - 40 * math.cos(omega * t),
                      frame["y"][k] - 40 * math.sin(omega * t)) < 0.1
    # the orbit drawn up to that time: the stored eccentricity [m] in µm
    ts = stored["t"]
    upto = max(i for i, v in enumerate(ts) if v <= t)
    assert len(frame["ox"]) == upto + 1
    assert frame["ox"][-1] == pytest.approx(stored["eccentricity_x.rocker_pin"][upto] * 1e6)
    assert frame["oy"][-1] == pytest.approx(stored["eccentricity_y.rocker_pin"][upto] * 1e6)


def _choose(page, dropdown_id: str, option_text: str) -> None:
    """Pick an option of a Dash dropdown (opened again if a click came before hydration)."""
    option = page.locator(".dash-dropdown-option", has_text=option_text).first
    for _ in range(3):
        page.click(f"#{dropdown_id}")
        try:
            option.wait_for(state="visible", timeout=3000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: open it again
            page.keyboard.press("Escape")
    option.click()


_PIN = """() => {
  const el = document.querySelector('#new-mechanism-drawing .js-plotly-plot');
  if (!el || !el._fullData) return null;
  const joints = el._fullData.find(t => t.name === 'joints');
  if (!joints) return null;
  const k = Array.from(joints.text).indexOf('rocker_pin (clearance)');
  return k < 0 ? null : [joints.x[k], joints.y[k]];
}"""


def test_pick_a_four_bar_and_edit_a_variable_redraws_it(server, page):
    page.goto(server["base"] + "/studies/new")
    _choose(page, "new-model", "mechanism")
    _choose(page, "new-mechanism-library", "Crank-rocker")
    page.wait_for_function(f"() => ({_PIN})() !== null")
    before = page.evaluate(_PIN)
    d, a, b, c = 100.0, 40.0, 120.0, 80.0
    x = ((d - a) ** 2 + b * b - c * c) / (2 * (d - a))
    assert before == pytest.approx([a + x, (b * b - x * x) ** 0.5])
    # the coupler 120 -> 125 mm: the rocker pin moves to the new closed-form position
    cell = page.locator("#new-mechanism-variables td[data-dash-column='value']").nth(2)
    cell.click()
    page.keyboard.type("125")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => {{ const p = ({_PIN})(); return p && p[0] !== {before[0]}; }}")
    after = page.evaluate(_PIN)
    b = 125.0
    x = ((d - a) ** 2 + b * b - c * c) / (2 * (d - a))
    assert after == pytest.approx([a + x, (b * b - x * x) ** 0.5])


_SECTION = """() => {
  const el = document.querySelector('#case-motion-graph-poincare .js-plotly-plot');
  if (!el || !el._fullData) return null;
  return el._fullData.filter(t => t.meta).map(t => ({joint: t.meta, x: Array.from(t.x),
                                                     y: Array.from(t.y)}));
}"""


def test_submit_a_mechanism_study_from_the_form_and_read_each_joint_on_its_case(server, page):
    # pick the two-clearance slider-crank, sweep its crank-pin clearance, submit: the study
    # runs to done on the server's own workers and its case page shows each joint's section
    base = server["base"]
    page.goto(base + "/studies/new")
    _choose(page, "new-model", "mechanism")
    _choose(page, "new-mechanism-library", "two clearance joints")
    page.wait_for_selector("#new-mechanism-drawing .js-plotly-plot")
    page.fill("#new-name", "browser mechanism submit")
    # the preset's second axis (a slider-crank name) goes; the first becomes the crank pin's
    page.locator('#new-axes-table tr:nth-child(3) td.dash-delete-cell').click()
    page.wait_for_selector('#new-axes-table td[data-dash-row="1"]', state="detached")
    param = page.locator('#new-axes-table td[data-dash-column="parameter"][data-dash-row="0"]')
    param.click()
    page.keyboard.type("joints.crank_pin.clearance_mm")
    wait_first_option(page, "joints.crank_pin.clearance_mm")  # the list filtered to it
    page.keyboard.press("Enter")
    values = page.locator('#new-axes-table td[data-dash-column="values"][data-dash-row="0"]')
    values.click()
    page.keyboard.type("0.05, 0.1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#new-case-count:has-text('2 cases + 1 ideal twin')")
    assert not page.is_disabled("#new-submit")
    page.click("#new-submit")
    page.wait_for_url(re.compile(r"/studies/\d+$"), timeout=60_000)
    study_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    detail = wait_done(base, study_id, timeout_s=tb.STUDY_S)
    assert detail["status"] == "done", detail
    assert detail["model"] == "mechanism"
    assert [c["params"]["joints.crank_pin.clearance_mm"] for c in detail["cases"]] == [0.05, 0.1]
    assert {c["status"] for c in detail["cases"]} == {"done"}
    case = detail["cases"][1]  # the crank pin at 0.1 mm, the piston pin at the table's 0.05
    names = ",".join(f"poincare_eccentricity_{a}.{j}" for j in ("crank_pin", "piston_pin")
                     for a in "xy")
    stored = api_request(f"{base}/api/cases/{case['id']}/series?names={names}")[1]
    page.goto(f"{base}/cases/{case['id']}")
    page.wait_for_function(f"() => ({_SECTION})() !== null")
    shown = {t["joint"]: t for t in page.evaluate(_SECTION)}
    assert set(shown) == {"crank_pin", "piston_pin"}
    for joint, c_mm in (("crank_pin", 0.1), ("piston_pin", 0.05)):
        # the settled window's sections (the last of two revolutions' three), as e / c
        ex = [v / (c_mm * 1e-3) for v in stored[f"poincare_eccentricity_x.{joint}"]]
        ey = [v / (c_mm * 1e-3) for v in stored[f"poincare_eccentricity_y.{joint}"]]
        k = len(shown[joint]["x"])
        assert k >= 1
        assert shown[joint]["x"] == pytest.approx(ex[-k:], rel=1e-9, abs=1e-12)
        assert shown[joint]["y"] == pytest.approx(ey[-k:], rel=1e-9, abs=1e-12)
    # and each joint's phase portrait and orbit in time
    for joint in ("crank_pin", "piston_pin"):
        for fig in ("phase", "orbit_time"):
            page.wait_for_selector(f"#case-motion-graph-{fig}-{joint} .js-plotly-plot")
