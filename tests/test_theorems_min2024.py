"""Fast unit tests of the Min et al. (2024) helpers and fixtures, and of how they use the shared numerics."""

from __future__ import annotations

import numpy as np
import pytest

from fixtures.min2024 import assumption1_statistics, digit_pair, gaussian_init, wellsep_data
from theorems.min2024.common import (
    DEAD,
    MINUS,
    OTHER,
    PLUS,
    constants,
    euler_polar,
    flow_field,
    limit_alignment,
    margin_loss,
    membership,
    mu_of,
    neg_loss_derivative,
    polar_outputs,
    polar_velocity,
    time_grid,
    total_loss,
    zeta1_star,
    zeta2_star,
)
from theorems.min2024.constants_claims import harmonic, longest_path
from theorems.min2024.experiments import _first_layer_gd, _gd_record
from theorems.min2024.geometry import sdead_nonempty
from verify.numerics.flow import integrate_flow, simulate_log_scale
from verify.numerics.nets import forward, gradient, unflatten_params


@pytest.mark.parametrize("mu", [0.9, 0.5, 0.1, 1e-3])
def test_wellsep_has_exact_mu(mu):
    X, y = wellsep_data(np.random.default_rng(0), 4, 3, 5, mu)
    assert abs(mu_of(X, y) - mu) < 1e-12


def test_tilted_data_has_dead_interior():
    X, y = wellsep_data(np.random.default_rng(1), 3, 3, 4, 0.6, tilt=True)
    assert (X @ -np.eye(4)[1] < 0).all()
    assert sdead_nonempty(X) == (True, True)


def test_sdead_empty_for_surrounding_data():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    assert sdead_nonempty(X) == (False, False)


def test_membership_codes():
    X = np.array([[1.0, 0.2], [-1.0, 0.2]])
    y = np.array([1.0, -1.0])
    U = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])
    assert membership(X, y, U, 0.0).tolist() == [PLUS, MINUS, DEAD, OTHER]


def test_zeta_closed_forms():
    X, y = wellsep_data(np.random.default_rng(2), 3, 3, 4, 0.5)
    assert zeta1_star(X, y) >= mu_of(X, y) ** 2 - 1e-15
    xm = X[y < 0].sum(0)
    W0 = np.array([xm, -xm])
    s = np.array([1.0, -1.0])
    assert zeta2_star(X, y, W0, s) == pytest.approx(0.0, abs=1e-15)


def test_theorem_constants_relation():
    """With eps = eps2 exactly (and h = 1), T of Lemmas 1, 3 equals t1 (a consequence of (28))."""
    X, y = wellsep_data(np.random.default_rng(3), 3, 3, 4, 0.6)
    W0, s = gaussian_init(np.random.default_rng(4), 1, 4)
    c = constants(X, y, W0, s)
    assert c.T(c.log_eps2) == pytest.approx(c.t1, rel=1e-12)
    assert c.zeta <= min(c.zeta1, c.zeta2) and c.xi == pytest.approx(c.mu ** 2)


def test_path_dp_matches_closed_form():
    for n_pos, n_neg in [(1, 1), (2, 3), (4, 1), (3, 3)]:
        assert longest_path(n_pos, n_neg) == pytest.approx(harmonic(n_neg) + 0.5 + harmonic(n_pos - 1))


@pytest.mark.parametrize("loss", ["exp", "logistic", "logistic2"])
def test_loss_derivative_matches_finite_difference(loss):
    y = np.array([1.0, -1.0, 1.0])
    f = np.array([0.3, -0.7, 2.0])
    h = 1e-6
    fd = [-(total_loss(loss, y[i:i + 1], f[i:i + 1] + h) - total_loss(loss, y[i:i + 1], f[i:i + 1] - h)) / (2 * h)
          for i in range(3)]
    assert np.allclose(neg_loss_derivative(loss, y, f), fd, rtol=1e-6, atol=1e-9)


def test_logistic2_is_twice_logistic():
    q = np.linspace(-5, 5, 11)
    assert np.allclose(margin_loss("logistic2").value(q), 2 * margin_loss("logistic").value(q), rtol=1e-14)


