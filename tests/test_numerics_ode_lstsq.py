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
E = rng.standard_normal((5, 4))                    # the region's pseudo-inverses through the fallback too
sptr, splane = np.array([0, 1, 3, 6], dtype=np.int64), np.array([4, 0, 2, 1, 3, 4], dtype=np.int64)
PI = _ode.sliding_pinv(E, sptr, splane)
for s in (1, 2):
    block, Ec = PI[sptr[s]:sptr[s + 1]], E[splane[sptr[s]:sptr[s + 1]]].T
    assert np.allclose(block, np.linalg.pinv(Ec), rtol=1e-12, atol=1e-14), s
assert not PI[0].any()
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


@pytest.mark.parametrize("rows, cols, nrhs", [(51, 2, 51), (51, 4, 51), (3, 3, 3), (2, 4, 2), (10, 3, 1)])
def test_several_right_hand_sides_are_solved_as_dgelsd_solves_them_bit_for_bit(rows, cols, nrhs):
    """least_squares_columns: one dgelsd call for a block of right-hand sides (sliding_pinv's identity)."""
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("compiled kernels switched off")
    rng = np.random.default_rng(rows * 1000 + cols * 10 + nrhs)
    for k in range(40):
        A = rng.standard_normal((rows, cols)) * 10.0 ** rng.uniform(-10, 10)
        if k % 4 == 0 and cols > 1:
            A[:, -1] = 3.0 * A[:, 0]
        B = np.eye(rows, nrhs) if k % 2 else rng.standard_normal((rows, nrhs))
        X = np.empty((cols, nrhs))
        rcond = EPS * max(rows, cols)
        _ode.least_squares_columns(A.copy(), B.copy(), rcond, X)
        assert X.tobytes() == _dgelsd(A, B, rcond).tobytes()


def _planes(rng, R, d):
    E = rng.standard_normal((R, d))
    return E / np.linalg.norm(E, axis=1, keepdims=True)


@pytest.mark.parametrize("d", [2, 5, 51])
def test_the_regions_pseudo_inverses_solve_the_sliding_problems_as_dgelsd_does(d):
    """sliding_pinv (once per region) times z against one dgelsd solve of min |Ec^T beta - z| per neuron
    (what parts did at every field evaluation): the same solution to rounding, for independent planes, a
    plane in the span of two others (the minimum-norm solution, dgelsd's rank decision), more planes than
    dimensions; a neuron on one plane gets zero rows (parts solves it in closed form)."""
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("compiled kernels switched off")
    rng = np.random.default_rng(d)
    E = _planes(rng, 8, d)
    E[7] = E[0] + E[1]                     # a plane in the span of two others
    E[7] /= np.linalg.norm(E[7])
    groups = [[2], [0, 3], [1, 4, 5], [0, 1, 7], list(range(min(d + 1, 7)))]
    sptr = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    splane = np.concatenate(groups).astype(np.int64)
    PI = _ode.sliding_pinv(E, sptr, splane)
    assert PI.shape == (len(splane), d) and not PI[0].any()
    for s, g in enumerate(groups[1:], start=1):
        Ec = E[g].T
        block = PI[sptr[s]:sptr[s + 1]]
        for _ in range(20):
            z = rng.standard_normal(d) * 10.0 ** rng.uniform(-30, 30)
            ref = _dgelsd(Ec, z, EPS * max(d, len(g)))
            scale = np.linalg.norm(z) / np.linalg.svd(Ec, compute_uv=False).max()
            assert np.max(np.abs(block @ z - ref)) <= 1e-13 * scale, (d, g)


def test_the_pseudo_inverses_are_wrong_for_other_planes():
    """The check above can fail: a block of another neuron's planes does not solve this one's problem."""
    from verify.numerics import _jit

    if not _jit.ENABLED:
        pytest.skip("compiled kernels switched off")
    rng = np.random.default_rng(1)
    E = _planes(rng, 6, 5)
    sptr, splane = np.array([0, 2, 4], dtype=np.int64), np.array([0, 1, 2, 3], dtype=np.int64)
    PI = _ode.sliding_pinv(E, sptr, splane)
    z = rng.standard_normal(5)
    assert np.max(np.abs(PI[2:4] @ z - _dgelsd(E[[0, 1]].T, z, EPS * 5))) > 1e-3
