"""The form's body and joint editor in Chromium (design.md 4.7, issue 35 part 4): a four-bar
built from nothing, row by row - points, three moving bodies (ground is implied), four
revolute joints one of which has clearance, a driver and a measure - drawn as it is typed,
a wrong body refused beside the drawing naming its field, then submitted: the stored study's
mechanism is the table typed and its case runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import test_browser as tb
from support.api import wait_done
from test_browser import ARTIFACTS
from test_browser_mechanism import _choose

server, browser, page = tb.server, tb.browser, tb.page
pytestmark = pytest.mark.timeout(900)

_JOINTS = """() => {
  const el = document.querySelector('#new-mechanism-drawing .js-plotly-plot');
  if (!el || !el._fullData) return null;
  const joints = el._fullData.find(t => t.name === 'joints');
  return joints ? {text: Array.from(joints.text), x: Array.from(joints.x),
                   y: Array.from(joints.y)} : null;
}"""

POINTS = (("O2", 0, 0), ("A", 40, 0), ("B", 100, 80), ("O4", 100, 0))
BODIES = (("crank", "A"), ("coupler", "B"), ("rocker", "O4"))
JOINTS = (("j1", "ground", "crank", "O2"), ("j2", "crank", "coupler", "A"),
          ("j3", "coupler", "rocker", "B"), ("j4", "ground", "rocker", "O4"))


def _cell(page, section: str, row: int, column: str):
    return page.locator(f"#new-mechanism-editor-{section} td[data-dash-column='{column}']"
                        f"[data-dash-row='{row}']")


_IDLE = "() => document.querySelectorAll('[data-dash-is-loading=\"true\"]').length === 0"


def _type(page, section: str, row: int, column: str, text: str, *, choice: bool = False):
    """Type ``text`` into one cell and Enter; then wait for the cell to show it and for the
    callbacks it set off (the store, the drawing, the verdict and its tint) to be done, so
    that the next edit does not meet a re-render of its table. A pick from a dropdown cell
    that a re-render closed is made again (once)."""
    cell = _cell(page, section, row, column)
    shown = (f"#new-mechanism-editor-{section} td[data-dash-column='{column}']"
             f"[data-dash-row='{row}']")
    for attempt in range(2 if choice else 1):
        page.wait_for_function(_IDLE)
        cell.click()
        if choice:  # the cell selected, then its list opened
            cell.locator(".Select-control").click()
        page.keyboard.type(text)
        if choice:  # a dropdown cell: the list filtered to the typed value, then picked
            page.wait_for_function(
                "text => { const el = document.querySelector('.Select-option.is-focused');"
                " return !!el && el.textContent.trim() === text; }", arg=text)
        page.keyboard.press("Enter")
        try:
            page.wait_for_function(
                "([sel, text]) => { const c = document.querySelector(sel); return c && "
                "(c.querySelector('.Select-value-label') || c).innerText.trim() === text; }",
                arg=[shown, text], timeout=5000 if choice and attempt == 0 else None)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the pick again
            page.keyboard.press("Escape")
    page.wait_for_function(_IDLE)


def _assembles(page) -> None:
    """Wait for the verdict "assembles" (a minute: the check and the drawing are server
    callbacks, slow on a loaded machine); else fail with the verdict the page shows."""
    try:
        page.wait_for_selector("#new-mechanism-editor-ok", timeout=60_000)
    except Exception:  # noqa: BLE001 - playwright's TimeoutError: say what the page says
        shown = page.inner_text("#new-mechanism-drawing-card") if page.locator(
            "#new-mechanism-drawing-card").count() else page.inner_text("body")[:2000]
        pytest.fail(f"the mechanism does not assemble on the page: {shown}")


def _add_rows(page, section: str, n: int) -> None:
    for k in range(n):
        page.click(f"#new-mechanism-editor-add-{section}")
        _cell(page, section, k, _first_column(section)).wait_for()


def _first_column(section: str) -> str:
    return "joint" if section == "driver" else "name"


def test_build_a_four_bar_from_nothing_draw_it_submit_it_and_run_it(server, page):
    base = server["base"]
    page.goto(base + "/studies/new")
    _choose(page, "new-model", "mechanism")
    page.wait_for_selector("#new-mechanism-editor-error")  # nothing yet: says so
    _add_rows(page, "points", len(POINTS))
    for k, (name, x, y) in enumerate(POINTS):
        _type(page, "points", k, "name", name)
        _type(page, "points", k, "x", str(x))
        _type(page, "points", k, "y", str(y))
    _add_rows(page, "bodies", len(BODIES))
    for k, (name, cm) in enumerate(BODIES):
        _type(page, "bodies", k, "name", name)
        _type(page, "bodies", k, "mass_kg", "0.1")
        _type(page, "bodies", k, "inertia_kgm2", "0.0001")
        _type(page, "bodies", k, "cm", cm)
    _add_rows(page, "joints", len(JOINTS))
    for k, (name, first, second, at) in enumerate(JOINTS):
        _type(page, "joints", k, "name", name)
        _type(page, "joints", k, "type", "revolute", choice=True)
        _type(page, "joints", k, "body_i", first)
        # the coupler misspelt first: refused beside the drawing, naming field and value
        _type(page, "joints", k, "body_j", "conrod" if name == "j2" else second)
        _type(page, "joints", k, "at", at)
    error = page.locator("#new-mechanism-editor-error")
    error.locator(".editor-error-field", has_text="mechanism.joints.j2.bodies[1]").wait_for()
    assert "conrod" in error.inner_text() and "coupler" in error.inner_text()
    page.wait_for_function(  # and the cell it names tinted red in its table
        "sel => { const c = document.querySelector(sel);"
        " return !!c && getComputedStyle(c).backgroundColor === 'rgba(220, 53, 69, 0.15)'; }",
        arg="#new-mechanism-editor-joints td[data-dash-column='body_j'][data-dash-row='1']")
    page.locator("#new-mechanism-card").screenshot(path=str(_shot("editor_refused")))
    _type(page, "joints", 1, "body_j", "coupler")
    _type(page, "joints", 2, "clearance_mm", "0.1")
    _type(page, "joints", 2, "bearing_radius_mm", "6")
    _add_rows(page, "driver", 1)
    _type(page, "driver", 0, "joint", "j1")
    _type(page, "driver", 0, "speed_rpm", "600")
    _add_rows(page, "measures", 1)
    _type(page, "measures", 0, "name", "rocker_alpha")
    _type(page, "measures", 0, "body", "rocker")
    _type(page, "measures", 0, "quantity", "acceleration", choice=True)
    _type(page, "measures", 0, "component", "angle", choice=True)
    _assembles(page)
    # drawn as typed: each joint at its point, the clearance joint marked
    page.wait_for_function(f"() => {{ const j = ({_JOINTS})();"
                           " return j && j.text.includes('j3 (clearance)'); }")
    drawn = page.evaluate(_JOINTS)
    where = dict(zip(drawn["text"], zip(drawn["x"], drawn["y"], strict=True), strict=True))
    points = {n: (x, y) for n, x, y in POINTS}
    for name, _, _, at in JOINTS:
        label = name + (" (clearance)" if name == "j3" else "")
        assert where[label] == pytest.approx(points[at])
    page.locator("#new-mechanism-card").screenshot(path=str(_shot("editor_four_bar")))

    # a convergence study of it follows its measure, not the slider (issue 35)
    _choose(page, "new-design", "convergence")
    page.wait_for_selector("#new-metric-row", state="visible")
    page.click("#new-metric")
    page.locator(".dash-dropdown-option", has_text="peak_rocker_alpha_settled").first.wait_for(
        state="visible", timeout=30_000)
    offered = page.eval_on_selector_all(".dash-dropdown-option",
                                        "els => els.map(e => e.innerText.trim())")
    assert offered[0].startswith("peak_rocker_alpha_settled"), offered
    assert not [o for o in offered if "slider" in o], offered
    page.keyboard.press("Escape")
    _choose(page, "new-design", "grid")
    page.wait_for_selector("#new-metric-row", state="hidden")

    # sweep the clearance joint: the preset's second axis goes, the first becomes j3's
    page.fill("#new-name", "browser editor four-bar")
    page.locator('#new-axes-table tr:nth-child(3) td.dash-delete-cell').click()
    page.wait_for_selector('#new-axes-table td[data-dash-row="1"]', state="detached")
    param = page.locator('#new-axes-table td[data-dash-column="parameter"][data-dash-row="0"]')
    param.click()
    page.keyboard.type("joints.j3.clearance_mm")
    page.wait_for_function(  # the list filtered to it (its label: the name and its unit)
        "() => { const el = document.querySelector('.Select-option.is-focused');"
        " return !!el && el.textContent.startsWith('joints.j3.clearance_mm ['); }")
    page.keyboard.press("Enter")
    values = page.locator('#new-axes-table td[data-dash-column="values"][data-dash-row="0"]')
    values.click()
    page.keyboard.type("0.1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#new-case-count:has-text('1 case')")
    page.click("#new-submit")
    page.wait_for_url(re.compile(r"/studies/\d+$"), timeout=60_000)
    study_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    # polling the API: the study runs on the server's workers
    detail = wait_done(base, study_id, timeout_s=tb.STUDY_S)
    assert detail["status"] == "done", detail
    typed = {
        "points": {n: [x, y] for n, x, y in POINTS},
        "bodies": {n: {"mass_kg": 0.1, "inertia_kgm2": 0.0001, "cm": cm} for n, cm in BODIES},
        "joints": {n: {"type": "revolute", "bodies": [a, b], "at": at}
                   for n, a, b, at in JOINTS},
        "driver": {"joint": "j1", "speed_rpm": 600},
        "measures": {"rocker_alpha": {"body": "rocker", "quantity": "acceleration",
                                      "component": "angle"}},
    }
    typed["joints"]["j3"].update(clearance_mm=0.1, bearing_radius_mm=6)
    assert detail["spec"]["mechanism"] == typed
    assert detail["model"] == "mechanism"
    cases = detail["cases"]
    assert {c["status"] for c in cases} == {"done"}
    swept = [c for c in cases if not c["params"].get("ideal")]
    assert [c["params"]["joints.j3.clearance_mm"] for c in swept] == [0.1]
    assert all("peak_rocker_alpha" in c["metrics"] for c in cases)


def _shot(name: str):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


ADM = Path(__file__).resolve().parents[1] / "study" / "adams_data" / "slider_crank.adm"


def test_an_adams_dataset_fills_the_editor_and_its_joint_is_made_a_swept_clearance(server, page):
    page.goto(server["base"] + "/studies/new")
    _choose(page, "new-model", "mechanism")
    page.wait_for_selector("#new-mechanism-editor-error")
    page.set_input_files("#adams-upload input[type=file]", str(ADM))
    # drawn with what was skipped, and its joints in the editor
    page.wait_for_selector("#adams-preview :text('Skipped (output only)')")
    page.wait_for_selector("#new-mechanism-editor-joints td[data-dash-column='name'] "
                           ":text-is('piston_pin')")
    _assembles(page)
    names = page.locator("#new-mechanism-editor-joints td[data-dash-column='name']")
    row = names.all_inner_texts().index("piston_pin")
    # not yet a clearance joint: its clearance not offered on the axes
    assert "joints.piston_pin.clearance_mm" not in _axis_options(page)
    _type(page, "joints", row, "clearance_mm", "0.05")
    _type(page, "joints", row, "bearing_radius_mm", "10")
    page.wait_for_function(f"() => {{ const j = ({_JOINTS})();"
                           " return j && j.text.includes('piston_pin (clearance)'); }")
    _assembles(page)
    assert "joints.piston_pin.clearance_mm" in _axis_options(page)


def _axis_options(page) -> list[str]:
    """The axes table's parameter options (opened on the first row, then closed)."""
    param = page.locator('#new-axes-table td[data-dash-column="parameter"][data-dash-row="0"]')
    param.click()
    param.locator(".Select-control").click()
    page.wait_for_selector(".Select-menu-outer .Select-option", state="attached")
    out = page.eval_on_selector_all(".Select-menu-outer .Select-option",
                                    "els => els.map(e => e.textContent.split(' [')[0])")
    page.keyboard.press("Escape")
    return out
