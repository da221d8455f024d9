"""The region integrator's small least-squares solver (verify.numerics._ode.least_squares) against LAPACK's
dgelsd (np.linalg.lstsq), which it replaces in the compiled kernels."""

import numpy as np
import pytest

from verify.numerics import _ode

EPS = np.finfo(float).eps


def _solve(A, b, rcond):
    A = np.array(A, dtype=float)
    x = np.empty(A.shape[1])
    _ode.least_squares(A, np.array(b, dtype=float), float(rcond), x)
    return x


def test_one_by_one_systems_match_dgelsd_bit_for_bit():
    rng = np.random.default_rng(0)
    vals = np.concatenate([rng.standard_normal(2000), 10.0 ** rng.uniform(-30, 30, 2000), [0.0, -0.0, 1.0, 3.0]])
    for a, b in zip(vals, rng.permutation(vals)):
        ref = np.linalg.lstsq(np.array([[a]]), np.array([b]), rcond=EPS)[0]
        assert _solve([[a]], [b], EPS).tobytes() == ref.tobytes(), (a, b)


@pytest.mark.parametrize("rows, cols", [(2, 2), (3, 2), (5, 3), (10, 2), (51, 4), (3, 3)])
def test_full_rank_systems_agree_with_dgelsd_to_rounding(rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    worst = 0.0
    for _ in range(300):
        A = rng.standard_normal((rows, cols))
        if rows == cols:  # the Gram matrices of the sliding projection: symmetric, positive definite
            A = A @ A.T + 1e-3 * np.eye(rows)
        b = rng.standard_normal(rows)
        rcond = EPS * max(rows, cols)
        ref = np.linalg.lstsq(A, b, rcond=rcond)[0]
        x = _solve(A, b, rcond)
        scale = np.linalg.cond(A) * (np.abs(ref).max() + np.linalg.norm(b) / np.linalg.svd(A, compute_uv=False).max())
        worst = max(worst, np.abs(x - ref).max() / scale)
    assert worst < 100 * EPS


def test_a_dependent_column_gets_zero_and_the_fit_stays_least_squares():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((6, 3))
    A[:, 2] = 2.0 * A[:, 0]
    b = rng.standard_normal(6)
    x = _solve(A, b, EPS * 6)
    ref = np.linalg.lstsq(A, b, rcond=EPS * 6)[0]
    assert np.allclose(A @ x, A @ ref, rtol=0, atol=1e-12)  # the same fitted values (projection of b)
    assert np.count_nonzero(x) == 2


def test_non_finite_input_raises_linalg_error_as_lstsq_does():
    with pytest.raises(np.linalg.LinAlgError):
        _solve([[1.0, np.nan], [0.0, 1.0]], [1.0, 2.0], EPS)
    with pytest.raises(np.linalg.LinAlgError):
        _solve([[1.0]], [np.inf], EPS)
