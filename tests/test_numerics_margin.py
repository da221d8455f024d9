"""Tests of verify.numerics.margin against independent oracles (cvxpy/CLARABEL, closed forms, LP)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.numerics.margin import (
    MarginResult,
    kkt_residuals,
    linear_separability,
    svm_class,
    svm_cvxpy,
    svm_origin,
    two_layer_kkt_residual,
)

KKT_TOL = 1e-9  # own KKT residuals of svm_origin (brief: <= 1e-9)
W_REL_TOL = 1e-7  # svm_origin vs svm_cvxpy, relative l2 distance of w
CLOSED_FORM_TOL = 1e-12  # relative error against a closed-form answer
FARKAS_TOL = 1e-12  # ||sum lam_i y_i x_i|| / max ||x_i|| of a non-separability certificate
TWO_LAYER_EXACT_TOL = 1e-9  # r_kkt at an exact KKT point (Lyu spec 3.0: exact KKT r_KKT <= 1e-9)
TWO_LAYER_NON_KKT_MIN = 1e-3  # r_kkt at a point that is clearly not KKT


def separable_data(n: int, d: int, seed: int, gap: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian points labelled by a random teacher; points with |<w_t, x>|/||x|| < gap are redrawn."""
    rng = np.random.default_rng(seed)
    w_t = rng.standard_normal(d)
    w_t /= np.linalg.norm(w_t)
    rows: list[np.ndarray] = []
    while len(rows) < n:
        x = rng.standard_normal(d)
        if abs(x @ w_t) >= gap * np.linalg.norm(x):
            rows.append(x)
    X = np.array(rows)
    return X, np.sign(X @ w_t)


