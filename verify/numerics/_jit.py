"""The compiler behind the numerics' inner loops: numba, when it imports and is not switched off.

``ENABLED`` says whether the compiled kernels are in use.  ``VERIFY_JIT=0`` in the environment switches
them off (every integrator then runs its numpy path, which computes the same iteration); so does a missing
or broken numba.  :func:`jit` compiles a function in nopython mode with

* ``cache=True``: the machine code is written beside the module (``__pycache__``), or, where that folder
  is read-only, to numba's user-wide cache (``NUMBA_CACHE_DIR`` overrides both), so a second process pays
  no compilation; the runner's forked workers share it;
* no ``fastmath``: no reassociation, no fused multiply-adds, IEEE semantics for inf and NaN, so the result
  of a kernel does not depend on the machine's vector width;
* ``error_model="numpy"``: a division by zero gives inf or NaN as numpy does, never an exception.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

ENABLED = False
_numba = None
if os.environ.get("VERIFY_JIT", "1") not in ("0", "false", "no", "off"):
    try:
        import numba as _numba

        ENABLED = True
    except Exception:  # a missing or broken numba: the numpy paths take over
        _numba = None


def jit(fn: Callable) -> Callable:
    """``fn`` compiled (nopython, cached, no fastmath) when numba is enabled, else ``fn`` unchanged."""
    if not ENABLED:
        return fn
    return _numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


def carray(x, dtype=np.float64) -> np.ndarray:
    """``x`` as a C-contiguous, writeable array of ``dtype``, copied only when it is not one already.

    Every array handed to a kernel goes through this: numba compiles one machine-code version per array
    type, and layout (C, F, strided) and read-only-ness are part of the type, so without it one kernel
    could be compiled several times over (once per caller's kind of array)."""
    a = np.ascontiguousarray(x, dtype=dtype)
    return a if a.flags.writeable else a.copy()
