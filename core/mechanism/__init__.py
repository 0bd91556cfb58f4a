"""Mechanisms described as data (design.md 4.7): the ``[mechanism]`` table of a study, read
by a safe expression evaluator (:mod:`.expressions`), validated (:mod:`.table`), assembled
into a :class:`~gapsweep.core.model.Mechanism` with its loops closed and its driver swept
through a revolution (:mod:`.build`), and run as the ``mechanism`` model (:mod:`.case`).

Plain Python only: no module here defines or inlines a compiled kernel, so that an edit
here does not invalidate the kernels' cache (:mod:`gapsweep.core.jit`).
"""