def rotation(d: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def assert_kkt(res: MarginResult, X: np.ndarray, y: np.ndarray) -> None:
    assert res.success, res.message
    recomputed = kkt_residuals(X, y, res.w, res.multipliers)
    assert set(recomputed) == {"primal_feasibility", "dual_feasibility", "complementarity", "stationarity"}
    for name, value in recomputed.items():
        assert value <= KKT_TOL, (name, value)
        assert res.residuals[name] == pytest.approx(value, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# svm_origin against cvxpy / CLARABEL


@pytest.mark.parametrize(
    "n,d,seed,gap",
    [
        (5, 2, 0, 0.0),
        (12, 3, 1, 0.0),
        (40, 5, 2, 0.05),
        (80, 10, 3, 0.0),
        (150, 20, 4, 0.02),
        (200, 20, 5, 0.0),
    ],
)
def test_svm_origin_matches_cvxpy(n, d, seed, gap):
    X, y = separable_data(n, d, seed, gap)
    ours = svm_origin(X, y)
    ref = svm_cvxpy(X, y)
    assert_kkt(ours, X, y)
    assert ref.success, ref.message
    assert np.linalg.norm(ours.w - ref.w) <= W_REL_TOL * np.linalg.norm(ref.w)
    assert ours.gamma == pytest.approx(1.0 / np.linalg.norm(ours.w), rel=1e-15)
    assert np.min(y * (X @ ours.direction)) == pytest.approx(ours.gamma, rel=1e-9)
    # support points sit on the margin; sum lam_i = ||w||^2 (w^T w = sum lam_i y_i <w, x_i>)
    assert np.allclose(y[ours.support] * (X[ours.support] @ ours.w), 1.0, atol=1e-9)
    assert ours.multipliers.sum() == pytest.approx(ours.w @ ours.w, rel=1e-9)
    # generic data: unique multipliers; CLARABEL's are accurate to ~1e-8 relative
    assert np.max(np.abs(ours.multipliers - ref.multipliers)) <= 1e-6 * np.max(ref.multipliers)


def test_svm_origin_scale_covariance():
    X, y = separable_data(30, 4, 11)
    base = svm_origin(X, y)
    scaled = svm_origin(1e3 * X, y)
    assert scaled.gamma == pytest.approx(1e3 * base.gamma, rel=1e-10)
    assert np.allclose(scaled.direction, base.direction, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# closed forms


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("radius", [0.3, 2.0])
def test_symmetric_closed_form(seed, radius):
    """X = [V; -V], y = [1; -1] with V = r Q {e1 +- s e2, e1 +- s e3, extras with first coordinate >= 1.5}.

    w = e1 satisfies every constraint and e1 = sum_i lam_i y_i x_i with lam = 1/8 on the eight points
    (e1 +- s e_k) and their mirrors: KKT, so w* = Q e1 / r, gamma = r, support = those eight
    (more than d = 3 support vectors: a degenerate support)."""
    rng = np.random.default_rng(seed)
    s = 0.7
    e = np.eye(3)
    core = np.array([e[0] + s * e[1], e[0] - s * e[1], e[0] + s * e[2], e[0] - s * e[2]])
    extras = np.column_stack([1.5 + rng.random(5), rng.standard_normal((5, 2))])
    Q = rotation(3, seed + 10)
    V = radius * np.vstack([core, extras]) @ Q.T
    X = np.vstack([V, -V])
    y = np.concatenate([np.ones(len(V)), -np.ones(len(V))])
    res = svm_origin(X, y)
    assert_kkt(res, X, y)
    w_exact = Q[:, 0] / radius
    assert np.linalg.norm(res.w - w_exact) <= CLOSED_FORM_TOL * np.linalg.norm(w_exact) * 10
    assert res.gamma == pytest.approx(radius, rel=CLOSED_FORM_TOL)
    assert set(res.support) <= {0, 1, 2, 3, 9, 10, 11, 12}


def test_two_points_closed_form():
    # min-norm point of the segment [e1, e2] is (1/2, 1/2): w = p/||p||^2 = (1, 1), gamma = 1/sqrt 2
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    res = svm_origin(X, np.array([1.0, 1.0]))
    assert_kkt(res, X, np.ones(2))
    assert np.allclose(res.w, [1.0, 1.0], rtol=0, atol=1e-14)
    assert res.gamma == pytest.approx(1 / np.sqrt(2), rel=CLOSED_FORM_TOL)
    assert np.allclose(res.multipliers, [1.0, 1.0], atol=1e-13)


def test_two_points_weakly_active():
    # x1 = e1, x2 = e1 + e2: w* = e1, x2 is on the margin with lam_2 = 0 (weakly active, degenerate)
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    y = np.ones(2)
    res = svm_origin(X, y)
    assert_kkt(res, X, y)
    assert np.allclose(res.w, [1.0, 0.0], atol=1e-14)
    assert list(res.support) == [0]
    assert res.multipliers[1] <= 1e-14


def test_orthogonal_classes_closed_form():
    # positives on e1, e2 (norm 2), negative on e3 (norm 1): w = (1/2, 1/2, -1), gamma = 1/sqrt(1.5)
    X = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0])
    res = svm_origin(X, y)
    assert_kkt(res, X, y)
    assert np.allclose(res.w, [0.5, 0.5, -1.0], atol=1e-14)
    assert res.gamma == pytest.approx(1 / np.sqrt(1.5), rel=CLOSED_FORM_TOL)
    assert list(res.support) == [0, 1, 2]


def test_svm_class_one_point_and_consistency():
    x = np.array([[3.0, 4.0, 0.0]])
    res = svm_class(x)
    assert_kkt(res, x, np.ones(1))
    assert np.allclose(res.w, x[0] / 25.0, atol=1e-15)
    X, y = separable_data(25, 4, 7)
    Xc = X[y > 0]
    one_sided = svm_class(Xc)
    assert_kkt(one_sided, Xc, np.ones(len(Xc)))
    ref = svm_cvxpy(Xc, np.ones(len(Xc)))
    assert np.linalg.norm(one_sided.w - ref.w) <= W_REL_TOL * np.linalg.norm(ref.w)


def test_tiny_margin_exact():
    # z = (+-1, eps): w* = (0, 1/eps), gamma = eps (below eps ~ 1e-7 the float64 rounding floor of the
    # stationarity residual, ~ eps_mach / eps, exceeds 1e-9: documented limitation of svm_origin)
    eps = 1e-6
    X = np.array([[1.0, eps], [-1.0, eps]])
    y = np.ones(2)
    res = svm_origin(X, y)
    assert_kkt(res, X, y)
    assert res.gamma == pytest.approx(eps, rel=1e-9)
    assert linear_separability(X, y) == (True, pytest.approx(eps, rel=1e-9))


# ---------------------------------------------------------------------------------------------
# non-separable input


NON_SEPARABLE = {
    "xor": (np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]), np.array([1.0, 1.0, -1.0, -1.0])),
    "x_and_minus_x_same_label": (np.array([[1.0, 2.0], [-1.0, -2.0]]), np.array([1.0, 1.0])),
    "zero_point": (np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([1.0, -1.0])),
    # the origin on the boundary of conv{y_i x_i}: margin exactly 0, not strictly separable
    "origin_on_hull_boundary": (np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), np.ones(3)),
    "symmetric_same_labels": (np.vstack([np.eye(3), -np.eye(3)]), np.ones(6)),
}


