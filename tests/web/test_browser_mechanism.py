"""The case page of a described mechanism (design.md 4.7) in Chromium: play the animation,
pause it, and read the frame Plotly shows - the crank pin at the driver angle of the frame's
time, the journal orbit drawn up to that time from the stored series."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
import test_browser as tb
import tomllib
from test_browser import _get, _post

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
    status, body = _post(server["base"] + "/api/studies", spec)
    assert status == 201, body
    study_id = body["id"]
    deadline = time.monotonic() + tb.STUDY_S
    while (detail := _get(f"{server['base']}/api/studies/{study_id}")[1])["status"] != "done":
        assert time.monotonic() < deadline, detail.get("counts")
        time.sleep(0.5)
    case_id = detail["cases"][0]["id"]
    names = "t,eccentricity_x.rocker_pin,eccentricity_y.rocker_pin"
    stored = _get(f"{server['base']}/api/cases/{case_id}/series?names={names}")[1]
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