def test_polar_velocity_matches_direct_field():
    rng = np.random.default_rng(5)
    X, y = wellsep_data(rng, 3, 3, 4, 0.5)
    W = rng.normal(size=(5, 4))
    s = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    v = s * np.linalg.norm(W, axis=1)
    dW, dv = flow_field(W, v, X, y)
    rho = np.log(np.linalg.norm(W, axis=1))
    U = W / np.exp(rho)[:, None]
    dU, drho = polar_velocity(U, rho, s, X, y)
    assert np.allclose(dW, np.exp(rho)[:, None] * (dU + drho[:, None] * U))
    assert np.allclose(dv, s * np.exp(rho) * drho)
    assert np.allclose(polar_outputs(X, U, rho, s), forward(W, v, X))


def test_flow_field_uses_indicator_at_the_kink():
    """sigma'(0) = leak: a neuron exactly on <x_1, w> = 0 gets no pull from x_1 (Def. 1, regular solution)."""
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, 1.0])
    W = np.array([[0.0, 1.0]])
    v = np.array([1.0])
    dW, _ = flow_field(W, v, X, y)
    assert dW[0, 0] == 0.0 and dW[0, 1] > 0


def test_log_scale_flow_underflow_regime_is_scale_free():
    """Deep in the underflow regime the directions do not depend on log eps (exact eps -> 0 limit)."""
    rng = np.random.default_rng(6)
    X, y = wellsep_data(rng, 2, 2, 3, 0.6)
    W0, s = gaussian_init(rng, 4, 3)
    t = np.linspace(0, 2, 5)
    a, b = (simulate_log_scale(W0, np.full(4, le), s, X, y, loss=margin_loss("exp"), reduction="sum", t_end=2.0,
                               t_eval=t) for le in (-2000.0, -5000.0))
    assert a.success and b.success
    assert np.allclose(a.history["directions"], b.history["directions"], atol=1e-12)
    assert np.allclose(a.history["log_norms"] - a.history["log_norms"][0],
                       b.history["log_norms"] - b.history["log_norms"][0], atol=1e-10)


def test_direct_flow_is_balanced_and_agrees_with_log_scale_flow():
    """The direct (W, v) flow of early.py and the polar flow of common.py solve the same ODE."""
    rng = np.random.default_rng(7)
    X, y = wellsep_data(rng, 2, 2, 3, 0.6)
    W0, s = gaussian_init(rng, 4, 3)
    W0 = 1e-3 * W0
    v0 = s * np.linalg.norm(W0, axis=1)
    t = np.linspace(0, 1, 3)
    d = integrate_flow(W0, v0, X, y, loss=margin_loss("exp"), reduction="sum", t_end=1.0, t_eval=t, atol=1e-16,
                       error_estimate=False)
    W, v = unflatten_params(d.history["theta"], 4, 3)
    assert d.success
    assert np.abs(v ** 2 - (W ** 2).sum(2)).max() < 1e-9 * (W ** 2).sum(2).max()
    p = simulate_log_scale(W0, np.log(np.linalg.norm(W0, axis=1)), s, X, y, loss=margin_loss("exp"),
                           reduction="sum", t_end=1.0, t_eval=t)
    Wp = np.exp(p.history["log_norms"])[..., None] * p.history["directions"]
    assert np.allclose(Wp, W, rtol=1e-7, atol=0)
    te, Ue, rhoe, ok, _ = euler_polar(X, y, W0, np.log(np.linalg.norm(W0, axis=1)), s, 1e-4, 10000, record_every=10000)
    # explicit Euler is first order: relative error O(dt * t * Lipschitz) ~ 1e-3 here
    assert ok and te.tolist() == [0.0, 1.0]
    assert np.allclose(Ue[-1] * np.exp(rhoe[-1])[:, None], W[-1], rtol=2e-3, atol=0)


def test_gd_helpers_match_plain_gradient_steps():
    rng = np.random.default_rng(9)
    X, y = wellsep_data(rng, 2, 2, 3, 0.6)
    W0, v0 = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5))
    its, Ws, vs = _gd_record(X, y, W0, v0, 1e-2, 6, 3)
    W, v = W0[1], v0[1]
    for _ in range(6):
        dW, dv = gradient(W, v, X, y, loss="logistic", at_kink=0.0, reduction="sum")
        W, v = W - 1e-2 * dW, v - 1e-2 * dv
    assert its.tolist() == [0, 3, 6] and Ws.shape == (3, 2, 5, 3)
    assert np.allclose(Ws[-1, 1], W, rtol=1e-13) and np.allclose(vs[-1, 1], v, rtol=1e-13)
    its1, Ws1 = _first_layer_gd(X, y, W0[0], v0[0], 1e-2, 4, 2)
    W = W0[0]
    for _ in range(4):
        W = W - 1e-2 * gradient(W, v0[0], X, y, loss="logistic", at_kink=0.0, reduction="mean")[0]
    assert its1.tolist() == [0, 2, 4] and np.allclose(Ws1[-1], W, rtol=1e-13)


