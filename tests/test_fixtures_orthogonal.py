"""Tests of the orthogonally separable data families (fixtures/orthogonal.py)."""

import numpy as np
import pytest

from fixtures import orthogonal as osd


def _gram_signs(X, y):
    K = X @ X.T
    same = np.equal.outer(y, y)
    return K[same].min(), K[~same].max()


@pytest.mark.parametrize("fam,params", [
    (osd.orthant, {"d": 5}), (osd.cones, {"d": 3}), (osd.cones, {"d": 2, "half_angle": 0.7, "gap": 0.01}),
    (osd.near_boundary, {"d": 3}), (osd.boundary, {}), (osd.span_certified, {"d": 4}),
    (osd.span_certified, {"d": 2, "n_pos": 3, "n_neg": 5}),
])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_families_are_orthogonally_separable(fam, params, seed):
    data = fam.build(np.random.default_rng(seed), **params)
    X, y = data["X"], data["y"]
    same_min, cross_max = _gram_signs(X, y)
    assert same_min > 0
    assert cross_max <= 1e-13 * np.max(np.linalg.norm(X, axis=1)) ** 2
    assert set(np.unique(y)) == {-1.0, 1.0}


def test_families_are_reproducible():
    a = osd.cones.build(np.random.default_rng(7))
    b = osd.cones.build(np.random.default_rng(7))
    np.testing.assert_array_equal(a["X"], b["X"])


def test_cones_angle_bounds():
    ha, gap = 0.3, 0.2
    data = osd.cones.build(np.random.default_rng(3), d=4, n_pos=20, n_neg=20, half_angle=ha, gap=gap)
    X, y = data["X"], data["y"]
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    C = U @ U.T
    same = np.equal.outer(y, y)
    assert C[same].min() >= np.cos(2 * ha) - 1e-12
    assert C[~same].max() <= -np.sin(gap) + 1e-12


def test_near_boundary_slack_is_the_requested_one():
    data = osd.near_boundary.build(np.random.default_rng(0), d=3, cos_same=2e-4, cos_cross=-1e-4)
    X, y = data["X"], data["y"]
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    C = U @ U.T
    same = np.equal.outer(y, y)
    assert C[same].min() == pytest.approx(2e-4, abs=1e-12)
    assert C[~same].max() == pytest.approx(-1e-4, abs=1e-12)


def test_boundary_has_exact_cross_class_zeros():
    data = osd.boundary.build(np.random.default_rng(0), permute=False)
    X, y = data["X"], data["y"]
    K = X @ X.T
    assert np.all(K == np.round(K))                       # exact integers
    assert np.any(K[np.ix_(y > 0, y < 0)] == 0.0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_span_certified_max_margin_is_the_closed_form(seed):
    d = 4
    data = osd.span_certified.build(np.random.default_rng(seed), d=d, n_pos=9, n_neg=7)
    X, y = data["X"], data["y"]
    for w, sup, cls in ((data["w_pos"], data["support_pos"], 1.0), (data["w_neg"], data["support_neg"], -1.0)):
        Xc = X[y == cls]
        marg = Xc @ w
        assert marg.min() >= 1 - 1e-12                        # primal feasibility
        np.testing.assert_allclose(X[sup] @ w, 1.0, atol=1e-12)  # support examples on the margin
        assert np.all(np.delete(marg, sup - (0 if cls > 0 else np.sum(y > 0))) >= 1.1 - 1e-12)
        alpha = np.linalg.solve(X[sup] @ X[sup].T, np.ones(d))   # w = X_S^T alpha with X_S w = 1
        assert np.all(alpha > 0)                                 # dual feasibility, strict complementarity
        np.testing.assert_allclose(X[sup].T @ alpha, w, atol=1e-10)   # stationarity
        assert np.linalg.matrix_rank(X[sup]) == d                # support examples span R^d
