"""Tests of verify.numerics.convex: Wang & Pilanci (14), its dual (129) and the exact V(lambda) oracle."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from verify.numerics.convex import (
    TOLERANCES,
    convex_dual,
    convex_primal,
    convex_primal_loop,
    dual_certificate,
    duality_gap,
)
from verify.numerics.patterns import enumerate_patterns, is_orthogonally_separable, sample_patterns

C30, S30 = np.cos(np.pi / 6), np.sin(np.pi / 6)
C150, S150 = np.cos(5 * np.pi / 6), np.sin(5 * np.pi / 6)
F1 = (np.array([[1.65, -0.47], [-0.47, 1.35]]), np.array([-1.0, 1.0]))
F2 = (np.array([[1.65, 0.47], [0.47, 1.35]]), np.array([1.0, 1.0]))
SLIDE = (np.array([[1.0, 0.0], [C30, S30]]), np.array([1.0, -1.0]))
OBTUSE_SAME = (np.array([[1.0, 0.0], [C150, S150]]), np.array([1.0, 1.0]))

REL = 1e-6  # relative value agreement between independent solves (spec tolerance policy)


def random_fixture(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1).mean()  # mean row norm 1 (spec §3)
    y = np.where(rng.standard_normal(n) >= 0, 1.0, -1.0)
    return X, y


def os_cones(seed: int, n_pos: int, n_neg: int, d: int, theta: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """Spec family os.cones: positives in a cone of half-angle theta < 45 deg around a, negatives around -a."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(d)
    a /= np.linalg.norm(a)
    B = np.linalg.svd(a[None, :])[2][1:].T
    rows = []
    for sign, m in ((1.0, n_pos), (-1.0, n_neg)):
        z = rng.standard_normal((m, d - 1))
        z *= (np.tan(theta) * rng.uniform(0, 1, (m, 1)) ** (1 / (d - 1))) / np.linalg.norm(z, axis=1, keepdims=True)
        rows.append(rng.uniform(0.5, 2.0, (m, 1)) * (sign * a + z @ B.T))
    return np.vstack(rows), np.r_[np.ones(n_pos), -np.ones(n_neg)]


def class_svm_norm(Xc: np.ndarray) -> float:
    """||u|| for u = argmin ||u|| s.t. Xc u >= 1 (one class only; spec R1)."""
    u = cp.Variable(Xc.shape[1])
    cp.Problem(cp.Minimize(cp.sum_squares(u)), [Xc @ u >= 1]).solve(solver="CLARABEL")
    return float(np.linalg.norm(u.value))


def assert_certified(r, what: str) -> None:
    assert r.success, f"{what}: residuals {r.residuals}, gap {r.gap}, status {r.status}"
    assert r.certificate <= 1 + 1e-6, f"{what}: V(lam) = {r.certificate}"


# ------------------------------------------------------------------ named fixtures with known optima


def test_f1_closed_form():
    X, y = F1
    D = enumerate_patterns(X).D
    n1, n2 = np.linalg.norm(X, axis=1)
    p_star = 1 / n1 + 1 / n2  # spec §4.1: 1.28243
    for r in (convex_primal(X, y, D), convex_dual(X, y, D)):
        assert_certified(r, r.problem)
        assert r.value == pytest.approx(p_star, rel=REL)
        assert r.lam == pytest.approx([-1 / n1, 1 / n2], rel=REL)
    r = convex_primal(X, y, D)
    # the two nonzero blocks are x_1/||x_1||^2 (negative output) and x_2/||x_2||^2 (positive output)
    assert r.U.sum(axis=1) == pytest.approx(X[0] / n1**2, abs=1e-6)
    assert r.U2.sum(axis=1) == pytest.approx(X[1] / n2**2, abs=1e-6)


def test_f2_closed_form():
    X, y = F2
    D = enumerate_patterns(X).D
    u = np.linalg.solve(X, np.ones(2))  # spec §4.2: single neuron on D = I, both margins active
    lam = np.linalg.solve(X.T, u / np.linalg.norm(u))
    for r in (convex_primal(X, y, D), convex_dual(X, y, D)):
        assert_certified(r, r.problem)
        assert r.value == pytest.approx(np.linalg.norm(u), rel=REL)
        assert r.lam == pytest.approx(lam, rel=1e-5)
    assert np.linalg.norm(u) == pytest.approx(0.73358, abs=1e-5)


def test_slide_value():
    X, y = SLIDE
    D = enumerate_patterns(X).D
    r = convex_primal(X, y, D)
    assert_certified(r, "primal")
    assert r.value == pytest.approx(4.0, rel=REL)  # spec: 200-restart SLSQP gives 4.0000
    assert convex_dual(X, y, D).value == pytest.approx(4.0, rel=REL)


