"""The one place the core meets numba.

Every compiled kernel is declared with :func:`kernel`. It is ``numba.njit(cache=True)``: the
machine code is cached next to the sources, so only the very first run on a machine pays the
compile (tens of seconds for the stepping loop; ``gapsweep warmup`` does it on purpose with a
message). ``GAPSWEEP_NO_JIT=1`` runs the same Python source uncompiled - the same physics,
about three orders of magnitude slower - for debugging or where numba cannot compile.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .errors import CompileError

JIT_DISABLED = os.environ.get("GAPSWEEP_NO_JIT", "") not in ("", "0")

# The cache lives beside the sources; an install there that is read-only (a system
# site-packages) caches under the user's cache folder instead of compiling in every process.
_HERE = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("NUMBA_CACHE_DIR") and not os.access(_HERE, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "gapsweep", "numba"
    )

try:  # numba is a hard dependency, but an environment without it still gets a clear message
    import numba as _numba
except ImportError as exc:  # pragma: no cover - exercised only in broken environments
    _numba = None
    _IMPORT_ERROR: Exception | None = exc
else:
    _IMPORT_ERROR = None


def kernel(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorate a numeric function as a compiled, cached kernel (or leave it as Python)."""

    def wrap(f: Callable[..., Any]) -> Any:
        if JIT_DISABLED:
            return f
        if _numba is None:
            raise CompileError(
                f"numba is not importable ({_IMPORT_ERROR}); install it (pip install numba) "
                "or set GAPSWEEP_NO_JIT=1 to run the kernels uncompiled (very slow)"
            )
        opts = {"cache": True, "nogil": True}
        opts.update(options)
        return _numba.njit(**opts)(f)

    return wrap(func) if func is not None else wrap


# numba recognises its own ``prange`` object inside a parallel kernel; as Python it is range.
prange = range if (_numba is None or JIT_DISABLED) else _numba.prange


def set_threads(n: int) -> None:
    """Limit numba's parallel kernels to ``n`` threads (never more than the cores)."""
    if not JIT_DISABLED and _numba is not None:
        _numba.set_num_threads(max(1, min(n, _numba.config.NUMBA_NUM_THREADS)))


def kernels_cached() -> bool:
    """True when the stepping loop's compiled code is already cached on this machine."""
    if JIT_DISABLED:
        return True
    cache_dirs = [os.path.join(_HERE, "__pycache__")]
    if _numba is not None and _numba.config.CACHE_DIR:
        cache_dirs.append(_numba.config.CACHE_DIR)
    for folder in cache_dirs:
        if os.path.isdir(folder) and any(
            name.startswith("stepping.integrate_batch") and name.endswith(".nbi")
            for name in os.listdir(folder)
        ):
            return True
    return False


def is_compile_failure(exc: BaseException) -> bool:
    """True if ``exc`` is numba failing to type or compile a kernel (not a runtime error)."""
    return _numba is not None and isinstance(exc, _numba.core.errors.NumbaError)