@pytest.mark.parametrize("pair, mu, violating", [((0, 1), -0.7178, 0.0669), ((3, 8), -0.6677, 0.2152),
                                                  ((1, 7), -0.7055, 0.1892)])
def test_real_digits_violate_assumption_1_after_centring(pair, mu, violating):
    """scikit-learn's 8x8 digits (no download): non-negative pixels, so every raw pair correlates; centred, the
    pairs of the paper's experiments still violate Assumption 1 (the referee's figures)."""
    raw, y = digit_pair(*pair)
    assert (raw >= 0).all() and (raw @ raw.T >= 0).all() and len(y) > 340
    X = raw - raw.mean(0)
    assert np.allclose(X[y > 0].sum(0), -X[y < 0].sum(0))
    m, v = assumption1_statistics(X, y)
    assert m == pytest.approx(mu, abs=1e-3) and v == pytest.approx(violating, abs=1e-3)


def test_vectorised_membership_matches_rows():
    rng = np.random.default_rng(11)
    X, y = wellsep_data(rng, 3, 2, 4, 0.5)
    U = rng.normal(size=(7, 5, 4))
    stacked = membership(X, y, U, 1e-9)
    assert stacked.shape == (7, 5)
    assert all((stacked[k] == membership(X, y, U[k], 1e-9)).all() for k in range(7))


def test_time_grid_has_the_late_decades():
    g = time_grid(1e15, 1e3)
    assert g[0] == 0.0 and g[-1] == pytest.approx(1e15)
    assert all(np.isclose(g, 1e3 * 10.0 ** k, rtol=1e-12).any() for k in range(13))


def test_limit_alignment_aligns_and_is_scale_free():
    rng = np.random.default_rng(12)
    X, y = wellsep_data(rng, 3, 3, 4, 0.6, (1.0, 1.5))
    W0, s = gaussian_init(rng, 8, 4)
    run = limit_alignment(X, y, W0, s)
    assert run.ok and 0.0 < run.t_align < 5.0
    assert np.all((run.mem[-1] == s.astype(int)) | (run.mem[-1] == DEAD))


def test_leaky_limit_flow_leaves_s_dead():
    """Remark 5 probe: with leaky ReLU a neuron started inside S_dead leaves it (x_a(w) lies in K)."""
    rng = np.random.default_rng(13)
    X, y = wellsep_data(rng, 3, 3, 4, 0.6, (1.0, 1.5), tilt=True)
    W0, s = gaussian_init(rng, 6, 4)
    W0[0] = -np.eye(4)[1]
    assert membership(X, y, W0[:1], 0.0)[0] == DEAD
    run = limit_alignment(X, y, W0, s, leak=0.2)
    assert run.ok and (run.mem[-1] == np.where(s > 0, PLUS, MINUS)).all()


def test_t2_analytic_lower_bound_grows_linearly_with_one_positive_point():
    """The second method of the t2-order erratum: from Lemmas 2-3 alone, n t2 / log(1/(sqrt h eps)) >= R_lb(n),
    and R_lb grows ~linearly in n when n+ = 1."""
    from theorems.min2024.theorem1 import _t2_lower_bound

    ratios = []
    for n_neg in (3, 12):
        X, y = wellsep_data(np.random.default_rng(14), 1, n_neg, 4, 0.6, (1.0, 1.5))
        W0, s = gaussian_init(np.random.default_rng(15), 8, 4)
        c = constants(X, y, W0, s)
        le = c.log_eps_theorem
        ratios.append(c.n * _t2_lower_bound(c, le) / (-0.5 * np.log(c.h) - le))
    assert ratios[1] / ratios[0] > 2.0


def test_errata_second_methods_in_exact_arithmetic():
    from theorems.min2024.constants_claims import _eq29_exact_ratio, _exact_n2_excess

    assert _eq29_exact_ratio() == "2"
    text, positive = _exact_n2_excess()
    assert positive and text == "7/2 - 4*log(2)"


