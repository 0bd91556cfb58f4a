"""What the browser tests share (not a test module): Debian's chromium, its flags, a port
(``free_port`` of tests/workers/processes.py).

Skipped when chromium is missing, except with ``CI=true`` (then the test fails): the test
command installs it (``apt-get install -y chromium``).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "workers"))

from processes import free_port  # noqa: E402, F401  (the workers' helper, for the servers)

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_chromium() -> str:
    """The chromium executable (Playwright drives it with ``executable_path``)."""
    path = shutil.which("chromium")
    if path:
        return path
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")



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
