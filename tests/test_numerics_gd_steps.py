"""flow.gd_steps must reproduce flow.gradient_descent (same iteration, different evaluation order)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.errors import UsageError
from verify.numerics.flow import gd_step_flops, gd_steps, gradient_descent


def _problem(B=5, m=7, n=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y, 0.3 * rng.standard_normal((B, m, d)), 0.3 * rng.standard_normal((B, m))


@pytest.mark.parametrize("alpha", [0.0, 0.3])
@pytest.mark.parametrize("loss,reduction", [("logistic", "mean"), ("exponential", "sum")])
def test_matches_gradient_descent(alpha, loss, reduction):
    X, y, W0, a0 = _problem()
    ref = gradient_descent(W0, a0, X, y, alpha=alpha, loss=loss, lr=0.02, steps=40, reduction=reduction,
                           error_estimate=None)
    W, a = gd_steps(W0, a0, X, y, alpha=alpha, loss=loss, lr=0.02, steps=40, reduction=reduction)
    assert np.all(np.isfinite(ref.W)) and np.all(ref.history["log_loss"][-1] < ref.history["log_loss"][0])
    scale = np.max(np.abs(ref.W))
    assert np.max(np.abs(W - ref.W)) <= 1e-12 * scale
    assert np.max(np.abs(a - ref.a)) <= 1e-12 * scale


def test_unbatched_and_chunked_agree():
    X, y, W0, a0 = _problem(B=3, m=200, n=300)  # m n > chunk size: one seed per chunk
    Wb, ab = gd_steps(W0, a0, X, y, lr=0.1, steps=5)
    for b in range(3):
        W1, a1 = gd_steps(W0[b], a0[b], X, y, lr=0.1, steps=5)
        assert W1.shape == W0[b].shape
        np.testing.assert_allclose(W1, Wb[b], rtol=0, atol=1e-13)
        np.testing.assert_allclose(a1, ab[b], rtol=0, atol=1e-13)


def test_exact_kink_uses_at_kink():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    W0 = np.array([[0.0, 1.0], [1.0, 1.0]])  # <w_1, x_1> = 0 exactly
    a0 = np.array([1.0, -0.5])
    for kink in (0.0, 0.25, None):
        ref = gradient_descent(W0, a0, X, y, alpha=0.1, lr=0.1, steps=1, at_kink=kink, error_estimate=None)
        W, a = gd_steps(W0, a0, X, y, alpha=0.1, lr=0.1, steps=1, at_kink=kink)
        np.testing.assert_allclose(W, ref.W, rtol=0, atol=1e-15)
        np.testing.assert_allclose(a, ref.a, rtol=0, atol=1e-15)


def test_rejects_bad_input():
    X, y, W0, a0 = _problem()
    with pytest.raises(UsageError):
        gd_steps(W0, a0[:, :-1], X, y, lr=0.1, steps=1)
    with pytest.raises(UsageError):
        gd_steps(W0, a0, X, y, lr=0.0, steps=1)
    with pytest.raises(UsageError):
        gd_steps(W0, a0, X, y, lr=0.1, steps=1, alpha=2.0)


def test_flop_count():
    assert gd_step_flops(1, 1, 1, 1) == 8