def test_refine_box_worst_case_is_above_one_half_for_orthogonal_data():
    """E22: even for orthogonal positives (mu -> 0) the worst weighting in [1/2, 3/2] keeps cos(x+, x~_a) >= sqrt(3)/2
    (two orthogonal unit vectors, one with weight 3/2)."""
    from theorems.min2024.trajectories import _box_worst_cos

    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0])
    assert _box_worst_cos(X, y) == pytest.approx(2 / np.sqrt(2 * 2.5), rel=1e-12)
    assert _box_worst_cos(X, y) > 0.5


def test_lemma2_edge_search_finds_the_x1_logistic_violation():
    from theorems.min2024.early import _lemma2_excess, _yhat_points

    yh = _yhat_points("edges")
    assert yh.min() == -1.0 and yh.max() == 1.0 and np.abs(yh[yh != 0]).min() <= 1e-299
    assert _lemma2_excess("exp", "edges")[0] <= 1e-15
    # the main text's log(1 + e^{-q}) has |g - y| = 1/2 at yhat = 0 (spec E3): the search must see it
    assert abs(_lemma2_excess("logistic", "edges")[0] - 0.5) < 1e-9


def test_scaled_e34_example_is_balanced_on_the_dead_boundary():
    from fixtures.min2024 import example_e34
    from theorems.min2024.trajectories import _caratheodory_residual, _glued_solution
    from verify import random
    from verify.claims import build_fixture

    fx = build_fixture(random(example_e34, scale=1e-3), 0, "quick")
    assert fx["w0"] @ fx["x"] == 0 and fx["v0"] == np.linalg.norm(fx["w0"])
    t, W, V = _glued_solution(fx, 0.5)
    assert _caratheodory_residual(fx, t, W, V) < 1e-6
    assert (W[t > 0.5 + 1e-9] @ fx["x"] > 0).all()   # leaves S_dead: the printed Lemma 12(i) fails


def test_hypothesis_failing_fixtures_do_not_crash_the_checks():
    from fixtures.min2024 import a2_violator, clusters
    from theorems.min2024.constants_claims import t1order, zeta_check
    from theorems.min2024.geometry import asm1
    from verify import negative
    from verify.claims import build_fixture

    fx = build_fixture(negative(a2_violator), 3, "quick")
    # a V+ neuron exactly along x_-: the alignment never ends (the probe's conclusion fails, computed)
    ev = t1order(fx)
    assert [c.holds for c in ev.comparisons if c.role == "conclusion"] == [False]
    # 1 - c^2 = 0 there: the (26) comparison is judged in absolute form, without dividing by it
    assert not all(c.holds for c in zeta_check(fx).comparisons)
    ev = asm1(build_fixture(negative(clusters), 3, "quick"))
    assert not all(c.holds for c in ev.comparisons)   # opposite-label pairs not all negatively correlated


def test_lemma12_second_method_leaves_s_dead():
    """App. E.4 integrated again with scipy DOP853: <x, w(t)> > 0 right after t0, matching the RK4 trajectory."""
    from fixtures.min2024 import example_e34
    from theorems.min2024.trajectories import _e4_second_method
    from verify import random
    from verify.claims import build_fixture

    lo, diff = _e4_second_method(build_fixture(random(example_e34), 0, "quick"))
    assert lo > 0 and diff < 1e-6


