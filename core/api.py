"""The small API everything outside the core uses (CLI, workers, web).

A case is a model name plus a mapping of parameter names to values - plain, serialisable
data a form, a study file or a queue message can carry. :func:`run_case` and
:func:`run_cases` validate it, run it and return :class:`~.result.CaseResult` objects.
Bad input raises :class:`~.errors.InputError` naming the field.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .errors import InputError
from .result import CaseResult

Params = Mapping[str, Any]
Progress = Callable[[int, int], None]
#: ``case_progress(case, done, total)``: how far a long case of a batch has come - ``case``
#: its index in the batch, ``done`` of ``total`` parts (a wear life: its settled runs)
CaseProgress = Callable[[int, int, int], None]


#: the model a study, a form or a command means when it names none (design.md 4.2)
DEFAULT_MODEL = "slider-crank"

# capabilities a model has (:attr:`Model.capabilities`): what the study, the worker and the
# pages ask of a model, instead of comparing its name
DESCRIBED = "described"  # the study carries the model in its [mechanism] table (design.md 4.7)
NAMED_JOINTS = "named-joints"  # clearance joints with names: dotted `joints.<j>.` parameters
CRANK_SPEED = "crank-speed"  # a `speed_rpm` parameter: the crank's, constant
SECTIONS = "sections"  # runs until settled, with Poincaré sections and classes (4.10)


@dataclass(frozen=True)
class Model:
    """A registry entry: where the model's case type and runner live (imported on use, so
    the flexible models cost nothing until asked for), what it can do
    (:attr:`capabilities`: :data:`DESCRIBED`, :data:`NAMED_JOINTS`, :data:`CRANK_SPEED`,
    :data:`SECTIONS`), its parameters (:meth:`parameters`, :mod:`.parameters`) and what its
    studies measure (:meth:`measures`, :mod:`.measures`: the metrics and series the pages
    offer and the default metric they open on)."""

    name: str
    module: str
    case_type: str
    runner: str
    description: str
    batch_runner: str | None = None
    #: a warm-up case runs with the model's defaults (``gapsweep warmup``); a described
    #: mechanism has no default table, and its runs use the slider-crank's compiled kernels
    warms_up: bool = True
    capabilities: frozenset[str] = frozenset()

    def can(self, capability: str) -> bool:
        """Whether the model has ``capability`` (one of this module's constants)."""
        return capability in self.capabilities

    def parameters(self) -> tuple[Any, ...]:
        """Its parameters (:class:`.parameters.Parameter`), in the registry's order."""
        from .parameters import model_parameters

        return model_parameters(self.name)

    def measures(self, table: Mapping[str, Any] | None = None) -> Any:
        """What a study of the model measures (:class:`.measures.Measures`): a described
        model's from its ``[mechanism]`` table ``table``, a built-in model's from the metric
        and series registries."""
        from . import measures

        return measures.of_table(table) if self.can(DESCRIBED) else measures.built_in()

    @property
    def default_metric(self) -> str:
        """The metric a page opens on for a study with no measures of its own (a described
        model's studies read theirs: :meth:`measures`)."""
        return self.measures().default_metric

    def _get(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.module, __package__), attr)

    def parse(self, params: Params) -> Any:
        """A validated case object from names and values."""
        return self._get(self.case_type).from_mapping(params)

    def defaults(self) -> dict[str, Any]:
        """Every parameter with its default value."""
        case_type = self._get(self.case_type)
        return {f.name: getattr(case_type, f.name) for f in fields(case_type)}

    def run(self, params: Params) -> CaseResult:
        return self._get(self.runner)(self.parse(params))

    def run_many(
        self, cases: Sequence[Params], *, threads: int | None, progress: Progress | None,
        case_progress: CaseProgress | None = None,
    ) -> list[CaseResult]:
        if self.batch_runner is not None:
            # only a model whose cases run in parts (a wear life) hears ``case_progress``
            more = {} if case_progress is None else {"case_progress": case_progress}
            return self._get(self.batch_runner)(cases, threads=threads, progress=progress,
                                                **more)
        results = []
        for k, params in enumerate(cases):
            try:
                results.append(self.run(params))
            except InputError as exc:
                failed = CaseResult(self.name, dict(params), status="failed", reason=str(exc))
                results.append(failed)
            if progress is not None:
                progress(k + 1, len(cases))
        return results


MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        Model(
            "slider-crank",
            ".simulation",
            "SliderCrankCase",
            "simulate",
            "Flores slider-crank with a revolute clearance joint (design.md 1.3)",
            batch_runner="simulate_batch",
            capabilities=frozenset({CRANK_SPEED, SECTIONS}),
        ),
        Model(
            "mechanism",
            ".mechanism.case",
            "MechanismCase",
            "simulate_mechanism",
            "your own planar mechanism: the [mechanism] table of the study (design.md 4.7)",
            batch_runner="simulate_mechanisms",
            warms_up=False,
            capabilities=frozenset({DESCRIBED, NAMED_JOINTS, SECTIONS}),
        ),
        Model(
            "cantilever",
            ".flexible.cantilever",
            "CantileverCase",
            "simulate_cantilever",
            "ANCF cantilever under gravity and a tip load (seed 001)",
        ),
        Model(
            "flexible-slider-crank",
            ".flexible.flexible_slider_crank",
            "FlexibleSliderCrankCase",
            "simulate_flexible_slider_crank",
            "slider-crank with an ANCF connecting rod and the clearance joint at its end",
            capabilities=frozenset({CRANK_SPEED}),
        ),
    )
}


def get_model(name: str) -> Model:
    """The registry entry of a model.

    Parameters
    ----------
    name : str
        The model's name, a key of :data:`MODELS` (``"slider-crank"``, ``"mechanism"`` ...).

    Returns
    -------
    Model
        Its registry entry.

    Raises
    ------
    InputError
        ``name`` is no model's; the message lists the models.
    """
    try:
        return MODELS[name]
    except KeyError:
        raise InputError("model", name, "one of " + ", ".join(MODELS)) from None


def can(model: str | None, capability: str) -> bool:
    """Whether a model can do something (a page or a form asks before the spec is
    validated, so a name no model has is an answer, not an error).

    Parameters
    ----------
    model : str or None
        The model's name; None means :data:`DEFAULT_MODEL`.
    capability : str
        One of :data:`DESCRIBED`, :data:`NAMED_JOINTS`, :data:`CRANK_SPEED`, :data:`SECTIONS`.

    Returns
    -------
    bool
        True when the model has it; False for an unknown model or capability.
    """
    entry = MODELS.get(model or DEFAULT_MODEL)
    return entry is not None and entry.can(capability)


def measures_of(model: str | None, table: Mapping[str, Any] | None = None) -> Any:
    """What a study of a model measures: its metrics and series.

    Parameters
    ----------
    model : str or None
        The model's name; None, or a name no model has, means :data:`DEFAULT_MODEL`.
    table : mapping, optional
        The study's ``[mechanism]`` table, for a described model (its joints name metrics).

    Returns
    -------
    Measures
        :class:`.measures.Measures` of the model (and of ``table``).
    """
    return (MODELS.get(model or DEFAULT_MODEL) or MODELS[DEFAULT_MODEL]).measures(table)


def run_case(model: str, params: Params) -> CaseResult:
    """Validate and run one case.

    Parameters
    ----------
    model : str
        The model's name (:func:`get_model`).
    params : mapping of str to Any
        The case's parameters, in the units their names carry (``clearance_mm`` ...); an
        absent one takes the model's default.

    Returns
    -------
    CaseResult
        The case's metrics, series and solver statistics (SI units).

    Raises
    ------
    InputError
        An unknown model, or a parameter outside its allowed range (the message names the
        field, the value and the range).
    """
    return get_model(model).run(params)


def run_cases(
    model: str,
    cases: Sequence[Params],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    case_progress: CaseProgress | None = None,
) -> list[CaseResult]:
    """Run many cases of one model, batched where the model supports it.

    Parameters
    ----------
    model : str
        The model's name (:func:`get_model`).
    cases : sequence of mappings
        Each case's parameters, as for :func:`run_case`.
    threads : int, optional
        Worker threads; None uses the usable cores.
    progress : callable, optional
        Called as ``progress(done, total)`` as cases finish.
    case_progress : callable, optional
        Hears of a long case's parts (a wear life's settled runs, :data:`CaseProgress`).

    Returns
    -------
    list of CaseResult
        One per case, in the order of ``cases``. An invalid case comes back as a failed
        result carrying its message; the others still run.

    Raises
    ------
    InputError
        An unknown model.
    """
    return get_model(model).run_many(cases, threads=threads, progress=progress,
                                     case_progress=case_progress)
