"""The round-off harness (design.md 4.15).

A test marked ``roundoff`` runs five times, with every contact stiffness multiplied by
1 + eps for eps in :data:`ROUNDOFF_EPS`, through the one variable the core reads
(:data:`gapsweep.core.assembly.STIFFNESS_EPS_ENV`). A 1e-13 change of K is a rounding - what
another processor or compiler does to the same case - so a marked test must assert what
holds for every such trajectory (a class, an ensemble, an invariant), never one chaotic
trajectory's details.

A module-scoped fixture that integrates for marked tests takes ``roundoff_eps`` as an
argument: it is then built once per eps, under that eps. Unmarked tests run with the
variable unset, even beside marked ones. ``--roundoff-eps=E1,E2,...`` replaces the five
(``benchmarks/motion_checks.py eps-sweep`` runs the marked tests over 21 values so).

The ``slow`` marker (:func:`pytest_collection_modifyitems`): a test that starts processes -
a ``gapsweep serve``, workers, a Redis server, a browser - is marked where it is collected,
so ``pytest -m "not slow"`` runs the fast half, new tests included.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from gapsweep.core.assembly import STIFFNESS_EPS_ENV

ROUNDOFF_EPS = (0.0, 1e-13, -1e-13, 1e-12, -1e-12)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--roundoff-eps", default="",
        help="comma-separated changes eps of the contact stiffness for tests marked roundoff "
        "(default: 0, +-1e-13, +-1e-12)",
    )


def _eps_values(config: pytest.Config) -> tuple[float, ...]:
    text = config.getoption("--roundoff-eps")
    if not text:
        return ROUNDOFF_EPS
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise pytest.UsageError(
            f"--roundoff-eps {text!r}: a comma-separated list of floats"
        ) from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("roundoff") is None:
        return
    if "roundoff_eps" not in metafunc.fixturenames:
        metafunc.fixturenames.append("roundoff_eps")
    values = _eps_values(metafunc.config)
    metafunc.parametrize(
        "roundoff_eps", values, indirect=True, scope="module",
        ids=[f"eps={eps:+.1e}" if eps else "eps=0" for eps in values],
    )


def _set(mp: pytest.MonkeyPatch, eps: float) -> None:
    if eps:
        mp.setenv(STIFFNESS_EPS_ENV, repr(eps))
    else:
        mp.delenv(STIFFNESS_EPS_ENV, raising=False)


@pytest.fixture(scope="module")
def roundoff_eps(request: pytest.FixtureRequest):
    """The eps of the marked test's run (0.0 outside the harness), with the variable set
    while module fixtures that take it are built."""
    eps = float(getattr(request, "param", 0.0))
    with pytest.MonkeyPatch.context() as mp:
        _set(mp, eps)
        yield eps


@pytest.fixture(autouse=True)
def _roundoff_environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Each test runs under its own eps: a marked test's, else none (a module fixture of
    another eps may still be alive around it)."""
    callspec = getattr(request.node, "callspec", None)
    marked = request.node.get_closest_marker("roundoff") is not None
    eps = callspec.params.get("roundoff_eps", 0.0) if (marked and callspec) else 0.0
    _set(monkeypatch, float(eps))
    yield


#: A module that uses one of these starts processes for its tests: the servers of
#: support.serving and tests/web/browsers.py, the workers and Redis servers of
#: support.processes and support.backends, and the command-line runs and fresh interpreters
#: of subprocess (each a new Python importing numpy and the kernels: seconds apiece)
PROCESS_HELPERS = frozenset({"support.serving", "support.processes", "support.backends",
                             "browsers", "subprocess"})
#: fixtures that start processes (tests/workers/conftest.py)
PROCESS_FIXTURES = frozenset({"procs", "backend", "redis_pg"})
#: modules that run long without those helpers: docker compose, the example studies, a wheel
#: build, and whole studies run in-process (test_study_run ~200 s, test_certificates_run
#: ~35 s of a fast half measured at 11.5 min on a loaded 2-core machine); the large
#: synthetic studies of the web's column reads (test_large_tabs ~50 s, test_trends_columns
#: ~50 s: 5,500 and 6,500 cases inserted per test and database) and a mechanism study run
#: with its certificates for the pages (test_pages_mechanism_measures ~50 s), measured at
#: load 10 on 2 cores; and the long runs, which compile the Radau loop on first use
#: (test_long_runs ~70 s, 65 s of it that compile, at load 2.5)
SLOW_MODULES = frozenset({"test_compose", "test_examples", "test_packaging", "test_study_run",
                          "test_certificates_run", "test_large_tabs", "test_trends_columns",
                          "test_pages_mechanism_measures", "test_long_runs"})


def _starts_processes(module: types.ModuleType, seen: dict[str, bool]) -> bool:
    """Whether ``module`` uses a process helper, or fixtures of a module that does (a browser
    module borrowing another's server)."""
    name = module.__name__
    if name not in seen:
        seen[name] = name.rpartition(".")[2] in SLOW_MODULES  # also breaks import loops
        for value in vars(module).values():
            origin = value.__name__ if isinstance(value, types.ModuleType) else getattr(
                value, "__module__", None)
            if not isinstance(origin, str) or origin == name:
                continue
            source = sys.modules.get(origin)
            if origin in PROCESS_HELPERS or (
                    source is not None and _is_test_code(source)
                    and _starts_processes(source, seen)):
                seen[name] = True
                break
    return seen[name]


TESTS = Path(__file__).resolve().parent


def _is_test_code(module: types.ModuleType) -> bool:
    """A module of tests/ (a test module whose fixtures another borrows, or tests/support)."""
    file = getattr(module, "__file__", None)
    return file is not None and Path(file).resolve().is_relative_to(TESTS)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen: dict[str, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if _starts_processes(module, seen) or PROCESS_FIXTURES & set(
                getattr(item, "fixturenames", ())) or _a_repeat(item):
            item.add_marker(pytest.mark.slow)


def _a_repeat(item: pytest.Item) -> bool:
    """A second run of a test the fast half already runs once: the PostgreSQL side of a
    test run on both databases (a server the SQLite side does not need), or a round-off
    rerun under eps != 0 (the harness, ``pytest -m roundoff``, runs them all)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    params = callspec.params
    on_postgres = any(isinstance(v, str) and v == "postgresql" for v in params.values())
    return on_postgres or bool(params.get("roundoff_eps", 0.0))
