"""A study axis over the clearance joint's stiffness model (issue 18) through the web side:
the form's text cells, the JSON API (201 with string-valued params stored, 422 naming the
bad level) and the trends figure, one line per model."""

from __future__ import annotations

import numpy as np
from archive_fixtures import preset
from gapsweep.study.spec import parse_spec
from gapsweep.web.figures.trends import trend_figure
from gapsweep.web.views.study_form import form_to_spec

MODELS = ("hertz-sphere", "johnson-cylinder", "liu-conformal")
CLEARANCES = (0.02, 0.05, 0.1)


def model_spec() -> dict:
    spec = preset()
    spec["name"] = "Clearance x stiffness model"
    spec["axes"] = {
        "clearance_mm": {"values": list(CLEARANCES)},
        "stiffness_model": {"values": list(MODELS)},
    }
    return spec


def test_form_cells_give_a_string_axis_the_spec_accepts():
    spec, errors = form_to_spec(
        name="models",
        description="",
        tags="",
        model="slider-crank",
        design="grid",
        ideal_twin=True,
        series="none",
        samples=None,
        seed=None,
        morris_levels=None,
        metric=None,
        base_rows=[],
        axis_rows=[
            {"parameter": "clearance_mm", "form": "values", "values": "0.02, 0.05"},
            {
                "parameter": "stiffness_model",
                "form": "values",
                "values": "hertz-sphere, johnson-cylinder liu-conformal",
            },
        ],
    )
    assert errors == []
    assert spec["axes"]["stiffness_model"] == {"values": list(MODELS)}
    assert parse_spec(spec).levels("stiffness_model") == list(MODELS)


def test_api_creates_a_case_per_model_and_one_twin(archive):
    r = archive.client().post("/api/studies", json=model_spec())
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    assert len(archive.case_ids(study_id, "case")) == 9
    # the ideal joint reads no contact field: one twin for the whole study
    assert len(archive.case_ids(study_id, "twin")) == 1
    body = archive.client().get(f"/api/studies/{study_id}").get_json()
    params = [c["params"] for c in body["cases"]]
    assert [p["stiffness_model"] for p in params] == [m for _ in CLEARANCES for m in MODELS]
    assert all("stiffness_model" not in t["params"] for t in body["twins"])


def test_api_refuses_an_unknown_model_naming_the_level(archive):
    spec = model_spec()
    spec["axes"]["stiffness_model"]["values"][1] = "winkler"
    r = archive.client().post("/api/studies", json=spec)
    assert r.status_code == 422
    errors = {e["field"]: e for e in r.get_json()["errors"]}
    bad = errors["axes.stiffness_model.values[1]"]
    assert bad["value"] == "winkler"
    assert all(m in bad["allowed"] for m in MODELS)
    assert archive.count("studies") == 0


def _cases() -> list[dict]:
    """3 clearances x 3 models, each model's peak a distinct function of c; the models are
    listed out of order to show the figure sorts them."""
    cases = []
    for i, (model, c) in enumerate((m, c) for m in reversed(MODELS) for c in CLEARANCES):
        k = MODELS.index(model) + 1
        cases.append(
            {
                "id": 10 + i,
                "params": {"clearance_mm": c, "stiffness_model": model},
                "status": "done",
                "metrics": {"peak_contact_force": 1000.0 * k + c},
            }
        )
    return cases


def test_trends_draw_one_line_per_model_when_it_is_the_grouping_axis():
    fig = trend_figure(
        _cases(),
        "peak_contact_force",
        x_axis="clearance_mm",
        group_axis="stiffness_model",
        twin_metrics={"peak_contact_force": None},
    )
    assert len(fig.data) == 3
    for trace, model in zip(fig.data, MODELS, strict=True):
        assert trace.name == f"stiffness model = {model}"
        np.testing.assert_array_equal(trace.x, CLEARANCES)
        k = MODELS.index(model) + 1
        np.testing.assert_allclose(trace.y, [1000.0 * k + c for c in CLEARANCES])
    assert len({t.line.color for t in fig.data}) == 3


def test_trends_take_the_model_as_a_categorical_x_axis():
    """x = stiffness_model: one line per clearance, the models in text order, the ideal
    twin's line across them."""
    fig = trend_figure(
        _cases(),
        "peak_contact_force",
        x_axis="stiffness_model",
        group_axis="clearance_mm",
        twin_metrics={"peak_contact_force": 500.0},
    )
    assert len(fig.data) == 4
    for trace, c in zip(fig.data[:3], CLEARANCES, strict=True):
        assert trace.name == f"c = {c:g} mm"
        assert list(trace.x) == list(MODELS)
        np.testing.assert_allclose(trace.y, [1000.0 * (k + 1) + c for k in range(3)])
    assert list(fig.data[3].x) == [MODELS[0], MODELS[-1]] and list(fig.data[3].y) == [500.0] * 2