@pytest.mark.parametrize("name", sorted(NON_SEPARABLE))
def test_not_separable_reported(name):
    X, y = NON_SEPARABLE[name]
    res = svm_origin(X, y)
    assert res.success is False
    assert "not" in res.message and "separable" in res.message
    assert res.gamma == 0.0
    lam = res.multipliers
    assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0, abs=1e-14)
    assert np.linalg.norm((y * lam) @ X) <= FARKAS_TOL * np.max(np.linalg.norm(X, axis=1))
    assert res.residuals["farkas"] <= FARKAS_TOL
    assert linear_separability(X, y) == (False, 0.0)


def test_cvxpy_reports_not_separable():
    X, y = NON_SEPARABLE["xor"]
    res = svm_cvxpy(X, y)
    assert res.success is False and res.gamma == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_separability_random(seed):
    X, y = separable_data(30, 3, seed)
    sep, gamma = linear_separability(X, y)
    assert sep
    assert gamma == pytest.approx(svm_cvxpy(X, y).gamma, rel=1e-7)
    y_flip = y.copy()
    y_flip[:3] *= -1  # three flipped labels among 30 random points: check against the LP oracle
    sep_flip, gamma_flip = linear_separability(X, y_flip)
    from scipy.optimize import linprog

    Z = y_flip[:, None] * X
    lp = linprog(
        np.r_[np.zeros(3), -1.0],
        A_ub=np.hstack([-Z, np.ones((30, 1))]),
        b_ub=np.zeros(30),
        bounds=[(-1, 1)] * 3 + [(None, 1)],
        method="highs",
    )
    assert sep_flip == (-lp.fun > 1e-9)
    assert (gamma_flip > 0) == sep_flip


# ---------------------------------------------------------------------------------------------
# kkt_residuals and the result type


def test_kkt_residuals_detect_each_violation():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.ones(2)
    w, lam = np.array([1.0, 1.0]), np.array([1.0, 1.0])
    assert all(v == 0.0 for v in kkt_residuals(X, y, w, lam).values())
    assert kkt_residuals(X, y, 0.5 * w, 0.5 * lam)["primal_feasibility"] == pytest.approx(0.5)
    assert kkt_residuals(X, y, w, np.array([1.0, -0.5]))["dual_feasibility"] == pytest.approx(0.5)
    r = kkt_residuals(X, y, 2 * w, 2 * lam)  # feasible, stationary, but slack 1 on both points
    assert r["complementarity"] == pytest.approx(1.0) and r["stationarity"] == 0.0
    assert kkt_residuals(X, y, w, np.array([1.0, 0.0]))["stationarity"] == pytest.approx(1 / np.sqrt(2))


def test_margin_result_attribute_access_and_print_order():
    res = svm_origin(np.array([[1.0, 0.0], [0.0, 1.0]]), np.ones(2))
    assert res.gamma is res["gamma"]
    with pytest.raises(AttributeError):
        _ = res.nonexistent
    text = repr(res)
    positions = [text.index(f" {key}:") for key in MarginResult._ORDER]
    assert positions == sorted(positions)


