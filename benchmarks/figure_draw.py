"""What the axes' automargin costs the browser: the case page's seven figures drawn by
Plotly.js in chromium without it, as the page sends them, and with it on every axis (why
``web/figures/style.py`` leaves it off and ``fit_tick_labels`` sets it per figure).

    .venv/bin/python benchmarks/figure_draw.py [--repeat 15]

The figures are the case page's (``case_figures``) of a real run (slider-crank, c = 0.05 mm,
its preview series as a worker stores them). ``none``: every axis ``automargin=False`` and
the energy legend at its old place (right of the plot), as before the clipped labels were
found; ``sent``: the figures as the page sends them (no automargin: the contact state has a
wider fixed margin, the energy legend is under the plot); ``every_axis``: automargin on
every axis, as a template default would make it.
Each round draws the seven figures into fresh divs (``Plotly.newPlot``, awaited) and times it
in the page (``performance.now``); the variants alternate, so a load change on a shared
machine hits each. Prints the medians, the ratios to ``none`` and the load average.

Figures (2 shared cores, chromium headless, medians of 15; other jobs kept the load at
14-18, so compare the ratios of one run):

| what the page sent | none | sent | every axis |
|---|---|---|---|
| automargin on every axis | 1087 ms | (= every axis) | 1755 ms (x1.62) |
| automargin on the contact state's y only | 804 ms | 1006 ms (x1.25) | 1387 ms (x1.73) |
| no automargin, contact state margin 110 px | 425 ms | 360 ms (x0.85) | 588 ms (x1.38) |
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
from pathlib import Path

import plotly

BUNDLE = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def figures_json() -> dict[str, list[str]]:
    """The case page's figures as Plotly JSON in each variant (see the module doc)."""
    from gapsweep.core.api import run_case
    from gapsweep.web.figures.case_views import case_figures
    from gapsweep.workers.series_policy import select_series

    result = run_case("slider-crank", {"clearance_mm": 0.05})
    series = select_series(result, "preview", 5000 / 60)
    out: dict[str, list[str]] = {"none": [], "sent": [], "every_axis": []}
    for variant in out:
        for name, fig in case_figures(series, params={"clearance_mm": 0.05}).items():
            if variant != "sent":
                flag = variant == "every_axis"
                fig.update_xaxes(automargin=flag)
                fig.update_yaxes(automargin=flag)
            if variant == "none" and name == "energy":
                fig.layout.legend = {}  # Plotly's default place, right of the plot
            out[variant].append(fig.to_json())
    return out


DRAW = """async (figs) => {
  const host = document.getElementById('host');
  host.innerHTML = '';
  const t0 = performance.now();
  for (const f of figs) {
    const div = document.createElement('div');
    div.style.width = '620px';
    host.appendChild(div);
    const fig = JSON.parse(f);
    await Plotly.newPlot(div, fig.data, fig.layout, {displaylogo: false});
  }
  return performance.now() - t0;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if not chromium:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    variants = figures_json()
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {k: [] for k in variants}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_content("<div id='host'></div>")
        page.add_script_tag(path=str(BUNDLE))
        page.evaluate(DRAW, variants["sent"])  # warm-up: the bundle's first parse and layout
        for _ in range(args.repeat):
            for variant, figs in variants.items():
                times[variant].append(page.evaluate(DRAW, figs))
        browser.close()
    median = {k: statistics.median(v) for k, v in times.items()}
    print(json.dumps({
        "figures": len(variants["sent"]),
        "repeat": args.repeat,
        "median_ms": {k: round(v, 1) for k, v in median.items()},
        "ratio_to_none": {k: round(v / median["none"], 3) for k, v in median.items()},
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }, indent=2))


if __name__ == "__main__":
    main()
