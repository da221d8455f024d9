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
    complete_patterns,
    convex_dual_printed,
    gd_to_margin,
    nonconvex_kkt,
    os_closed_form,
    per_point_network,
    solve_convex,
)
from verify.numerics.convex import convex_dual, dual_certificate
from verify.numerics.patterns import is_orthogonally_separable, is_spike_free


def dual_value(X, lam, D):
    return dual_certificate(lam, X, D).value


def build(fam, seed=0, **params):
    return fam.build(np.random.default_rng(seed), **{**fam.defaults, **params})


def test_pattern_count_is_covers_count_in_general_position():
    fx = build(gen_gauss, N=10, d=3)
    assert complete_patterns(fx["X"]).shape == (2 * sum(comb(9, k) for k in range(3)), 10)


def test_patterns_full_row_rank_are_all_sign_vectors():
    fx = build(sf_mmatrix, N=3, d=4)
    assert complete_patterns(fx["X"]).shape[0] == 8


def test_F1_closed_form_optimum_and_dual():
    fx = build(F1)
    X, y = fx["X"], fx["y"]
    sol = solve_convex(X, y)
    P = 1 / np.linalg.norm(X[0]) + 1 / np.linalg.norm(X[1])
    assert sol["value"] == pytest.approx(1.28243, abs=1e-5)
    assert sol["value"] == pytest.approx(P, rel=1e-7)
    assert convex_dual(X, y, sol["D"])["value"] == pytest.approx(P, rel=1e-7)
    assert os_closed_form(X, y)["P"] == pytest.approx(P, rel=1e-12)
    np.testing.assert_allclose(os_closed_form(X, y)["lam"], [-1 / np.linalg.norm(X[0]), 1 / np.linalg.norm(X[1])],
                               rtol=1e-12)
    assert dual_value(X, sol["lam"], sol["D"]) == pytest.approx(1.0, abs=1e-6)


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
    assert dual_value(X, lam, sol["D"]) == pytest.approx(1.2611, abs=1e-4)


def test_spike_free_criterion_on_named_data():
    assert not is_spike_free(build(F1)["X"])[0]
    assert is_spike_free(build(F2)["X"])[0]
    assert is_spike_free(build(SLIDE)["X"])[0]
    assert not is_spike_free(build(OBTUSE_SAME)["X"])[0]
    assert is_spike_free(build(sf_mmatrix, seed=3)["X"])[0]


def test_orthogonal_separability_predicates():
    assert is_orthogonally_separable(build(os_cones)["X"], build(os_cones)["y"])[0]
    fb = build(os_boundary, d=3)
    assert is_orthogonally_separable(fb["X"], fb["y"])[0]
    fm = build(MC3_binary)
    assert not is_orthogonally_separable(fm["X"], fm["y"])[0]
    fs = build(mc_simplex)
    G = fs["X"] @ fs["X"].T
    same = np.equal.outer(fs["labels"], fs["labels"])
    assert G[same].min() > 0 and G[~same].max() <= 0
    assert build(MC3)["Y"].shape == (3, 3)


def test_pattern_nnls_matches_circle_grid():
    fx = build(gen_gauss, N=7, d=2)
    X = fx["X"]
    D = complete_patterns(X)
    rng = np.random.default_rng(1)
    for _ in range(5):
        lam = rng.normal(size=7)
        assert dual_value(X, lam, D) == pytest.approx(circle_max(X, lam), rel=1e-6)


def test_gd_to_margin_matches_plain_adaptive_step_gd():
    """eta_k = eta0 / L_k on the summed logistic loss with sub-gradient 0 at kinks, frozen at q_min >= q_stop."""
    fx = build(os_cones)
    X, y = fx["X"], fx["y"]
    rng = np.random.default_rng(4)
    W1, w2 = 0.3 * rng.normal(size=(2, X.shape[1], 5)), 0.3 * rng.normal(size=(2, 5))
    W1_ref, w2_ref = W1.copy(), w2.copy()
    for b in range(2):
        for _ in range(50):
            Z = X @ W1_ref[b]
            q = y * (np.maximum(Z, 0.0) @ w2_ref[b])
            if q.min() >= 3.0:
                break
            lt = y / (1 + np.exp(q))
            eta = 0.05 / np.sum(np.log1p(np.exp(-q)))
            G1 = (X.T @ ((Z > 0) * lt[:, None])) * w2_ref[b]
            G2 = np.maximum(Z, 0.0).T @ lt
            W1_ref[b] += eta * G1
            w2_ref[b] += eta * G2
    W1_new, w2_new = gd_to_margin(X, y, W1, w2, eta0=0.05, q_stop=3.0, steps=50)
    np.testing.assert_allclose(W1_new, W1_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w2_new, w2_ref, rtol=1e-10, atol=1e-12)


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