# ------------------------------------------------------------------ strong duality on random fixtures


@pytest.mark.parametrize("seed,n,d", [(0, 4, 2), (1, 8, 2), (2, 6, 3), (3, 10, 3), (4, 12, 2)])
def test_strong_duality_random(seed, n, d):
    X, y = random_fixture(seed, n, d)
    D = enumerate_patterns(X).D
    rp = convex_primal(X, y, D)
    rd = convex_dual(X, y, D)
    assert_certified(rp, "primal")
    assert_certified(rd, "dual")
    assert duality_gap(rp.value, rd.value) <= REL
    assert rp.gap <= TOLERANCES["gap"] and rd.gap <= TOLERANCES["gap"]
    assert np.all(y * rp.lam >= -1e-8)


@pytest.mark.parametrize("seed,n,d", [(6, 10, 3), (7, 9, 2)])
def test_facet_reduced_cones_agree_with_full(seed, n, d):
    X, y = random_fixture(seed, n, d)
    ps = enumerate_patterns(X)
    for solve in (convex_primal, convex_dual):
        full, reduced = solve(X, y, ps.D), solve(X, y, ps)
        assert_certified(reduced, f"{solve.__name__} facet-reduced")
        assert reduced.value == pytest.approx(full.value, rel=REL)
        assert reduced.lam == pytest.approx(full.lam, abs=1e-5 * np.abs(full.lam).max())


def test_loop_baseline_agrees_with_vectorised():
    X, y = random_fixture(5, 8, 3)
    D = enumerate_patterns(X).D
    rv, rl = convex_primal(X, y, D), convex_primal_loop(X, y, D)
    assert rl.success
    assert rl.value == pytest.approx(rv.value, rel=REL)


# ------------------------------------------------------------------ the V(lambda) oracle


@pytest.mark.parametrize("seed", range(4))
def test_dual_certificate_matches_circle_grid(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((6, 2))
    lam = rng.standard_normal(6)
    cert = dual_certificate(lam, X, enumerate_patterns(X).D)
    phi = np.arctan2(X[:, 1], X[:, 0])
    t = np.concatenate([np.linspace(0, 2 * np.pi, 200001), phi + np.pi / 2, phi - np.pi / 2])  # + breakpoints
    U = np.stack([np.cos(t), np.sin(t)], axis=1)
    grid = np.abs(np.maximum(U @ X.T, 0) @ lam).max()
    assert cert.value >= grid - 1e-12
    assert cert.value <= grid * (1 + 1e-6)
    # argmax: a unit vector in its pattern's cone attaining the value
    u, j, s = cert.u, cert.pattern, cert.sign
    Dj = enumerate_patterns(X).D[j]
    assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-12)
    assert np.all((2 * Dj - 1) * (X @ u) >= -1e-12)
    assert s * lam @ (Dj * (X @ u)) == pytest.approx(cert.value, rel=1e-10)
    assert abs(lam @ np.maximum(X @ u, 0)) == pytest.approx(cert.value, rel=1e-10)


def test_dual_certificate_os_closed_form_r2():
    """Spec R2: for OS data and y lam >= 0, V(lam) = max(||X^T lam_+||, ||X^T lam_-||)."""
    X, y = os_cones(0, 5, 5, 3)
    assert is_orthogonally_separable(X, y)[0]
    D = enumerate_patterns(X).D
    rng = np.random.default_rng(1)
    for _ in range(20):
        lam = y * rng.exponential(size=10) * (rng.uniform(size=10) > 0.3)
        expected = max(np.linalg.norm(X.T @ np.maximum(lam, 0)), np.linalg.norm(X.T @ np.minimum(lam, 0)))
        assert dual_certificate(lam, X, D).value == pytest.approx(expected, rel=1e-10)


def test_dual_certificate_negative_control_obtuse_same():
    """Spec prop4 negative control: ||X^T lam|| = 1 but V(lam) = 1.932 on OBTUSE_SAME."""
    X, _ = OBTUSE_SAME
    lam = np.ones(2) / np.linalg.norm(X.T @ np.ones(2))
    assert np.linalg.norm(X.T @ lam) == pytest.approx(1.0)
    assert dual_certificate(lam, X, enumerate_patterns(X).D).value == pytest.approx(1.9319, abs=1e-4)


# ------------------------------------------------------------------ cross-checks and controls


