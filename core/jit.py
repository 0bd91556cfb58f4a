"""The one place the core meets numba.

Every compiled kernel is declared with :func:`kernel`. It is ``numba.njit(cache=True)``: the
machine code is cached next to the sources (one folder per version of the core sources), so
only the very first run on a machine pays the compile (``gapsweep warmup`` does it on purpose,
with a message, in two processes: :mod:`warm`). ``GAPSWEEP_NO_JIT=1`` runs the same
Python source uncompiled - the same physics, about three orders of magnitude slower - for
debugging or where numba cannot compile.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import threading
import types
from collections.abc import Callable
from typing import Any

from .errors import CompileError

JIT_DISABLED = os.environ.get("GAPSWEEP_NO_JIT", "") not in ("", "0")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _sources_digest() -> str:
    """Hash of every source file of the core.

    numba keys a function's cache on its own file only, but the stepping loop inlines kernels
    from a dozen modules: after an edit (or an upgrade) elsewhere it would load stale machine
    code. One cache folder per version of the whole core rules that out.
    """
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(_HERE):
        # the described mechanisms (core/mechanism/) are plain Python that builds models and
        # never defines or inlines a kernel (tests/core/test_mechanism_table.py checks it):
        # an edit there must not cost a recompile
        skip = ("__pycache__", "mechanism") if root == _HERE else ("__pycache__",)
        dirs[:] = sorted(d for d in dirs if d not in skip)
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(root, name), "rb") as handle:
                    digest.update(name.encode() + handle.read())
    return digest.hexdigest()[:16]


def _cache_root() -> str:
    """Beside the sources; under the user's cache folder when that is read-only."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        base = os.environ["NUMBA_CACHE_DIR"]
    elif os.access(_HERE, os.W_OK):
        base = os.path.join(_HERE, "__pycache__", "numba")
    else:
        home = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
        base = os.path.join(home, "gapsweep", "numba")
    return os.path.join(base, _sources_digest())


CACHE_ROOT = _cache_root()

_NUMBA: Any = None  # the numba module, once a kernel is first used
_LOADING = threading.Lock()


def _load_numba() -> Any:
    """Import numba (once) and point its cache here; CompileError when it is missing."""
    global _NUMBA
    if _NUMBA is None:
        try:
            import numba
        except ImportError as exc:  # pragma: no cover - only in broken environments
            raise CompileError(
                f"numba is not importable ({exc}); install it (pip install numba) "
                "or set GAPSWEEP_NO_JIT=1 to run the kernels uncompiled (very slow)"
            ) from exc
        numba.config.CACHE_DIR = CACHE_ROOT  # read when each dispatcher is made
        _skip_blas_probe()
        _NUMBA = numba
    return _NUMBA


def _skip_blas_probe() -> None:
    """Import numba's array registry without its BLAS probe, which imports all of
    ``scipy.linalg``.

    numba imports ``numba.np.arraymath`` when a process compiles or loads its first kernel,
    and that module probes for BLAS at import (``import scipy.linalg.cython_blas``, which runs
    the whole ``scipy.linalg`` package: 0.21-0.24 s of CPU on this machine, the largest part
    of a cached kernel's load; issue 28). The probe only chooses how ``np.convolve`` /
    ``np.correlate`` compile, which no kernel calls. Everything that does use BLAS or LAPACK
    (``np.dot``, ``np.linalg.*``) calls ``numba.np.linalg.ensure_blas`` in its own lowering,
    left untouched, so it still imports SciPy when such a kernel is compiled or loaded.
    """
    from numba.np import linalg

    probe = linalg.ensure_blas
    linalg.ensure_blas = lambda: None  # read by arraymath's import-time probe only
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        linalg.ensure_blas = probe


class Kernel:
    """A kernel whose numba dispatcher is made when it is first used.

    Importing the core imports no numba (0.3 s of CPU, and the registries it loads): a
    process that only validates input - ``gapsweep submit``, the web form - never pays it
    (issue 28). The first call, or the first compile of a kernel that calls this one, makes
    the dispatcher, which loads the cached machine code or compiles it. numba types a kernel
    global by its ``_numba_type_`` and inlines by ``targetoptions``/``py_func``: attributes
    this object hands on to the dispatcher, so a caller's compiled code is the same.
    """

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self._func, self._options, self._dispatcher = func, options, None

    def dispatcher(self) -> Any:
        if self._dispatcher is None:
            with _LOADING:  # the batch runs cases on threads: one dispatcher per kernel
                if self._dispatcher is None:
                    self._dispatcher = _load_numba().njit(**self._options)(self._func)
        return self._dispatcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return (self._dispatcher or self.dispatcher())(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # py_func, overloads, _numba_type_, ...
        if name.startswith("__") or name in ("_func", "_options", "_dispatcher"):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)

    def __repr__(self) -> str:
        return f"<kernel {self.__module__}.{self.__qualname__}>"


