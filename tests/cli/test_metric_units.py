"""The terminal and the pages show a metric in one unit, the metric registry's: the CLI's study
table and the study page's case grid agree (max_penetration in µm in both, its JSON in m), and
a metric registered once shows up in both with its unit."""

from __future__ import annotations

import pytest
from gapsweep.core import metrics as registry
from gapsweep.core.metrics import Metric
from gapsweep.web.components import case_grid
from gapsweep.web.figures.labels import metric_label

from gapsweep.commands import output, simulate

PENETRATION = 1.52726e-5  # [m]: 15.27 µm of a 50 µm clearance
METRICS = {"peak_slider_accel": 2.5e4, "rms_slider_accel": 4.1e3, "peak_contact_force": 812.5,
           "max_penetration": PENETRATION, "impacts": 12, "peak_slider_accel_steady": 2.2e4}


def _detail(metrics: dict) -> dict:
    return {"cases": [{"id": 7, "params": {"clearance_mm": 0.05}, "status": "done",
                       "attempts": 1, "reason": None, "metrics": metrics}]}


def _cli_table(capsys, metrics: dict, names) -> dict[str, tuple[str, str]]:
    """{metric: (unit in its header, its cell)} of ``gapsweep show``'s table."""
    output.study_table(_detail(metrics), names)
    header, row = capsys.readouterr().out.splitlines()[:2]
    cells = dict(zip(header.replace(" [", "[").split(), row.split(), strict=True))
    out = {}
    for head, cell in cells.items():
        name, _, unit = head.partition("[")
        out[name] = (unit.rstrip("]"), cell)
    return out


def _unit_of(title: str) -> str:
    return title.rsplit("[", 1)[1].rstrip("]")


def test_show_and_the_case_grid_give_max_penetration_in_micrometres(capsys):
    cli = _cli_table(capsys, METRICS, registry.headline())
    columns = {c["field"]: c["headerName"] for c in case_grid.column_defs({})}
    row = case_grid.shown_row({"id": 7, **METRICS})
    assert cli["max_penetration"][0] == _unit_of(columns["max_penetration"]) == "µm"
    assert float(cli["max_penetration"][1]) == pytest.approx(15.2726, rel=1e-4)
    assert row["max_penetration"] == pytest.approx(15.2726, rel=1e-5)
    for name in registry.headline():  # every headline column: one unit on both faces
        assert cli[name][0] == _unit_of(columns[name]), name
        assert float(cli[name][1]) == pytest.approx(row[name], rel=1e-4), name
    # `simulate`'s table and lines say the same
    assert simulate._unit("max_penetration") == "µm"
    assert simulate._format_value("max_penetration", PENETRATION) == "15.2726 µm"


def test_a_metric_registered_once_is_labelled_alike_on_both_faces(capsys, monkeypatch):
    lift = Metric("peak_valve_lift_mm_test", "Peak valve lift", "m", display_unit="mm",
                  scale=1e3, headline=True)
    monkeypatch.setitem(registry.REGISTRY, lift.name, lift)
    assert lift.name in registry.headline()
    cli = _cli_table(capsys, {**METRICS, lift.name: 0.0042}, registry.headline())
    assert cli[lift.name] == ("mm", "4.2")
    assert metric_label(lift.name) == "Peak valve lift [mm]"
    assert simulate._format_value(lift.name, 0.0042) == "4.2 mm"