@pytest.mark.parametrize("seed", [0, 1])
def test_os_closed_form_r1(seed):
    X, y = os_cones(seed, 4, 5, 3)
    assert is_orthogonally_separable(X, y)[0]
    D = enumerate_patterns(X).D
    r = convex_primal(X, y, D)
    assert_certified(r, "primal")
    expected = class_svm_norm(X[y > 0]) + class_svm_norm(X[y < 0])
    assert r.value == pytest.approx(expected, rel=REL)


def test_incomplete_patterns_upper_bound_and_detectable():
    """Spec control: a sampled subset gives P_S >= P*, and here P_S > P* with V(lam_S) > 1 over the full P."""
    X, y = random_fixture(8, 10, 3)
    full = enumerate_patterns(X).D
    p_star = convex_primal(X, y, full).value
    sub = sample_patterns(X, 6, np.random.default_rng(0)).D
    rs = convex_primal(X, y, sub)
    assert rs.value >= p_star * (1 - REL)
    assert rs.value > p_star * (1 + 1e-3)
    assert dual_certificate(rs.lam, X, full).value > 1 + 1e-3


def test_infeasible_fixture_is_not_success():
    X = np.array([[1.0, 0.5], [2.0, 1.0], [0.0, 1.0]])  # x_2 = 2 x_1 with the opposite label: (14) infeasible
    y = np.array([1.0, -1.0, 1.0])
    r = convex_primal(X, y, enumerate_patterns(X).D)
    assert not r.success
    assert r.status.startswith("infeasible")
    rd = convex_dual(X, y, enumerate_patterns(X).D)
    assert not rd.success and rd.status.startswith("unbounded")


def _dual_certificate_checked(lam, X, D):
    """dual_certificate's pattern values and argmax as written before its NNLS fast path: public nnls and
    np.linalg.norm on every pattern and sign."""
    from scipy.optimize import nnls

    D = np.asarray(D, dtype=float)
    p, d = D.shape[0], X.shape[1]
    values, argmax = np.zeros((p, 2)), np.zeros((2, p, d))
    C = X.T @ (D * lam).T
    for j in range(p):
        A = X.T * (2.0 * D[j] - 1.0)
        for k, s in enumerate((1.0, -1.0)):
            c = s * C[:, j]
            z, _ = nnls(A, -c)
            r = c + A @ z
            nr = float(np.linalg.norm(r))
            values[j, k] = nr
            if nr > 0:
                argmax[k, j] = r / nr
    return values, argmax


@pytest.mark.parametrize("solver", ["compiled", "nnls"])
@pytest.mark.parametrize("seed, n, d", [(0, 6, 2), (1, 8, 3), (2, 10, 4)])
def test_dual_certificate_is_the_checked_nnls_loop_bit_for_bit(monkeypatch, solver, seed, n, d):
    import verify.numerics.convex as convex

    if solver == "nnls":
        monkeypatch.setattr(convex, "_NNLS_SOLVER", None)
    X, _ = random_fixture(seed, n, d)
    D = enumerate_patterns(X).D
    rng = np.random.default_rng(seed)
    for lam in (rng.normal(size=n), rng.exponential(size=n) * np.sign(rng.normal(size=n)), np.zeros(n)):
        cert = dual_certificate(lam, X, D)
        values, argmax = _dual_certificate_checked(lam, X, D)
        assert np.array_equal(cert.pattern_values, values) and np.array_equal(cert.argmax, argmax)


def test_nnls_fast_path_is_nnls_and_leaves_its_inputs():
    from scipy.optimize import nnls

    import verify.numerics.convex as convex

    rng = np.random.default_rng(7)
    for _ in range(50):
        A = np.ascontiguousarray(rng.normal(size=(4, 9)))
        b = rng.normal(size=4)
        A0, b0 = A.copy(), b.copy()
        x, rnorm = convex._nnls_checked_once(A, b)
        want_x, want_rnorm = nnls(A0, b0)
        assert np.array_equal(x, want_x) and rnorm == want_rnorm
        assert np.array_equal(A, A0) and np.array_equal(b, b0)


def test_dual_certificate_refuses_non_finite_input_as_nnls_did():
    X, _ = random_fixture(0, 6, 2)
    D = enumerate_patterns(X).D
    lam = np.ones(6)
    for bad_lam, bad_X in ((np.r_[np.nan, lam[1:]], X), (lam, np.where(np.arange(12).reshape(6, 2) == 3, np.inf, X))):
        with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="infs or NaNs"):
            _dual_certificate_checked(bad_lam, bad_X, D)
        with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="infs or NaNs"):
            dual_certificate(bad_lam, bad_X, D)
