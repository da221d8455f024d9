"""The compiler behind the numerics' inner loops: numba, when it imports and is not switched off.

``ENABLED`` says whether the compiled kernels are in use.  ``VERIFY_JIT=0`` in the environment switches
them off (every integrator then runs its numpy path, which computes the same iteration); so does a missing
or broken numba.  :func:`jit` compiles a function in nopython mode with

* ``cache=True``: the machine code is written to ``numba-<fingerprint>`` inside this folder's ``__pycache__``
  (or inside ``NUMBA_CACHE_DIR`` when that is set; numba's user-wide cache where neither is writable), so a
  second process pays no compilation; the runner's forked workers share it. The fingerprint hashes the
  sources of the kernel modules that other modules' kernels call into (this file, ``_kernels.py``,
  ``_ode.py``): numba checks a cached function against its own file only, so a kernel of ``_ode.py`` that
  inlines a function of ``_kernels.py`` would otherwise be loaded stale after ``_kernels.py`` changed (seen:
  a new loss kind silently computed with the old formula);
* no ``fastmath``: no reassociation, no fused multiply-adds, IEEE semantics for inf and NaN, so the result
  of a kernel does not depend on the machine's vector width;
* ``error_model="numpy"``: a division by zero gives inf or NaN as numpy does, never an exception.

Cold compilation (issue 31: all kernels of the catalogue in one process, 2-core machine) is mostly numba's
typing and lowering and LLVM, and some constructs cost far more than the loops they stand for; the kernels
avoid them (figures: CPU seconds, measured on that machine):

* an array assigned to a row (``out[k] = y``): ~1.5-2 s per combination of types (numba's general
  broadcasting assignment and its error path); the kernels copy in loops;
* ``np.linalg.lstsq``: ~4 s (``_ode.least_squares`` makes its LAPACK call directly);
* deep chains of compiled calls: numba links each compiled callee into its caller and optimises and
  generates machine code for it again there, so a function k levels down is compiled k times (one wrapper
  level ~1 s in the region integrator);
* the wrappers through which Python calls a compiled function, generated for every one: the kernels that
  only other kernels call are declared with :func:`jit_callee`, which leaves them out;
* inlined functions (:func:`jit_inline`) are re-read, copied and typed at every call site, nested ones
  again for every level, and a constant argument does not remove their untaken branches before typing: the
  hot kernels call the specialised pieces directly.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
# the modules whose kernels are called (and inlined) by kernels of other modules
KERNEL_SOURCES = ("_jit.py", "_kernels.py", "_ode.py")


def fingerprint() -> str:
    """A hash of KERNEL_SOURCES: the name of the folder the compiled kernels are cached in."""
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        h.update((_HERE / name).read_bytes())
    return h.hexdigest()[:16]


ENABLED = False
_numba = None
if os.environ.get("VERIFY_JIT", "1") not in ("0", "false", "no", "off"):
    try:
        import numba as _numba
        import numba.core.config as _numba_config

        ENABLED = True
        _base = os.environ.get("NUMBA_CACHE_DIR") or str(_HERE / "__pycache__")
        _numba_config.CACHE_DIR = os.path.join(_base, f"numba-{fingerprint()}")
    except Exception:  # a missing or broken numba: the numpy paths take over
        _numba = None


def jit(fn: Callable) -> Callable:
    """``fn`` compiled (nopython, cached, no fastmath) when numba is enabled, else ``fn`` unchanged."""
    if not ENABLED:
        return fn
    return _numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


def jit_callee(fn: Callable) -> Callable:
    """As :func:`jit`, for a kernel that only other kernels call: compiled without the wrappers that let Python
    (numba's CPython wrapper) or C (its cfunc wrapper) call it, which numba otherwise generates, optimises and
    turns into machine code for every compiled function; a call from a compiled kernel never goes through them.
    Cold compilation of the catalogue's kernels, 16 such callees: 39.9-40.6 -> 37.9-39.6 s CPU (3 runs each,
    alternated, 2-core machine otherwise idle). Called from Python it fails (numba has no entry point for it):
    a kernel that Python calls, or a test, is declared with :func:`jit`."""
    if not ENABLED:
        return fn
    return _numba.njit(cache=True, nogil=True, error_model="numpy", no_cpython_wrapper=True,
                       no_cfunc_wrapper=True)(fn)


def jit_inline(fn: Callable) -> Callable:
    """As :func:`jit`, and inlined into every compiled caller (numba's ``inline="always"``, at the level of
    numba's IR: the same floating-point operations in the same order).  For the small per-step helpers
    of the integrators: a call passes each array as a struct of seven words, and at the catalogue's
    shapes (m n d of a few dozen) the calls cost more than the arithmetic (forward pass at m n d = 28:
    142 ns called, 68 ns inlined).  Inlining is paid at compile time in every caller: keep it to small
    helpers (the region ODE integrator's field, inlined, took its cold compilation from 47 s to 259 s)."""
    if not ENABLED:
        return fn
    return _numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")(fn)


def carray(x, dtype=np.float64) -> np.ndarray:
    """``x`` as a C-contiguous, writeable array of ``dtype``, copied only when it is not one already.

    Every array handed to a kernel goes through this: numba compiles one machine-code version per array
    type, and layout (C, F, strided) and read-only-ness are part of the type, so without it one kernel
    could be compiled several times over (once per caller's kind of array)."""
    a = np.ascontiguousarray(x, dtype=dtype)
    return a if a.flags.writeable else a.copy()
