"""Plotly figures of a study and its cases as pure functions: plain data in, ``go.Figure`` out.

Inputs are what the db layer returns: a case is ``{"id", "params", "status", "metrics"}``,
series are ``dict[str, np.ndarray]``, analyses are the JSON-ready dicts of
``gapsweep.study.analysis``. Nothing here touches a session, a worker or the solver.
One module per view: :mod:`.trends`, :mod:`.sensitivity`, :mod:`.spectra`,
:mod:`.convergence`, :mod:`.case_views`, :mod:`.compare`, :mod:`.parallel`; the look and the
units convention live in :mod:`.style` and :mod:`.labels`.
"""