def test_direction_error_reads_field_and_x_a_from_one_activation_pattern():
    """A neuron that entered S_dead sits on the plane it crossed, <w_j, x_i> below the rounding of the product: the
    field and x_a(w_j) must be read on the same side (Lemma 1's error is then O(|f|) whichever side rounding picks)."""
    from theorems.min2024.early import _direction_error

    X = np.array([[1.0, 0.0, 0.0], [1.0, 0.5, 0.0], [-1.0, 0.3, 0.0], [-1.0, 0.4, 0.1]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    assert mu_of(X, y) > 0
    W = 1e-8 * np.array([[0.0, -1.0, 0.0], [1.0, 0.2, 0.3], [-0.5, 1.0, 0.2]])
    assert np.all(X[1:] @ W[0] < 0) and X[0] @ W[0] == 0.0   # neuron 0: on the plane of x_0, inactive elsewhere
    s = np.array([-1.0, 1.0, -1.0])
    v = s * np.linalg.norm(W, axis=1)
    fmax = float(np.abs(forward(W, v, X)).max())
    bound = 2 * len(y) * np.linalg.norm(X, axis=1).max() * fmax        # Lemma 4
    for delta in (-1e-30, 0.0, 1e-30):                               # both sides of the plane and on it
        Wd = W.copy()
        Wd[0, 0] += delta
        assert _direction_error(X, y, Wd, v, s, "exp", 0.0).max() <= bound
    # the field of the active side against the x_a of the inactive side: an O(1) error, not a property of the flow
    Wp = W.copy()
    Wp[0, 0] += 1e-30
    dW, _ = flow_field(Wp, v, X, y)
    u = W[0] / np.linalg.norm(W[0])
    mixed = dW[0] / np.linalg.norm(W[0])                             # x_a(w_0) = 0 on the inactive side
    assert np.linalg.norm(mixed - (mixed @ u) * u) > 1e3 * bound


def test_rmk7_exit_velocity_separates_e4_from_an_entry_through_the_other_class():
    """App. E.4's neuron sits on the plane of a point of its own sign: the field next to it points out of S_dead
    (+1); a V+ neuron on the plane of a negative point is pushed back (-1), and on the planes of two negative points
    at once every neighbouring region pushes back (<= -mu)."""
    from theorems.min2024.constants_claims import _exit_velocity

    x, u = np.array([[1.0, 0.0]]), np.array([0.0, 1.0])
    assert _exit_velocity(x, np.array([1.0]), u, 1.0, np.array([1.0]), 1e-12) == (1.0, 1)
    assert _exit_velocity(x, np.array([-1.0]), u, 1.0, np.array([-1.0]), 1e-12) == (-1.0, 1)
    X2, y2 = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0]]), -np.ones(2)
    worst, planes = _exit_velocity(X2, y2, np.array([0.0, 0.0, 1.0]), 1.0, y2, 1e-12)
    assert planes == 2 and worst <= -mu_of(X2, y2) + 1e-12


def test_path_claim_fails_at_n_equal_one():
    from fixtures.min2024 import paths
    from theorems.min2024.constants_claims import path
    from verify import negative
    from verify.claims import build_fixture

    ev = path(build_fixture(negative(paths, n_min=1), 0, "quick"))
    assert [c.holds for c in ev.comparisons][-1] is False   # H_1 = 1 > 4 log 1 = 0


def _fixture(use, seed=0, profile="quick"):
    from verify.claims import Fixture

    return Fixture(use, seed, profile, use.family.build(np.random.default_rng(seed), **use.params))


def test_eps_gap_breaks_the_lemma_hypothesis_with_a_nonempty_domain():
    """The probe min.wellsep.eps_gap sits strictly between the lemmas' edge and 1/sqrt(h): the hypothesis is
    broken while T > 0 (the printed domain [0, T] is not empty); the large-init control has T <= 0."""
    from theorems.min2024.common import fixture_constants, log_eps_of
    from theorems.min2024.early import GAP_INIT, LARGE_INIT

    for seed in range(5):
        fx = _fixture(GAP_INIT, seed)
        c, le = fixture_constants(fx), log_eps_of(fx)
        assert c.log_eps_lemma() < le < -0.5 * np.log(c.h)
        assert c.T(le) > 0
        large = _fixture(LARGE_INIT, seed)
        assert fixture_constants(large).T(log_eps_of(large)) <= 0


def test_fig5_runs_are_fixed_by_the_profile_and_distinct():
    """exp.fig5 judges the literal band over inits drawn from the fixture's seed: 1 in quick, 4 in standard, 8 in
    thorough; the first is the fixture's own init, the others differ from it and from each other."""
    from theorems.min2024.experiments import FIG5_FIXTURES, _runs

    use = FIG5_FIXTURES[0]
    assert len(_runs(_fixture(use, 3, "quick"))) == 1
    runs = _runs(_fixture(use, 3, "standard"))
    assert len(runs) == 4 and len(_runs(_fixture(use, 3, "thorough"))) == 8
    fx = _fixture(use, 3, "standard")
    assert np.array_equal(runs[0][0], fx["W_init"])
    assert len({float(W[0, 0]) for W, _ in runs}) == 4
    again = _runs(_fixture(use, 3, "standard"))
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(runs, again))