def test_printed_dual_sign_variant_matches_on_gaussian_data():
    fx = build(gen_gauss, N=6, d=2)
    X, y = fx["X"], fx["y"]
    sol = solve_convex(X, y)
    assert convex_dual_printed(X, y, sol["D"])["value"] == pytest.approx(sol["value"], rel=1e-6)


def test_printed_dual_sign_variant_has_the_same_value():
    fx = build(SLIDE)
    sol = solve_convex(fx["X"], fx["y"])
    printed = convex_dual_printed(fx["X"], fx["y"], sol["D"])
    assert printed["value"] == pytest.approx(4.0, rel=1e-7)


def test_every_wang_family_builds_finite_data():
    import fixtures.wang2022 as fw
    from verify.claims import FixtureFamily

    fams = [v for v in vars(fw).values() if isinstance(v, FixtureFamily)]
    assert len(fams) >= 14
    for fam in fams:
        fx = build(fam)
        if fam.name == "wang.lem7_domain":      # a domain for Lemma 7's two vectors, no data
            assert fx["a_over_c_min"] == 1.0
            continue
        assert np.all(np.isfinite(fx["X"])) and set(np.unique(fx["y"])) <= {-1.0, 1.0}


def test_one_sided_dual_values_match_circle_grid():
    from theorems.wang2022.dual_feasibility import _max_positive, _rem1_values

    X = build(SLIDE)["X"]
    D = complete_patterns(X)
    crit = np.arctan2(X[:, 1], X[:, 0])  # grid plus the breakpoints, where the maxima lie
    phi = np.concatenate([np.linspace(0, 2 * np.pi, 200001), crit + np.pi / 2, crit - np.pi / 2])
    U = np.stack([np.cos(phi), np.sin(phi)])
    for lam in (np.array([1.0, -1.0]), np.array([1.0, 0.0]), np.array([-0.3, 2.0])):
        grid = max(float(np.max(lam @ np.maximum(X @ U, 0.0))), 0.0)
        assert _max_positive(X, lam, D) == pytest.approx(grid, rel=1e-8)
        cone = np.all(X @ U >= 0, axis=0)
        form1, plus, minus = _rem1_values(X, lam)
        assert form1 == pytest.approx(float(np.max(np.abs(lam @ (X @ U[:, cone])))), rel=1e-6)
        assert plus == pytest.approx(max(float(np.max(np.maximum(lam, 0) @ (X @ U[:, cone]))), 0.0), rel=1e-6)
        assert minus == pytest.approx(max(float(np.max(-np.minimum(lam, 0) @ (X @ U[:, cone]))), 0.0), rel=1e-6)
    assert _max_positive(X, np.array([1.0, -1.0]), D) == pytest.approx(0.5, rel=1e-12)  # spec E6


# ---------------------------------------------------------------------------------------------
# Adversarial families and helpers


def test_sf_illcond_is_strictly_spike_free_and_ill_conditioned():
    from fixtures.wang2022 import sf_illcond

    for eps in (1e-6, 1e-8):
        X = build(sf_illcond, eps=eps)["X"]
        ok, detail = is_spike_free(X)
        assert ok and detail["max_offdiag"] < 0
        s = np.linalg.svd(X, compute_uv=False)
        assert s[0] / s[-1] > 0.1 / np.sqrt(eps)          # cond(X) ~ eps^{-1/2}
        G = X @ X.T
        assert np.min(G / np.sqrt(np.outer(np.diag(G), np.diag(G)))) > 0.99  # rows nearly collinear


def test_sf_orthogonal_is_exactly_on_the_spike_free_boundary():
    from fixtures.wang2022 import sf_orthogonal

    X = build(sf_orthogonal)["X"]
    G = X @ X.T
    assert np.all(G[~np.eye(len(G), dtype=bool)] == 0.0)
    assert is_spike_free(X)[1]["max_offdiag"] == 0.0


def test_near_opposite_has_tiny_g_min():
    from fixtures.wang2022 import near_opposite
    from theorems.wang2022.early_phase import _g_norms

    fx = build(near_opposite, eps=1e-4)
    gmin, _ = _g_norms(fx["X"], fx["y"] / 2)
    assert gmin == pytest.approx(0.5e-4, rel=1e-9)


