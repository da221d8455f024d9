"""The region integrator's least-squares call (verify.numerics._ode.least_squares: LAPACK's dgelsd through
numba's binding) against np.linalg.lstsq's routine, which it stands in for in the compiled kernels."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

from verify.numerics import _ode

EPS = np.finfo(float).eps


def _solve(A, b, rcond):
    A = np.array(A, dtype=float)
    x = np.empty(A.shape[1])
    _ode.least_squares(A.copy(), np.array(b, dtype=float), float(rcond), x)
    return x


def _dgelsd(A, b, rcond):
    """scipy's dgelsd (the LAPACK numba's np.linalg.lstsq calls)."""
    return scipy.linalg.lstsq(np.array(A, dtype=float), np.array(b, dtype=float), cond=rcond,
                              lapack_driver="gelsd", check_finite=False)[0]


@pytest.mark.parametrize("rows, cols", [(1, 1), (2, 2), (3, 2), (5, 3), (10, 2), (51, 4), (3, 3), (2, 4)])
def test_systems_are_solved_as_dgelsd_solves_them_bit_for_bit(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    for k in range(200):
        A = rng.standard_normal((rows, cols)) * 10.0 ** rng.uniform(-20, 20)
        if rows == cols and k % 2:  # the Gram matrices of the sliding projection
            A = A @ A.T
        if k % 5 == 0 and cols > 1:  # a dependent column: the rank-deficient (minimum-norm) solution
            A[:, -1] = 2.0 * A[:, 0]
        b = rng.standard_normal(rows)
        rcond = EPS * max(rows, cols)
        assert _solve(A, b, rcond).tobytes() == _dgelsd(A, b, rcond).tobytes()


def test_the_compiled_kernel_agrees_with_numbas_lstsq():
    numba = pytest.importorskip("numba")
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("compiled kernels switched off")
    lstsq = numba.njit(lambda A, b, r: np.linalg.lstsq(A, b, r)[0])
    rng = np.random.default_rng(7)
    for rows, cols in [(1, 1), (4, 2), (2, 2), (6, 3)]:
        A, b = rng.standard_normal((rows, cols)), rng.standard_normal(rows)
        assert _solve(A, b, EPS * rows).tobytes() == lstsq(A, b, EPS * rows).tobytes()


def test_a_non_finite_matrix_raises_linalg_error_as_numbas_lstsq_does():
    with pytest.raises(np.linalg.LinAlgError):
        _solve([[1.0, np.nan], [0.0, 1.0]], [1.0, 2.0], EPS)
    with pytest.raises(np.linalg.LinAlgError):
        _solve([[np.inf]], [1.0], EPS)


@pytest.mark.parametrize("A, b", [([[1.0]], [np.inf]), ([[1.0, 0.5], [0.0, 1.0], [1.0, 1.0]], [np.nan, 1.0, 2.0]),
                                  ([[2.0, 1.0], [1.0, 3.0]], [-np.inf, 1.0])])
def test_a_non_finite_right_hand_side_gives_what_numpys_lstsq_gives(A, b):
    """The field of a rejected trial stage (overflowed loss weights): np.linalg.lstsq, which the numpy path
    calls, returns NaN rather than raising, and so must the compiled path (a raise repeated the whole run on
    the numpy path, 20x slower)."""
    x = _solve(A, b, EPS * 3)
    ref = np.linalg.lstsq(np.array(A), np.array(b), EPS * 3)[0]
    assert np.isnan(ref).all() and np.isnan(x).all()


FALLBACK = """
import numpy as np
import numba.np.linalg as L
binding = L._LAPACK.numba_ez_gelsd
del L._LAPACK.numba_ez_gelsd          # the module imported by a numba without the private binding
from verify.numerics import _ode
L._LAPACK.numba_ez_gelsd = binding    # numba's own lstsq (the fallback) still needs it here
assert _ode._gelsd is None
rng = np.random.default_rng(3)
for rows, cols in [(1, 1), (4, 2), (2, 2), (6, 3)]:
    A, b, x = rng.standard_normal((rows, cols)), rng.standard_normal(rows), np.empty(cols)
    _ode.least_squares(A.copy(), b, 2.2e-16 * rows, x)
    assert x.tobytes() == np.linalg.lstsq(A, b, 2.2e-16 * rows)[0].tobytes(), (rows, cols)
    b[0] = np.nan                      # a non-finite right-hand side: NaN, as np.linalg.lstsq gives
    _ode.least_squares(A.copy(), b, 2.2e-16 * rows, x)
    assert np.isnan(x).all() and np.isnan(np.linalg.lstsq(A, b, 2.2e-16 * rows)[0]).all(), (rows, cols)
print("fallback ok")
"""


def test_a_numba_without_its_dgelsd_binding_falls_back_to_its_lstsq(tmp_path):
    """The binding is a private name of numba's: without it the module still imports and solves (numba's
    public lstsq, the same LAPACK routine)."""
    pytest.importorskip("numba")
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("compiled kernels switched off")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "NUMBA_CACHE_DIR": str(tmp_path)}
    r = subprocess.run([sys.executable, "-c", FALLBACK], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0 and "fallback ok" in r.stdout, r.stderr[-2000:]