def kernel(
    func: Callable[..., Any] | None = None, *, runtime: bool | None = None, **options: Any
) -> Any:
    """Decorate a numeric function as a compiled, cached kernel (or leave it as Python).

    ``runtime=False`` compiles it without numba's runtime: it may not allocate (numba
    refuses to compile it if it does), and in exchange the arrays it touches are not
    reference-counted. Those atomic increments made the stepping loop 1.65x slower (15-case
    study, one thread: 309 ms with them, 187 ms without), so every kernel of the loop works
    on buffers its caller allocated. Unset, a kernel has the runtime when it is compiled
    for Python, but one compiled for a runtime-free caller takes the caller's setting
    (numba hands it on): a kernel that allocates and is called from a runtime-free one
    says ``runtime=True``. The dispatcher is made on first use (:class:`Kernel`).
    """

    def wrap(f: Callable[..., Any]) -> Any:
        if JIT_DISABLED:
            return f
        opts = {"cache": True, "nogil": True}
        if runtime is not None:
            opts["_nrt"] = runtime
        opts.update(options)
        return Kernel(f, opts)

    return wrap(func) if func is not None else wrap


def inlined(k: Any) -> Any:
    """The kernel ``k`` again, inlined (numba IR inlining) where it is called: one function
    both as a plain call (``k``, compiled and typed once for all its callers) and as an
    inlined copy at the one site where a call costs time (the RK stage loop's RHS).

    The copy is a function of its own name (``<name>_inlined``), so numba's cache never
    mixes its entries with those of ``k``.
    """
    func = getattr(k, "_func", k)
    twin = types.FunctionType(
        func.__code__, func.__globals__, func.__name__ + "_inlined", func.__defaults__,
        func.__closure__,
    )  # fmt: skip
    functools.update_wrapper(twin, func)
    twin.__name__, twin.__qualname__ = func.__name__ + "_inlined", func.__qualname__ + "_inlined"
    del twin.__wrapped__  # numba reads the source of the copy, not of the original
    return kernel(inline="always")(twin)


def prune_stale_caches() -> tuple[int, int]:
    """Remove the compiled caches of earlier versions of the core's sources.

    Each version of the sources compiles into a folder of its own (about 6 MB), so an
    edited or upgraded tree accumulates them. Only the in-tree folder is pruned: one under
    ``NUMBA_CACHE_DIR`` or the user's cache folder may belong to other installs. Returns
    ``(folders, bytes)`` removed.
    """
    base = os.path.dirname(CACHE_ROOT)
    if base != os.path.join(_HERE, "__pycache__", "numba") or not os.path.isdir(base):
        return 0, 0
    folders = size = 0
    for name in os.listdir(base):
        path = os.path.join(base, name)
        if path == CACHE_ROOT or not os.path.isdir(path):
            continue
        for root, _, files in os.walk(path):
            size += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        shutil.rmtree(path, ignore_errors=True)
        folders += 1
    return folders, size


def kernels_cached() -> bool:
    """True when the stepping loop's compiled code is already cached for these sources."""
    if JIT_DISABLED:
        return True
    for _, _, files in os.walk(CACHE_ROOT):
        if any(f.startswith("stepping.integrate_batch") and f.endswith(".nbi") for f in files):
            return True
    return False


def cached_signatures(k: Any) -> list[tuple]:
    """The argument types of the signatures whose machine code numba has cached for kernel
    ``k`` (read from numba's cache index, without compiling); [] if none or unreadable."""
    if JIT_DISABLED:
        return []
    try:
        # numba's index file maps (signature, target, source stamp) to the data file
        index = k.dispatcher()._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - no cache, or numba changed its private layout
        return []
    return [tuple(key[0]) for key in index]


def is_compile_failure(exc: BaseException) -> bool:
    """True if ``exc`` is numba failing to type or compile a kernel (not a runtime error)."""
    return _NUMBA is not None and isinstance(exc, _NUMBA.core.errors.NumbaError)
