"""The solver options a case carries (issue 34): written once, in :class:`SolverOptions`.

Every name of ``CASE_OPTIONS`` is a field of SolverOptions, a field of each case type with
SolverOptions' default, a row of ``gapsweep params`` for each model with that default, and a
non-default value given to a case reaches the options the compiled loop reads (the
``OPT_*`` row of :meth:`SolverOptions.as_array`, or the integrator that picks the loop).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import tomllib
from gapsweep.core.assembly import assemble
from gapsweep.core.cases import SETTLE_TOLERANCE, SliderCrankCase
from gapsweep.core.mechanism.case import MechanismCase, _mechanism
from gapsweep.core.simulation import build_mechanism
from gapsweep.core.solver import CASE_OPTIONS, SolverOptions, option_default

from gapsweep.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_reference_slider_crank.toml"

# a value other than the default for each option, inside its allowed range
OTHER = {
    "integrator": "radau5",
    "rtol": 1e-8,
    "atol": 1e-11,
    "max_step": 1e-4,
    "contact_max_step": 1e-5,
    "initial_step": 1e-7,
    "event_location": "bisect",
    "stabilization": "none",
    "baumgarte_alpha": 7.0,
    "baumgarte_beta": 3.0,
    "n_output": 801,
    "refine_peaks": False,
}


def _table() -> dict:
    return tomllib.loads(EXAMPLE.read_text())["mechanism"]


def _case(model: str, **values):
    """A validated case of ``model`` of fixed length (a run until settled re-grids
    ``n_output``) and its loop's topology."""
    values = {"t_end": 0.05, **values}
    if model == "slider-crank":
        case = SliderCrankCase.from_mapping(values)
        return case, assemble(build_mechanism(case))[0]
    case = MechanismCase.from_mapping({"mechanism": _table(), **values})
    return case, assemble(_mechanism(case))[0]


def test_every_case_option_is_a_solver_option_and_the_table_covers_them():
    names = {f.name for f in dataclasses.fields(SolverOptions)}
    assert set(CASE_OPTIONS) <= names
    assert set(OTHER) == set(CASE_OPTIONS)
    for name, value in OTHER.items():
        assert value != option_default(name), name


@pytest.mark.parametrize("case_type", [SliderCrankCase, MechanismCase])
def test_each_case_type_has_every_option_with_the_solver_default(case_type):
    defaults = {f.name: f.default for f in dataclasses.fields(case_type)}
    for name in (*CASE_OPTIONS, "settle_tolerance", "transient_revolutions"):
        assert defaults[name] == option_default(name), name
    assert option_default("settle_tolerance") == SETTLE_TOLERANCE


@pytest.mark.parametrize("model", ["slider-crank", "mechanism"])
def test_params_lists_every_option_with_the_solver_default(model, capsys):
    assert main(["params", "--model", model, "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    for name in CASE_OPTIONS:
        default = option_default(name)
        shown = rows[name]["default"]
        # --json shows an infinite default as null
        assert shown == (None if default == float("inf") else default), name
        assert rows[name]["label"] and rows[name]["kind"], name


@pytest.mark.parametrize("model", ["slider-crank", "mechanism"])
@pytest.mark.parametrize("name", CASE_OPTIONS)
def test_a_non_default_option_reaches_the_loop(model, name):
    # the Baumgarte gains reach the loop only under Baumgarte stabilisation
    base_values = {"stabilization": "baumgarte"} if name.startswith("baumgarte") else {}
    base, topo = _case(model, **base_values)
    case, _ = _case(model, **base_values, **{name: OTHER[name]})
    options = case.solver_options()
    assert getattr(options, name) == OTHER[name]
    assert getattr(base.solver_options(), name) == option_default(name)
    # nothing else of the options changed
    assert dataclasses.replace(options, **{name: option_default(name)}) == base.solver_options()
    if name == "integrator":  # picks the loop (core/integrators.py), not a number in the row
        return
    changed = options.as_array(topo) != base.solver_options().as_array(topo)
    assert np.any(changed), name