def test_bad_input_rejected():
    with pytest.raises(ValueError):
        svm_origin(np.ones(3), np.ones(3))
    with pytest.raises(ValueError):
        svm_origin(np.ones((3, 2)), np.array([1.0, 0.0, 1.0]))
    with pytest.raises(ValueError):
        svm_origin(np.ones((3, 2)), np.ones(2))


# ---------------------------------------------------------------------------------------------
# two-layer (leaky) ReLU KKT residual


def symmetric_kkt_net(
    seed: int, alpha: float, n_pos_neurons: int = 1, n_neg_neurons: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric data and theta = (w_1, w_2, a) = (c u, -c u, c, -c), u = w*/||w*||.

    f(x) = c^2 (phi(<u,x>) - phi(-<u,x>)) = c^2 (1 + alpha) <u, x>, so the margins are those of the
    linear max-margin classifier.  With symmetric SVM multipliers beta (beta on v_i and -v_i equal),
    lam = 2 gamma beta / (1 + alpha) satisfies both stationarity equations exactly:
    w_1 = a_1 sum lam_i y_i phi'(<w_1,x_i>) x_i = c lam-weighted (1 + alpha) w*/2 = c u, and
    a_1 = sum lam_i y_i phi(<w_1,x_i>) = c; likewise neuron 2 (an exact KKT point of Def. B.8).
    Splitting c^2 = sum_k c_k^2 over several neurons (w_k = c_k u, a_k = c_k) keeps f and, with the same
    lam, each neuron's equations (both sides scale by c_k)."""
    rng = np.random.default_rng(seed)
    d, n_half = 3, 8
    w_t = rng.standard_normal(d)
    V = rng.standard_normal((n_half, d))
    V *= np.sign(V @ w_t)[:, None]
    X = np.vstack([V, -V])
    y = np.concatenate([np.ones(n_half), -np.ones(n_half)])
    u = svm_origin(X, y).direction
    c = 1.7  # any scale: the residual is computed after normalising to q_min = 1
    c_pos = c * np.sqrt(rng.dirichlet(np.ones(n_pos_neurons)))
    c_neg = c * np.sqrt(rng.dirichlet(np.ones(n_neg_neurons)))
    W = np.vstack([c_pos[:, None] * u, -c_neg[:, None] * u])
    return W, np.concatenate([c_pos, -c_neg]), X, y


def stationarity_by_hand(W, a, X, y, lam, alpha):
    """||theta - sum_i lam_i grad q_i(theta)||_1 at a point without kinks (independent of the LP rows)."""
    pre = X @ W.T
    dphi = np.where(pre > 0, 1.0, alpha)
    grad_W = ((lam * y)[:, None] * dphi * a[None, :]).T @ X  # row k: sum_i lam_i y_i a_k phi'(.) x_i
    grad_a = np.maximum(pre, alpha * pre).T @ (lam * y)
    return np.abs(W - grad_W).sum() + np.abs(a - grad_a).sum()


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.5, 0.9])
@pytest.mark.parametrize("seed", [0, 1])
def test_two_layer_exact_kkt_point(seed, alpha):
    W, a, X, y = symmetric_kkt_net(seed, alpha)
    res = two_layer_kkt_residual(W, a, X, y, alpha=alpha)
    assert res.success, res.message
    assert res.r_kkt <= TWO_LAYER_EXACT_TOL, res.r_kkt
    assert res.complementarity <= TWO_LAYER_EXACT_TOL
    assert np.all(res.multipliers >= 0)
    q = y * (np.maximum(X @ res.W_normalised.T, alpha * (X @ res.W_normalised.T)) @ res.a_normalised)
    assert q.min() == pytest.approx(1.0, rel=1e-13)
    assert len(res.ambiguous) == 0
    by_hand = stationarity_by_hand(res.W_normalised, res.a_normalised, X, y, res.multipliers, alpha)
    assert by_hand <= TWO_LAYER_EXACT_TOL * res.theta_l1


