"""What the browser tests share (not a test module): Debian's chromium and its flags, a
module's ``server`` (:data:`server`, the server of an empty data folder; a module that
serves data of its own makes its own with support.serving.server_fixture), the module's
browser (:func:`launch_browser`) and a page that collects its console errors
(:func:`new_page`, :func:`open_page`).

Skipped when chromium is missing, except with ``CI=true`` (then the test fails): the test
command installs it (``apt-get install -y chromium``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from support.serving import server_fixture

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# --- the server, the browser, a page (the browser modules' fixtures) -----------------------

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1280, "height": 800}

#: a ``gapsweep serve`` of an empty data folder with its local worker for a module's tests
#: and chromium: ``{"base", "chromium", ...}`` (support.serving.server_fixture). Shared
#: through tests/web/conftest.py
server = server_fixture("gapsweep-served", chromium=True)


def gapsweep_cli(env: dict, *args: str, stdin: str = "") -> str:
    """``gapsweep ARGS`` with ``env`` (``stdin`` on its input): its output, asserting it
    succeeded."""
    done = subprocess.run([sys.executable, "-m", "gapsweep", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def launch_browser(chromium: str, **options) -> Iterator:
    """For a module's ``browser`` fixture (``yield from``): chromium at path ``chromium``
    through Playwright with :data:`CHROMIUM_ARGS` (and Playwright's launch ``options``),
    closed after."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, **options)
        yield b
        b.close()


def new_page(browser, timeout_ms: float, *, viewport: dict = VIEWPORT, **context_options):
    """A page in a new browser context (no cookies) with default timeout ``timeout_ms``; its
    console errors and uncaught page errors collect in ``page.errors``."""
    context = browser.new_context(viewport=viewport, **context_options)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
    return page


def open_page(browser, timeout_ms: float, *, no_errors_after: bool = False,
              **context_options) -> Iterator:
    """For a ``page`` fixture (``yield from``): :func:`new_page`, its context closed after;
    with ``no_errors_after``, the test fails if the page logged a console error."""
    page = new_page(browser, timeout_ms, **context_options)
    yield page
    page.context.close()
    if no_errors_after:
        assert page.errors == [], page.errors


# --- reading what Plotly drew (tests/web/test_browser_figures.py) -------------------------

# Plotly's own state of the first plot under a CSS selector: the traces as it decoded them
# (``_fullData``: plotly.py sends numpy arrays base64-encoded, which ``el.data`` keeps as
# ``{dtype, bdata}``), the axes' titles and types, the shapes and annotations of
# ``_fullLayout``, and the boxes the legend and the axes' labels take on the screen.
_READ_PLOT = """sel => {
  const el = document.querySelector(sel + ' .js-plotly-plot') ||
             document.querySelector(sel + '.js-plotly-plot');
  if (!el || !el._fullData) return null;
  const arr = v => (v === undefined || v === null) ? null
                   : (typeof v === 'object' ? Array.from(v) : v);
  const fl = el._fullLayout;
  const axes = {};
  for (const key of Object.keys(fl).filter(k => /^[xy]axis\\d*$/.test(k))) {
    const a = fl[key];
    axes[key] = {title: (a.title || {}).text || '', type: a.type, side: a.side,
                 range: arr(a.range), overlaying: a.overlaying || null};
  }
  const box = node => { if (!node) return null; const r = node.getBoundingClientRect();
                        return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const boxes = sel2 => Array.from(el.querySelectorAll(sel2)).map(box)
                              .filter(b => b.right > b.left && b.bottom > b.top);
  return {
    data: el._fullData.map(t => ({
      name: t.name, type: t.type, mode: t.mode || null, orientation: t.orientation || null,
      x: arr(t.x), y: arr(t.y), z: t.z ? Array.from(t.z, row => Array.from(row)) : null,
      base: arr(t.base), xaxis: t.xaxis, yaxis: t.yaxis, visible: t.visible,
      showlegend: t.showlegend, dash: (t.line || {}).dash || null})),
    layout: {
      title: (fl.title || {}).text || '', axes: axes,
      shapes: (fl.shapes || []).map(s => ({type: s.type, xref: s.xref, yref: s.yref,
                                           x0: s.x0, x1: s.x1, y0: s.y0, y1: s.y1})),
      annotations: (fl.annotations || []).map(a => ({text: a.text, x: a.x, y: a.y})),
      showlegend: fl.showlegend,
    },
    screen: {
      plot: box(el.querySelector('.nsewdrag')),
      legend: box(el.querySelector('.legend')),
      y2labels: boxes('.y2tick text').concat(boxes('.g-y2title text')),
      paper: box(el),
      ticks: {x: boxes('.xtick text'), y: boxes('.ytick text'), y2: boxes('.y2tick text')},
      titles: {x: boxes('.g-xtitle text'), y: boxes('.g-ytitle text'),
               y2: boxes('.g-y2title text')},
    },
  };
}"""


def wait_first_option(page, name: str) -> None:
    """Until the open dropdown's first (focused) option is the parameter ``name`` (its label
    ``name — description``, or a mechanism's ``name [unit]``): the list has filtered to what
    was typed, however long that takes."""
    page.wait_for_function(
        """name => { const el = document.querySelector('.Select-option.is-focused');
                     if (!el) return false;
                     const t = el.textContent;
                     return t === name || t.startsWith(name + ' —')
                            || t.startsWith(name + ' ['); }""", arg=name)


def plotly_figure(page, selector: str, ready: str = "true", timeout_ms: float | None = None
                  ) -> dict:
    """The figure Plotly drew in the first ``.js-plotly-plot`` under CSS ``selector`` (see
    ``_READ_PLOT``), once ``ready`` - a JS expression of ``fig`` (what ``_READ_PLOT`` returns)
    such as ``"fig.data.length >= 3"`` - holds. A graph first draws empty, then its
    callback's figure: ``ready`` says which drawing the test wants."""
    page.wait_for_function(
        f"sel => {{ const fig = ({_READ_PLOT})(sel); return fig !== null && ({ready}); }}",
        arg=selector, timeout=timeout_ms)
    return page.evaluate(_READ_PLOT, selector)


def inside(inner: dict, outer: dict, slack_px: float = 1.0) -> bool:
    """Is screen box ``inner`` within ``outer`` (to ``slack_px``)? A tick label outside its
    figure's box is clipped."""
    return (inner["left"] >= outer["left"] - slack_px and inner["right"] <= outer["right"] +
            slack_px and inner["top"] >= outer["top"] - slack_px and
            inner["bottom"] <= outer["bottom"] + slack_px)


def overlap(a: dict | None, b: dict | None, margin_px: float = 0.0) -> bool:
    """Do two screen boxes ``{left, right, top, bottom}`` [px] overlap (by more than
    ``margin_px``)?"""
    if a is None or b is None:
        return False
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > margin_px
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > margin_px)