def test_mc_near_boundary_is_multiclass_and_one_vs_rest_os():
    from fixtures.wang2022 import mc_near_boundary
    from verify.numerics.patterns import is_multiclass_orthogonally_separable

    fx = build(mc_near_boundary)
    ok, slack = is_multiclass_orthogonally_separable(fx["X"], fx["labels"])
    assert ok and slack == pytest.approx(1e-3, rel=1e-6)
    assert is_orthogonally_separable(fx["X"], fx["Y"][:, 0])[0]


def test_lambda_search_finds_the_slide_gap_of_eq64():
    from theorems.wang2022.dual_feasibility import _max_positive, search_lambda

    X, y = build(SLIDE)["X"], np.array([1.0, -1.0])
    D = complete_patterns(X)

    def gap(lam):
        lhs, rhs = _max_positive(X, lam, D), _max_positive(X, lam * (y > 0), D)
        return (rhs - lhs) / rhs

    best, lam = search_lambda(y, gap, np.random.default_rng(0), n_start=2)
    assert best >= 0.5 - 1e-9 and np.all(y * lam >= 0)       # lambda = (1, -1) gives 0.5 (spec E6)


def test_rem1_values_on_ill_conditioned_data_match_an_independent_socp():
    import cvxpy as cp

    from fixtures.wang2022 import sf_illcond
    from theorems.wang2022.dual_feasibility import _rem1_values

    X = build(sf_illcond)["X"]
    y = build(sf_illcond)["y"]
    lam = y * np.array([1.0, 2.0, 0.5, 1.5])
    form1, plus, _ = _rem1_values(X, lam)
    u = cp.Variable(X.shape[1])
    cons = [X @ u >= 0, cp.norm(u) <= 1]
    p_plus = cp.Problem(cp.Maximize(np.maximum(lam, 0) @ X @ u), cons).solve(solver=cp.CLARABEL)
    p1 = max(cp.Problem(cp.Maximize(s * lam @ X @ u), cons).solve(solver=cp.CLARABEL) for s in (1.0, -1.0))
    assert plus == pytest.approx(p_plus, rel=1e-6)
    assert form1 == pytest.approx(p1, rel=1e-5, abs=1e-8)
    assert plus / form1 > 10                                  # the refutation of Remark 1's 'equivalently'


def test_lem3_alignment_reached_at_the_switch_counts_for_event_e2():
    from theorems.wang2022.early_phase import _lem3_events

    class Fx:
        data = {"X": np.eye(2), "y": np.array([1.0, -1.0])}

        def __getitem__(self, k):
            return self.data[k]

    tr = {"sig0": np.array([[1.0], [-1.0]]), "z0": np.array([0.5]), "T0": np.array([0.3]),
          "c1": np.array([0.95]), "t_align": {0.1: np.array([np.inf])}, "dt": 1e-3, "horizon": 10.0,
          "U0": np.array([[1.0], [0.0]])}
    r = _lem3_events(Fx(), tr, "corrected", 0.1)
    assert r["lem"].all() and r["cor"].all()               # T* = 2.9 (g0 = 1/2) >= T0 = 0.3


# ---------------------------------------------------------------------------------------------
# Second methods of the errata (each independent of the check that refutes the printed statement)


def test_lem2_second_method_logistic_derivative_at_zero_is_minus_one_half():
    import sympy as sp

    q = sp.symbols("q")
    dl = sp.diff(sp.log(1 + sp.exp(-q)), q)
    assert dl.subs(q, 0) == sp.Rational(-1, 2)     # lambda~ = -y l'(q) -> y/2, not y/4
    # so the r0 -> 0 limit of Lemma 2 (i)'s error at t = 0 is ||g(u0, y/4)|| >= g_min > g_min delta / 8
    from theorems.wang2022.early_phase import _g_norms

    fx = build(gen_gauss)
    X, y = fx["X"], fx["y"]
    gmin, _ = _g_norms(X, y / 4)
    u0 = np.array([1.0, 0.2, -0.3]) / np.linalg.norm([1.0, 0.2, -0.3])
    limit = np.linalg.norm(X.T @ ((X @ u0 > 0) * y / 4))
    assert limit >= gmin > gmin * 0.1 / 8


def test_thm1_second_method_slide_supremum_is_cos_15_degrees():
    from theorems.wang2022._numerics import grid_alignment, sup_alignment

    fx = build(SLIDE)
    X, y = fx["X"], fx["y"]
    for s in (1.0, -1.0):
        exact = sup_alignment(X, y, s)
        grid = grid_alignment(X, y, s)
        assert exact["matched"]
        assert exact["sup"] == pytest.approx(np.cos(np.pi / 12), abs=1e-12)
        assert exact["sup"] - 1e-5 < grid <= exact["sup"] + 1e-12      # the sup is approached, not attained
    # on orthogonally separable data the supremum is 1 (attained at the class-sum direction, spec R4)
    fo = build(os_cones)
    assert sup_alignment(fo["X"], fo["y"], 1.0)["sup"] == pytest.approx(1.0, abs=1e-12)