@pytest.mark.parametrize("n_pos,n_neg", [(3, 2), (10, 10)])
def test_two_layer_exact_kkt_point_split_neurons(n_pos, n_neg):
    W, a, X, y = symmetric_kkt_net(2, 0.25, n_pos, n_neg)
    res = two_layer_kkt_residual(W, a, X, y, alpha=0.25)
    assert res.r_kkt <= TWO_LAYER_EXACT_TOL, res.r_kkt
    by_hand = stationarity_by_hand(res.W_normalised, res.a_normalised, X, y, res.multipliers, 0.25)
    assert by_hand <= TWO_LAYER_EXACT_TOL * res.theta_l1


@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_two_layer_perturbed_point_not_kkt(alpha):
    W, a, X, y = symmetric_kkt_net(0, alpha)
    rng = np.random.default_rng(5)
    W_bad = W + 0.05 * rng.standard_normal(W.shape)
    res = two_layer_kkt_residual(W_bad, a, X, y, alpha=alpha)
    assert res.qmin > 0
    assert res.r_kkt >= TWO_LAYER_NON_KKT_MIN, res.r_kkt


def test_two_layer_residual_grows_with_distance_from_kkt():
    """With tau_act above the spread of the near-active margins, r_kkt is continuous: O(perturbation)."""
    W, a, X, y = symmetric_kkt_net(0, 0.3, 5, 5)
    rng = np.random.default_rng(6)
    direction = rng.standard_normal(W.shape)
    r = [
        two_layer_kkt_residual(W + eps * direction, a, X, y, alpha=0.3, tau_act=1e-1).r_kkt
        for eps in (1e-4, 1e-3)
    ]
    assert 1e-6 < r[0] < r[1] < 1e-1


def test_two_layer_random_point_not_kkt():
    rng = np.random.default_rng(3)
    X, y = separable_data(10, 3, 3)
    W, a = rng.standard_normal((4, 3)), rng.standard_normal(4)
    res = two_layer_kkt_residual(W, a, X, y, alpha=0.2)
    assert res.r_kkt >= TWO_LAYER_NON_KKT_MIN or res.r_kkt == np.inf


def test_two_layer_kink_uses_clarke_interval():
    """X = I_2, y = (1, -1), w_1 = e1, a_1 = 1, w_2 = e2, a_2 = -1: <w_1, x_2> = <w_2, x_1> = 0 (kinks).

    ReLU: lam = (1, 1) with mu = 0 in [0, lam] is KKT.  Leaky (alpha = 0.5): stationarity of w_1 needs the
    kink weight mu_12 = 0, outside [alpha lam_2, lam_2] = [0.5, 1] once lam_2 = 1: not KKT."""
    X = np.eye(2)
    y = np.array([1.0, -1.0])
    W = np.eye(2)
    a = np.array([1.0, -1.0])
    relu = two_layer_kkt_residual(W, a, X, y, alpha=0.0)
    assert relu.r_kkt <= TWO_LAYER_EXACT_TOL
    assert sorted(map(tuple, relu.ambiguous)) == [(0, 1), (1, 0)]
    assert np.allclose(relu.multipliers, [1.0, 1.0], atol=1e-12)
    leaky = two_layer_kkt_residual(W, a, X, y, alpha=0.5)
    assert leaky.r_kkt >= TWO_LAYER_NON_KKT_MIN


def test_two_layer_scale_invariant_and_nonpositive_margin():
    W, a, X, y = symmetric_kkt_net(1, 0.3)
    rng = np.random.default_rng(8)
    W_bad = W + 0.1 * rng.standard_normal(W.shape)
    r1 = two_layer_kkt_residual(W_bad, a, X, y, alpha=0.3).r_kkt
    r2 = two_layer_kkt_residual(10 * W_bad, 10 * a, X, y, alpha=0.3).r_kkt
    assert r1 == pytest.approx(r2, rel=1e-6)
    flipped = two_layer_kkt_residual(W, -a, X, y, alpha=0.3)
    assert flipped.r_kkt == np.inf and flipped.success is False
