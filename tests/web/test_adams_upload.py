"""The .adm upload component (design.md 4.13): the imported mechanism drawn with what was
skipped; a refused dataset says line, statement and why, and makes no study."""

from __future__ import annotations

import base64
from pathlib import Path

import tomllib
from gapsweep.web.components.adams_upload import preview

DATA = Path(__file__).resolve().parents[1] / "study" / "adams_data"


def _url(raw: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def _text(node) -> str:
    if isinstance(node, str):
        return node
    children = getattr(node, "children", None)
    if children is None:
        return ""
    if not isinstance(children, (list, tuple)):
        children = [children]
    return " ".join(_text(c) for c in children)


def test_a_dataset_is_drawn_with_its_skipped_statements_and_contact():
    shown, study = preview(_url((DATA / "slider_crank.adm").read_bytes()), "slider_crank.adm")
    graphs = [c for c in shown.children if type(c).__name__ == "Graph"]
    assert len(graphs) == 1
    names = {t.name for t in graphs[0].figure.data}
    assert {"crank", "rod", "slider"} <= names
    text = _text(shown)
    assert "line 104: GRAPHICS/1" in text and "joints.piston_pin.clearance_mm" in text
    assert tomllib.loads(study)["mechanism"]["driver"]["speed_rpm"] == 5000.0


def test_a_refused_dataset_names_line_statement_and_why():
    raw = (DATA / "pendulum.adm").read_bytes().replace(b"JOINT/1, REVOLUTE",
                                                       b"JOINT/1, SPHERICAL")
    shown, study = preview(_url(raw), "pendulum.adm")
    assert study is None
    assert "line 20: JOINT/1: SPHERICAL: a 3-D joint" in _text(shown)
    shown, study = preview(_url(b"title\n\xff\xfe"), "x.adm")
    assert study is None and "not UTF-8" in _text(shown)
