"""The stand-alone what-if page of a response surface (design.md 4.8), as Adams Insight
exports its web page: one HTML file with plotly.js inside it, a slider per factor, the
prediction, and a Plotly chart of each factor's effect through the current setting. No
server: the polynomial (terms, coefficients, coding) is in the page and evaluated by its
script as the sliders move.

Pure: a surface's description in, the HTML text out.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .labels import metric_label, metric_scale, parameter_label

SLIDER_STEPS = 200
CURVE_POINTS = 41


def whatif_html(title: str, metric: str, surface: Mapping[str, Any],
                terms: Sequence[Sequence[int]], note: str = "") -> str:
    """The page. ``surface``: :meth:`ResponseSurface.to_dict` (factors, centre,
    half_range, coefficients in term order, r2...); ``terms``: the exponent tuples."""
    from plotly.offline import get_plotlyjs

    factors = list(surface["factors"])
    model = {
        "factors": factors,
        "labels": [parameter_label(f) for f in factors],
        "centre": list(surface["centre"]), "half": list(surface["half_range"]),
        "terms": [list(t) for t in terms],
        "coef": list(surface["coefficients"].values()),
        "scale": metric_scale(metric), "metric": metric_label(metric),
        "steps": SLIDER_STEPS, "points": CURVE_POINTS,
    }
    rows = "\n".join(
        f'<div class="row"><label for="f{i}">{html.escape(model["labels"][i])}</label>'
        f'<input type="range" id="f{i}" data-factor="{html.escape(f)}" min="0" '
        f'max="{SLIDER_STEPS}" step="1" value="{SLIDER_STEPS // 2}">'
        f'<span class="value" id="v{i}"></span></div>'
        for i, f in enumerate(factors))
    fit = (f"R² {surface['r2']:.3f}, adjusted {_f(surface.get('r2_adjusted'))}, predicted "
           f"(PRESS) {_f(surface.get('r2_predicted'))}; order {surface['order']}, "
           f"{surface['n']} run cases")
    warn = ('<p class="warn">Predicted R² is poor: this surface does not predict held-out '
            "cases well; read it as a trend at most.</p>" if surface.get("poor") else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:1.5rem;max-width:1100px}}
.row{{display:flex;gap:1rem;align-items:center;margin:.3rem 0}}
.row label{{width:16rem}} .row input{{flex:1}} .value{{width:8rem;text-align:right}}
#prediction{{font-size:1.4rem;font-weight:600}} .warn{{color:#b00}}
.muted{{color:#666;font-size:.9rem}}</style>
<script>{get_plotlyjs()}</script></head><body>
<h2>{html.escape(title)}</h2>
<p class="muted">What-if: {html.escape(model["metric"])} from a response surface fitted to the
study's cases ({html.escape(fit)}). {html.escape(note)}</p>{warn}
{rows}
<p>Prediction: <span id="prediction"></span></p>
<div id="effects" style="height:420px"></div>
<script id="model" type="application/json">{json.dumps(model)}</script>
<script>
const M = JSON.parse(document.getElementById("model").textContent);
function value(i, pos) {{ return M.centre[i] + M.half[i] * (2 * pos / M.steps - 1); }}
function predict(x) {{
  let y = 0;
  for (let t = 0; t < M.terms.length; t++) {{
    let term = M.coef[t];
    for (let i = 0; i < x.length; i++) {{
      term *= Math.pow((x[i] - M.centre[i]) / M.half[i], M.terms[t][i]);
    }}
    y += term;
  }}
  return y;
}}
function current() {{
  return M.factors.map((_, i) => value(i, +document.getElementById("f" + i).value));
}}
function update() {{
  const x = current();
  x.forEach((v, i) => document.getElementById("v" + i).textContent = v.toPrecision(5));
  const y = predict(x);
  document.getElementById("prediction").textContent = (y * M.scale).toPrecision(6) + " " + M.metric;
  document.getElementById("prediction").dataset.value = String(y);
  const traces = M.factors.map((_, i) => {{
    const xs = [], ys = [];
    for (let k = 0; k < M.points; k++) {{
      const p = x.slice(); p[i] = value(i, k * M.steps / (M.points - 1));
      xs.push(2 * k / (M.points - 1) - 1); ys.push(predict(p) * M.scale);
    }}
    return {{x: xs, y: ys, mode: "lines", name: M.labels[i]}};
  }});
  Plotly.react("effects", traces, {{title: "Each factor's effect through the current setting",
    xaxis: {{title: "Factor, coded: -1 = lowest run value, +1 = highest [–]"}},
    yaxis: {{title: M.metric}}, margin: {{t: 50}}}});
}}
document.querySelectorAll("input[type=range]").forEach(el => el.addEventListener("input", update));
update();
</script></body></html>
"""


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"
