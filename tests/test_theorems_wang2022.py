"""Fast unit tests of the Wang & Pilanci (2022) helpers and fixtures (known closed forms, spec §1-§4)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from fixtures.wang2022 import (
    F1,
    F2,
    MC3,
    OBTUSE_SAME,
    SLIDE,
    MC3_binary,
    gen_gauss,
    mc_simplex,
    os_boundary,
    os_cones,
    sf_mmatrix,
)
from theorems.wang2022._numerics import (
    circle_max,
    clarke_alignment,
    class_svm,
    convex_dual,
    dual_constraint_value,
    enumerate_patterns,
    is_orthogonally_separable,
    lambda_tilde,
    nonconvex_kkt,
    os_closed_form,
    per_point_network,
    solve_convex,
    spike_free_margin,
)


def build(fam, seed=0, **params):
    return fam.build(np.random.default_rng(seed), **{**fam.defaults, **params})


def test_pattern_count_is_covers_count_in_general_position():
    fx = build(gen_gauss, N=10, d=3)
    assert enumerate_patterns(fx["X"]).shape[1] == 2 * sum(comb(9, k) for k in range(3))


def test_patterns_full_row_rank_are_all_sign_vectors():
    fx = build(sf_mmatrix, N=3, d=4)
    assert enumerate_patterns(fx["X"]).shape[1] == 8


def test_F1_closed_form_optimum_and_dual():
    fx = build(F1)
    X, y = fx["X"], fx["y"]
    sol = solve_convex(X, y)
    P = 1 / np.linalg.norm(X[0]) + 1 / np.linalg.norm(X[1])
    assert sol["value"] == pytest.approx(1.28243, abs=1e-5)
    assert sol["value"] == pytest.approx(P, rel=1e-7)
    assert convex_dual(X, y, sol["Dmat"])["value"] == pytest.approx(P, rel=1e-7)
    assert os_closed_form(X, y)["P"] == pytest.approx(P, rel=1e-12)
    assert dual_constraint_value(X, sol["lam"], sol["Dmat"]) == pytest.approx(1.0, abs=1e-6)


def test_SLIDE_optimum_and_clarke_gap():
    fx = build(SLIDE)
    X, y = fx["X"], fx["y"]
    sol = solve_convex(X, y)
    assert sol["value"] == pytest.approx(4.0, rel=1e-7)
    np.testing.assert_allclose(sol["lam"], [2.0, -2.0], atol=1e-6)
    u = np.array([0.5, -np.sqrt(3) / 2])
    g = X.T @ ((X @ u > 1e-12) * y)
    assert u @ g / np.linalg.norm(g) == pytest.approx(0.5, abs=1e-9)
    assert clarke_alignment(X, u, y) == pytest.approx(1.0, abs=1e-9)


def test_MC3_split_kkt_point_is_not_global():
    fx = build(MC3_binary)
    X, y = fx["X"], fx["y"]
    sol = solve_convex(X, y)
    assert sol["value"] == pytest.approx(2.8384, abs=1e-4)
    W1, w2, lam = per_point_network(X, y)
    kkt = nonconvex_kkt(X, y, W1, w2, lam)
    assert kkt["max_residual"] < 1e-12
    assert float(np.sum(np.linalg.norm(W1, axis=0) * np.abs(w2))) == pytest.approx(3.2929, abs=1e-4)
    assert dual_constraint_value(X, lam, sol["Dmat"]) == pytest.approx(1.2611, abs=1e-4)


def test_spike_free_criterion_on_named_data():
    assert spike_free_margin(build(F1)["X"]) < 0
    assert spike_free_margin(build(F2)["X"]) > 0
    assert spike_free_margin(build(SLIDE)["X"]) > 0
    assert spike_free_margin(build(OBTUSE_SAME)["X"]) < 0
    assert spike_free_margin(build(sf_mmatrix, seed=3)["X"]) >= 0


def test_orthogonal_separability_predicates():
    assert is_orthogonally_separable(build(os_cones)["X"], build(os_cones)["y"])
    fb = build(os_boundary, d=3)
    assert is_orthogonally_separable(fb["X"], fb["y"])
    fm = build(MC3_binary)
    assert not is_orthogonally_separable(fm["X"], fm["y"])
    fs = build(mc_simplex)
    G = fs["X"] @ fs["X"].T
    same = np.equal.outer(fs["labels"], fs["labels"])
    assert G[same].min() > 0 and G[~same].max() <= 0
    assert build(MC3)["Y"].shape == (3, 3)


def test_pattern_nnls_matches_circle_grid():
    fx = build(gen_gauss, N=7, d=2)
    X = fx["X"]
    Dmat = enumerate_patterns(X)
    rng = np.random.default_rng(1)
    for _ in range(5):
        lam = rng.normal(size=7)
        assert dual_constraint_value(X, lam, Dmat) == pytest.approx(circle_max(X, lam), rel=1e-6)


def test_class_svm_and_lambda_tilde():
    x = np.array([[3.0, 4.0]])
    np.testing.assert_allclose(class_svm(x), x[0] / 25.0, atol=1e-12)
    y = np.array([1.0, -1.0])
    np.testing.assert_allclose(lambda_tilde(np.zeros(2), y), y / 2)


def test_lemma9_boundary_counterexample():
    X = np.eye(2)
    lam = np.array([1.0, -1.0])
    g_sigma = X.T @ (np.array([1.0, 0.0]) * lam)
    g_sigma_prime = X.T @ (np.array([1.0, 1.0]) * lam)
    assert np.linalg.norm(g_sigma_prime) == pytest.approx(np.sqrt(2) * np.linalg.norm(g_sigma))


def test_hitting_time_solves_comparison_ode():
    from theorems.wang2022.early_phase import _hitting_time

    g0, a, z0, c = 1.3, np.sqrt(1 - 0.1 / 4), 0.2, 0.9
    T = _hitting_time(g0, a, z0, c)
    c3 = (a + z0) / (a - z0)
    z = a - 2 * a / (1 + c3 * np.exp(2 * a * g0 * T))
    assert z == pytest.approx(c, abs=1e-12)


def test_pattern_value_agrees_with_dual_constraint_value():
    from theorems.wang2022._numerics import pattern_value

    fx = build(gen_gauss, N=6, d=3)
    X = fx["X"]
    Dmat = enumerate_patterns(X)
    lam = np.random.default_rng(2).normal(size=6)
    best = max(pattern_value(X, lam, Dmat[:, j], s)[0] for j in range(Dmat.shape[1]) for s in (1.0, -1.0))
    assert best == pytest.approx(dual_constraint_value(X, lam, Dmat), rel=1e-12)
    value, u = pattern_value(X, lam, Dmat[:, 0], 1.0)
    if value > 0:
        assert lam @ (Dmat[:, 0] * (X @ u)) == pytest.approx(value, rel=1e-8)


def test_printed_dual_sign_variant_has_the_same_value():
    fx = build(SLIDE)
    sol = solve_convex(fx["X"], fx["y"])
    printed = convex_dual(fx["X"], fx["y"], sol["Dmat"], printed_signs=True)
    assert printed["value"] == pytest.approx(4.0, rel=1e-7)


def test_every_wang_family_builds_finite_data():
    import fixtures.wang2022 as fw
    from verify.claims import FixtureFamily

    fams = [v for v in vars(fw).values() if isinstance(v, FixtureFamily)]
    assert len(fams) >= 14
    for fam in fams:
        fx = build(fam)
        assert np.all(np.isfinite(fx["X"])) and set(np.unique(fx["y"])) <= {-1.0, 1.0}
