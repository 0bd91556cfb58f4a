"""The one place the core meets numba.

Every compiled kernel is declared with :func:`kernel`. It is ``numba.njit(cache=True)``: the
machine code is cached next to the sources (one folder per version of the core sources), so
only the very first run on a machine pays the compile (``gapsweep warmup`` does it on purpose,
with a message, in two processes: :mod:`warm`). ``GAPSWEEP_NO_JIT=1`` runs the same
Python source uncompiled - the same physics, about three orders of magnitude slower - for
debugging or where numba cannot compile.
"""

from __future__ import annotations

import hashlib
import os
import shutil
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

try:  # numba is a hard dependency, but an environment without it still gets a clear message
    import numba as _numba
except ImportError as exc:  # pragma: no cover - exercised only in broken environments
    _numba = None
    _IMPORT_ERROR: Exception | None = exc
else:
    _IMPORT_ERROR = None
    # read by numba when each cached kernel is declared, i.e. after this module ran
    _numba.config.CACHE_DIR = CACHE_ROOT


def kernel(func: Callable[..., Any] | None = None, *, runtime: bool = True, **options: Any) -> Any:
    """Decorate a numeric function as a compiled, cached kernel (or leave it as Python).

    ``runtime=False`` compiles it without numba's runtime: it may not allocate (numba
    refuses to compile it if it does), and in exchange the arrays it touches are not
    reference-counted. Those atomic increments made the stepping loop 1.65x slower (15-case
    study, one thread: 309 ms with them, 187 ms without), so every kernel of the loop works
    on buffers its caller allocated.
    """

    def wrap(f: Callable[..., Any]) -> Any:
        if JIT_DISABLED:
            return f
        if _numba is None:
            raise CompileError(
                f"numba is not importable ({_IMPORT_ERROR}); install it (pip install numba) "
                "or set GAPSWEEP_NO_JIT=1 to run the kernels uncompiled (very slow)"
            )
        opts = {"cache": True, "nogil": True}
        if not runtime:
            opts["_nrt"] = False
        opts.update(options)
        return _numba.njit(**opts)(f)

    return wrap(func) if func is not None else wrap


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


def is_compile_failure(exc: BaseException) -> bool:
    """True if ``exc`` is numba failing to type or compile a kernel (not a runtime error)."""
    return _numba is not None and isinstance(exc, _numba.core.errors.NumbaError)
