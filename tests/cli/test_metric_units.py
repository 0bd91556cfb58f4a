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


def read_table(text: str) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """A study table as printed: ([(column name, unit), ...], rows of cells). The rule of
    dashes gives the columns; a header's lines put together give the name, ``[unit]`` last."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "} and line)
    spans, col = [], 0
    for dashes in lines[rule].split("  "):
        spans.append((col, col + len(dashes)))
        col += len(dashes) + 2
    columns = []
    for lo, hi in spans:
        parts = [line[lo:hi].strip() for line in lines[:rule]]
        unit = parts[-1][1:-1] if parts and parts[-1].startswith("[") else ""
        columns.append(("".join(p for p in parts if p and not p.startswith("[")), unit))
    rows = [[line[lo:hi].strip() for lo, hi in spans] for line in lines[rule + 1:]
            if line.strip() and not line.startswith("case ")]
    return columns, rows


def _cli_table(capsys, metrics: dict, names) -> dict[str, tuple[str, str]]:
    """{metric: (unit in its header, its cell)} of ``gapsweep show``'s table."""
    output.study_table(_detail(metrics), names)
    columns, rows = read_table(capsys.readouterr().out)
    return {name: (unit, cell) for (name, unit), cell in zip(columns, rows[0], strict=True)}


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


def test_the_users_study_table_fits_100_columns_and_names_every_column(capsys):
    """`gapsweep run`'s table of the user's study (two varying parameters, status, the
    headline metrics with realistic values) fits 100 columns, and its headers still give
    every column's full name and unit."""
    cases = [{"id": 1000 + k, "params": {"clearance_mm": c, "stiffness_scale": s},
              "status": "cancelled" if k == 3 else "done", "reason": None,
              "metrics": {**METRICS, "peak_slider_accel": 187692.4, "impacts": 141}}
             for k, (c, s) in enumerate((c, s) for c in (0.02, 0.035, 0.05, 0.08, 0.1)
                                        for s in (0.7, 1.0, 1.3))]
    output.study_table({"cases": cases}, registry.headline())
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 100, text
    columns, rows = read_table(text)
    assert [name for name, _ in columns] == ["id", "clearance_mm", "stiffness_scale", "status",
                                             *registry.headline()]
    assert dict(columns)["max_penetration"] == "µm" and dict(columns)["impacts"] == "count"
    assert len(rows) == 15 and rows[3][3] == "cancelled"


def test_header_lines_give_the_name_back():
    for name in ("peak_slider_accel", "max_penetration", "peak_slider_accel_steady", "id",
                 "peak_contact_force.piston_pin"):
        lines = output.header_lines(name, "N")
        assert "".join(lines[:-1]) == name and lines[-1] == "[N]"
        assert all(len(x) <= max(output.HEADER_LINE, *map(len, name.split("_"))) + 1
                   for x in lines[:-1])