def test_thm2_second_method_split_invariant_initialisation_on_MC3():
    from theorems.wang2022._numerics import gd_to_margin, normalised_cost
    from theorems.wang2022.convergence import split_lower_bound

    fx = build(MC3)
    X, labels, y = fx["X"], fx["labels"], fx["Y"][:, 0]
    P_split = split_lower_bound(X, labels, 0)
    assert P_split == pytest.approx(3 / np.linalg.norm(X[0]), rel=1e-9)        # 3.2929
    assert P_split == pytest.approx(3.2929, abs=1e-4)
    assert solve_convex(X, y)["value"] == pytest.approx(2.8384, abs=1e-4)
    # GD from one neuron per class along its class sum: every neuron stays on its class, R -> P_split
    U = (X / np.linalg.norm(X, axis=1, keepdims=True)).T
    W1, w2 = gd_to_margin(X, y, 1e-4 * U[None], 1e-4 * np.array([[1.0, -1.0, -1.0]]), eta0=0.02, q_stop=10.0,
                          steps=1000)
    active = X @ W1[0] > 0
    assert np.array_equal(active, np.eye(3, dtype=bool))
    assert normalised_cost(X, y, W1[0], w2[0]) == pytest.approx(P_split, rel=1e-6)


def test_thm4_second_method_all_positive_output_weights_never_separate():
    from theorems.wang2022._numerics import balanced_init, gd_to_margin

    fx = build(os_cones)
    X, y = fx["X"], fx["y"]
    W1, w2 = balanced_init(np.random.default_rng(0), 3, X.shape[1], 4, 1e-2)
    W1, w2 = gd_to_margin(X, y, W1, np.abs(w2), eta0=0.02, q_stop=10.0, steps=500)
    assert np.all(w2 > 0)                                   # Lemma 1: signs are kept
    f = np.einsum("bnm,bm->bn", np.maximum(X @ W1, 0.0), w2)
    assert np.all(f[:, y < 0] >= 0)                         # negatives never classified


def test_def_patterns_second_method_cover_bound_is_zero_at_one_point():
    import sympy as sp

    from fixtures.wang2022 import low_rank
    from verify.numerics.patterns import enumerate_patterns

    N, r = 1, 1
    assert 2 * r * (sp.E * (N - 1) / r) ** r == 0
    X = build(low_rank, N=1, d=3, r=1)["X"]
    assert enumerate_patterns(X).D.shape[0] == 2               # {1} and {0}: p = 2 > 0
    # tightest case N = r = 2: p = 4 <= 4 (e/2)^2 = 7.39
    assert float(2 * 2 * (sp.E / 2) ** 2) == pytest.approx(7.389, abs=1e-3)


def test_lem7_closed_form_supremum_matches_the_maximiser_and_tends_to_one_over_sqrt2():
    from theorems.wang2022.early_phase import _lem7_maximise, lem7_sup_ratio

    for t in (0.1, 0.5, 0.99):
        assert _lem7_maximise(t) == pytest.approx(lem7_sup_ratio(t), abs=1e-9)
    assert lem7_sup_ratio(1 - 1e-9) == pytest.approx(1 / np.sqrt(2), abs=1e-4)
    assert lem7_sup_ratio(1e-4) == pytest.approx(0.5, abs=1e-6)


def test_fig2_dual_set_of_F1_is_the_two_spike_box():
    fx = build(F1)
    X = fx["X"]
    D = complete_patterns(X)
    tips = np.linalg.norm(X, axis=1)
    for phi in np.linspace(0, 2 * np.pi, 37):
        v = np.array([np.cos(phi), np.sin(phi)])
        assert dual_value(X, v, D) == pytest.approx(np.max(np.abs(v) * tips), rel=1e-9)
        assert circle_max(X, v) == pytest.approx(np.max(np.abs(v) * tips), rel=1e-6)


def test_cor1_comparison_ode_is_slower_than_the_idealised_flow():
    """Within a fixed pattern z = u^T v obeys z' = ||g(sigma0, y/2)|| (1 - z^2); the printed comparison ODE
    z' = g0 (a^2 - z^2), g0 = ||g(sigma0, y/4)||, a = sqrt(1 - delta/8), reaches every level later, so
    T0 <= T_shift(u1^T v1) always (Corollary 1's antecedent is empty)."""
    from theorems.wang2022.early_phase import _hitting_time

    g, delta, z0 = 0.8, 0.1, 0.1
    for c in (0.3, 0.6, 0.9, 0.95):
        actual = _hitting_time(g, 1.0, z0, c)
        printed = _hitting_time(g / 2, np.sqrt(1 - delta / 8), z0, c)
        assert printed >= 2 * actual


def test_thm3_flow_split_stationary_point_is_dual_infeasible_and_not_global():
    """Theorem 3's power fixture: from the 'split' init the flow on MC3_binary ends at a KKT point of (13) (residual
    1e-7) whose own multipliers c lambda~ have V = 1.2611 > 1 and value 3.2929 > P* = 2.8384; from 'cover' at the
    global optimum with V <= 1."""
    from fixtures.wang2022 import flow_start
    from theorems.wang2022._numerics import flow_endpoints, nonconvex_kkt, solve_convex

    out = {}
    for init in ("split", "cover"):
        fx = flow_start.build(np.random.default_rng(0), data="MC3_binary", init=init)
        e = flow_endpoints(fx["X"], fx["y"], fx["W1_0"], fx["w2_0"], horizons=(640.0, 2560.0))[-1]
        kkt = nonconvex_kkt(fx["X"], fx["y"], e["W1"], e["w2"], e["lam"], tau=1e-6)["max_residual"]
        V = dual_certificate(e["lam"], fx["X"], complete_patterns(fx["X"])).value
        out[init] = (kkt, V, e["value"])
    P = solve_convex(fx["X"], fx["y"])["value"]
    assert out["split"][0] < 1e-5 and out["split"][1] == pytest.approx(1.2611, abs=1e-3)
    assert out["split"][2] == pytest.approx(3.2929, abs=1e-3) and P == pytest.approx(2.8384, abs=1e-3)
    assert out["cover"][1] <= 1 + 1e-2 and out["cover"][2] == pytest.approx(P, rel=1e-2)


def test_signed_stationary_points_are_minimisers_not_maximisers():
    """Lemma 8's probe: self-consistent directions u = -g(u, lambda)/||g|| (wang.signed_stationary) are local maxima
    of -lambda^T (Xu)_+, so never local maximisers of lambda^T (Xu)_+; the hypothesis sees the sign."""
    from fixtures.wang2022 import signed_stationary
    from theorems.wang2022.landscape import _stationary_sign, fixed_points, is_local_max

    fx = signed_stationary.build(np.random.default_rng(0))
    assert not _stationary_sign(fx)[0] and _stationary_sign({"X": fx["X"]})[0]
    rng = np.random.default_rng(1)
    tested = 0
    for _ in range(3):
        lam = rng.normal(size=fx["X"].shape[0])
        for u in fixed_points(fx["X"], -lam):
            assert not is_local_max(fx["X"], lam, u, rng, n_dirs=300)[0]
            assert is_local_max(fx["X"], -lam, u, rng, n_dirs=300)[0]
            tested += 1
    assert tested > 0


def test_unbalanced_init_family_breaks_only_the_balance():
    from fixtures.wang2022 import os_cones, unbalanced_init

    a = unbalanced_init.build(np.random.default_rng(3), ratio=2.0)
    b = os_cones.build(np.random.default_rng(3))
    assert a["w2_over_w1"] == 2.0 and np.array_equal(a["X"], b["X"]) and np.array_equal(a["y"], b["y"])


def test_polished_certificate_reuses_the_solve_of_a_pattern_set(monkeypatch):
    import theorems.wang2022.convergence as cv

    fx = build(gen_gauss, N=8, d=3)
    X, y = fx["X"], fx["y"]
    P, V = cv.reference_optimum(X, y)
    rng = np.random.default_rng(1)
    W1, w2 = rng.normal(size=(3, 5)), rng.choice([-1.0, 1.0], size=5)
    solves = []
    solve = cv.convex_primal
    monkeypatch.setattr(cv, "convex_primal", lambda *a, **k: solves.append(1) or solve(*a, **k))
    fresh = cv.polished_certificate(X, y, W1, w2, V)
    solutions: dict = {}
    first = cv.polished_certificate(X, y, W1, w2, V, solutions)
    # another run on the same patterns (neurons scaled and reordered): the same certificate, no new solve
    again = cv.polished_certificate(X, y, 2.0 * W1[:, ::-1], w2[::-1], V, solutions)
    assert len(solves) == 2 and len(solutions) == 1
    assert first == fresh and again == fresh
    # other patterns: solved again
    cv.polished_certificate(X, y, -W1, w2, V, solutions)
    assert len(solves) == 3 and len(solutions) == 2
