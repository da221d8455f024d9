"""Fast unit tests of the Phuong & Lampert (2021) helpers: geometry, hypotheses, sector numerics, dynamics."""

import numpy as np
import pytest

from fixtures import orthogonal as osd
from fixtures import phuong2021 as ph
from theorems.phuong2021 import hypotheses as H
from theorems.phuong2021._dynamics import (
    POLY,
    flow_until_output,
    gd_history,
    get_paper_loss,
    gradient_flow,
    limit_distance,
    log_time_gd,
    loss_tail,
    loss_value,
    net,
    velocity,
)
from theorems.phuong2021._geometry import class_geometry, early_weights, extremal_sectors
from theorems.phuong2021.flow import shrinking_neuron_closed_form
from theorems.phuong2021.informal import _exact_zero_cross_pairs, heavy_tail_direction, log_time_velocity
from theorems.phuong2021.limit import CLASS_SUMS, D8_TOL, thm1_check
from verify.claims import Fixture, negative, random
from verify.errors import UsageError
from verify.judgements import judge_trend
from verify.numerics.patterns import is_orthogonally_separable
from verify.numerics.sectors import (
    circle_extrema,
    class_sum_directions,
    expansion_radius,
    multistart_maxima,
    open_sector_fixed_points,
    potential,
    projected_gradient,
    sector_of,
)


def _fx(fam, seed=0, **params):
    use = random(fam, **params)
    return Fixture(use, seed, "quick", fam.build(np.random.default_rng(seed), **params))


# -- geometry --------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_max_margin_matches_closed_form(seed):
    data = osd.span_certified.build(np.random.default_rng(seed), d=5, n_pos=9, n_neg=11)
    cg = class_geometry(data["X"], data["y"])
    np.testing.assert_allclose(cg.w_pos, data["w_pos"], atol=1e-10)
    np.testing.assert_allclose(cg.w_neg, data["w_neg"], atol=1e-10)
    assert cg.certified and cg.feasible
    assert sorted(cg.support_pos) == sorted(data["support_pos"])


def test_class_geometry_infeasible_when_zero_in_hull():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    cg = class_geometry(X, np.array([1.0, 1.0, -1.0]))
    assert not cg.feasible and not cg.certified and cg.support_pos.size == 0


def test_support_examples_are_the_active_set_not_the_positive_multipliers():
    # os.boundary: the negative class has two examples attaining equality in (7), one with a zero multiplier
    data = osd.boundary.build(np.random.default_rng(0), permute=False)
    X, y = data["X"], data["y"]
    cg = class_geometry(X, y)
    assert cg.certified
    neg = np.flatnonzero(y < 0)
    np.testing.assert_allclose(X[cg.support_neg] @ cg.w_neg, 1.0, atol=1e-12)
    assert cg.support_neg.size > np.count_nonzero(cg.neg.multipliers > 0)
    assert np.all(X[np.setdiff1d(neg, cg.support_neg)] @ cg.w_neg > 1.0 + 1e-7)


def test_early_weights_are_minus_the_loss_derivative_at_zero():
    y = np.array([1.0, -1.0, 1.0])
    np.testing.assert_allclose(early_weights(y), y / 2, rtol=1e-15)
    np.testing.assert_allclose(early_weights(y, "ce2"), y / 2, rtol=1e-15)
    np.testing.assert_allclose(early_weights(y, "exp"), y, rtol=1e-15)


def test_extremal_sector_formula_on_exact_data():
    data = osd.boundary.build(np.random.default_rng(0), permute=False)
    sp, sn = extremal_sectors(data["X"], data["y"], tol=0.0)
    np.testing.assert_array_equal(sp, [1, 1, 1, 0, -1])
    np.testing.assert_array_equal(sn, [-1, -1, -1, 1, 1])
    wp, wn = class_sum_directions(data["X"], early_weights(data["y"]))
    np.testing.assert_array_equal(sector_of(data["X"], wp, 0.0), sp)
    np.testing.assert_array_equal(sector_of(data["X"], wn, 0.0), sn)


def test_orthogonal_separability_predicate():
    d = osd.cones.build(np.random.default_rng(0))
    assert is_orthogonally_separable(d["X"], d["y"])[0]
    for fam in (ph.obtuse, ph.xor, ph.acute_cross):
        d = fam.build(np.random.default_rng(0))
        assert not is_orthogonally_separable(d["X"], d["y"])[0]


# -- hypotheses ------------------------------------------------------------------------------------

def test_hypotheses_on_known_fixtures():
    assert H.orthogonally_separable.evaluate(_fx(ph.span_net)).holds
    assert not H.orthogonally_separable.evaluate(_fx(ph.obtuse, theta2_deg=130.0)).holds
    assert H.support_span.evaluate(_fx(ph.span_net)).holds
    assert not H.support_span.evaluate(_fx(ph.boundary_net)).holds          # rank 2 < 3
    assert H.balanced_init.evaluate(_fx(ph.span_net)).holds
    assert not H.balanced_init.evaluate(_fx(ph.unbalanced)).holds
    assert H.near_zero_init.evaluate(_fx(ph.span_net)).holds
    assert not H.near_zero_init.evaluate(_fx(ph.span_net, lam=1.0)).holds
    assert H.loss_conditions.evaluate(_fx(ph.span_net)).holds
    assert not H.loss_conditions.evaluate(_fx(ph.span_net, loss="exp")).holds
    assert H.general_position.evaluate(_fx(ph.gaussian)).holds
    assert not H.general_position.evaluate(Fixture(random(ph.gaussian), 0, "quick", {
        "X": np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]]), "y": np.array([1.0, -1.0, 1.0])})).holds


# -- sector numerics -------------------------------------------------------------------------------

def test_circle_extrema_obtuse_pair():
    d = ph.obtuse.build(np.random.default_rng(0), theta2_deg=110.0)
    ext = circle_extrema(d["X"], early_weights(d["y"]))
    got = sorted((e["kind"], round(float(np.rad2deg(e["angle"])), 6)) for e in ext)
    assert got == [("max", 0.0), ("max", 55.0), ("max", 110.0), ("min", 20.0), ("min", 90.0), ("min", 242.5)]


def test_multistart_finds_the_open_sector_maxima_of_the_obtuse_pair():
    d = ph.obtuse.build(np.random.default_rng(0), theta2_deg=110.0)
    found = multistart_maxima(d["X"], early_weights(d["y"]), np.random.default_rng(1), starts=300)
    angles = sorted(round(float(np.rad2deg(np.arctan2(e["direction"][1], e["direction"][0]))), 6) for e in found)
    assert angles == [0.0, 55.0, 110.0]


def test_open_sector_fixed_points_unique_for_os_data():
    d = osd.cones.build(np.random.default_rng(1), d=3, n_pos=5, n_neg=6)
    c = early_weights(d["y"])
    fps = open_sector_fixed_points(d["X"], c)
    wp, wn = class_sum_directions(d["X"], c)
    assert [e["kind"] for e in fps].count("max") == 1 and [e["kind"] for e in fps].count("min") == 1
    mx = next(e for e in fps if e["kind"] == "max")
    np.testing.assert_allclose(mx["direction"], wp, atol=1e-12)
    assert mx["value"] == pytest.approx(np.linalg.norm(d["X"][d["y"] > 0].T @ c[d["y"] > 0]), rel=1e-12)


def test_potential_and_projected_gradient_identities():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 3))
    c = rng.standard_normal(7)
    w = rng.standard_normal(3)
    assert potential(X, c, 2.5 * w) == pytest.approx(2.5 * potential(X, c, w), rel=1e-13)
    assert w @ projected_gradient(X, c, w) == pytest.approx(potential(X, c, w), rel=1e-12)
    assert expansion_radius(X, w, w) == np.inf
    assert expansion_radius(X, w, -w) == pytest.approx(0.5, rel=1e-12)


# -- dynamics --------------------------------------------------------------------------------------

def test_velocity_matches_finite_differences():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((6, 3)), rng.choice([-1.0, 1.0], 6)
    a, W = rng.standard_normal(4), rng.standard_normal((4, 3))
    da, dW = velocity(a, W, X, y)
    h = 1e-6
    e = np.zeros_like(W)
    e[1, 2] = h
    fd = -(loss_value(a, W + e, X, y) - loss_value(a, W - e, X, y)) / (2 * h)
    assert dW[1, 2] == pytest.approx(fd, rel=1e-6)


@pytest.mark.parametrize("loss", ["ce", "ce2", "ce:0.1", "exp", "poly"])
def test_log_time_velocity_is_the_velocity_bit_for_bit(loss):
    rng = np.random.default_rng(4)
    X, y = rng.standard_normal((6, 3)), rng.choice([-1.0, 1.0], 6)
    vel = log_time_velocity(X, y, loss)
    for a, W in ((rng.standard_normal(4), rng.standard_normal((4, 3))), (np.ones(4), np.zeros((4, 3)))):
        vW, va = vel(W, a)
        want_a, want_W = velocity(a, W, X, y, loss)
        assert va.tobytes() == want_a.tobytes() and vW.tobytes() == want_W.tobytes()   # signed zeros included
    with pytest.raises(UsageError):
        vel(np.zeros((4, 2)), np.ones(4))


def test_limit_distance_is_zero_at_the_limit():
    data = osd.span_certified.build(np.random.default_rng(0), d=3, n_pos=4, n_neg=4)
    wp, wn = data["w_pos"], data["w_neg"]
    u, z = np.array([0.3, 0.0, 0.5]), np.array([0.0, 0.7, 0.0])
    W = np.outer(u, wp) + np.outer(z, wn)
    s = np.linalg.norm(W)
    u, z, W = u / s, z / s, W / s
    a = u * np.linalg.norm(wp) - z * np.linalg.norm(wn)
    d8, d9, _, _ = limit_distance(a, W, wp, wn)
    assert d8 < 1e-14 and d9 < 1e-14


def test_gradient_flow_keeps_balance():
    fx = _fx(ph.span_net, p=4, n_pos=6, n_neg=6, d=3)
    tr = gradient_flow(fx["X"], fx["y"], fx["a0"], fx["W0"], np.array([0.0, 1.0, 5.0]))
    gap = np.abs(np.abs(tr.a) - np.linalg.norm(tr.W, axis=2)) / np.linalg.norm(tr.W, axis=2)
    assert tr.success and gap.max() < 1e-7


@pytest.mark.parametrize("loss", ["ce", "ce2", "exp"])
def test_velocity_is_minus_the_gradient_of_the_summed_loss(loss):
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((5, 3)), np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    a, W = 0.5 * rng.standard_normal(2), 0.5 * rng.standard_normal((2, 3))
    da, _ = velocity(a, W, X, y, loss)
    h = 1e-6
    e = np.array([h, 0.0])
    fd = -(loss_value(a + e, W, X, y, loss) - loss_value(a - e, W, X, y, loss)) / (2 * h)
    assert da[0] == pytest.approx(fd, rel=1e-6)


def test_gradient_flow_restarts_on_a_later_grid():
    # the flow is autonomous: starting at s0 from theta(s0) continues the same trajectory
    fx = _fx(ph.span_net, p=3, n_pos=4, n_neg=4, d=3, lam=1e-2)
    whole = gradient_flow(fx["X"], fx["y"], fx["a0"], fx["W0"], np.array([0.0, 1.0, 3.0]))
    rest = gradient_flow(fx["X"], fx["y"], whole.a[1], whole.W[1], np.array([1.0, 3.0]))
    np.testing.assert_allclose(rest.W[-1], whole.W[-1], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(rest.s, [1.0, 3.0])


def test_flow_until_output_stops_at_the_level():
    fx = _fx(ph.span_net, p=3, n_pos=4, n_neg=4, d=3, lam=1e-3)
    a, W = flow_until_output(fx["X"], fx["y"], fx["a0"], fx["W0"], 1e-4, 4.0)
    fmax = float(np.max(np.abs(net(a, W, fx["X"]))))
    assert 1e-4 <= fmax <= 1e-4 * (1 + 1e-6)


def test_gd_history_and_log_time_gd_are_gradient_descent():
    fx = _fx(ph.span_net, p=3, n_pos=4, n_neg=4, d=3, lam=1e-2)
    X, y, a0, W0 = fx["X"], fx["y"], fx["a0"], fx["W0"]
    A, Ws = gd_history(X, y, a0, W0, 0.1, 4, record_every=2)
    assert A.shape == (3, 3) and Ws.shape == (3, 3, 3)
    a, W = a0.copy(), W0.copy()
    for _ in range(2):
        da, dW = velocity(a, W, X, y)
        a, W = a + 0.1 * da, W + 0.1 * dW
    np.testing.assert_allclose(A[1], a, rtol=1e-13)
    np.testing.assert_allclose(Ws[1], W, rtol=1e-13)
    (a1, W1), = log_time_gd(X, y, a0, W0, [np.log1p(0.004)], h=0.002)
    a, W = a0.copy(), W0.copy()
    for dt in (0.002, 0.002 * 1.002):                     # dt = h (1 + t) while log(1 + t) < 1
        da, dW = velocity(a, W, X, y)
        a, W = a + dt * da, W + dt * dW
    np.testing.assert_allclose(a1, a, rtol=1e-13)
    np.testing.assert_allclose(W1, W, rtol=1e-13)


# -- families added for the class extremes ---------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"gap": 1e-3, "half_angle": 0.6}, {"half_angle": 0.02}, {"d": 2},
                                {"margin_pos": 3.0}])
def test_span_cones_is_certified_and_near_the_os_boundary(kw):
    data = osd.span_cones.build(np.random.default_rng(0), **kw)
    X, y = data["X"], data["y"]
    ok, slack = is_orthogonally_separable(X, y)
    assert ok and slack == pytest.approx(np.sin(kw.get("gap", 0.3)), rel=1e-9)   # the facing vertices
    cg = class_geometry(X, y)
    np.testing.assert_allclose(cg.w_pos, data["w_pos"], atol=1e-10)
    np.testing.assert_allclose(cg.w_neg, data["w_neg"], atol=1e-10)
    assert H.support_span.evaluate(Fixture(random(osd.span_cones), 0, "quick", data)).holds


def test_paper_losses_meet_the_printed_conditions_with_the_stated_tails():
    m = np.linspace(-50, 50, 1001)
    for name in ("ce", "ce2", "ce:0.1", "ce:4", "poly"):
        L = get_paper_loss(name)
        nd = L.neg_derivative(m)
        assert np.all(nd > 0) and nd.max() <= 1.0 and L.neg_derivative(np.zeros(1))[0] == pytest.approx(0.5)
        assert H.loss_conditions.evaluate(_fx(ph.span_net, loss=name)).holds
    assert loss_tail("poly") == "polynomial" and loss_tail("ce:0.1") == "exponential"
    q = np.array([1e3, 2e3])
    assert np.diff(POLY.log_neg_derivative(q))[0] == pytest.approx(-2 * np.log(2), rel=1e-3)   # -l' ~ 1/(4 m^2)
    # the amendment's hypothesis binds the amended claim only
    fx = _fx(ph.span_net, loss="poly")
    assert H.exponential_tail.evaluate(fx).holds
    fx.variant = "amended"
    assert not H.exponential_tail.evaluate(fx).holds


# -- power of the checks (issue 13: a loss outside the class, a mutated limit) ---------------------

def test_trend_of_a_flat_d8_at_five_times_the_tolerance_refutes():
    ev = judge_trend("D8", [10, 20, 40, 80, 160, 320], [0.30, 0.27, 0.25, 0.245, 0.245, 0.245], D8_TOL)
    assert ev.outcome[0] == "refuted"


def test_theorem1_check_refutes_a_polynomially_tailed_loss():
    fx = _fx(ph.span_net, loss="poly")
    ev = thm1_check(fx, derived=False, n_init=1)
    assert ev.outcome[0] == "refuted"
    assert 0.1 < ev.quantities["D8_at_last_per_init"][0] < 0.4          # flat near 0.22: not a slow decay


def test_theorem1_check_refutes_the_class_sum_limit():
    fx = Fixture(negative(ph.span_net, mutation=CLASS_SUMS), 0, "quick", ph.span_net.build(np.random.default_rng(0)))
    assert thm1_check(fx).outcome[0] == "refuted"


# -- second methods of the errata ------------------------------------------------------------------

def test_lemma_a4_rate_closed_form_breaks_the_printed_bound_only():
    u0, n, V, t = 25.0, 4, 1.0, 0.5
    u = shrinking_neuron_closed_form(n, V, u0, t)
    assert u < u0 * np.exp(-n * V * t)                   # printed rate n B V violated
    assert u > u0 * np.exp(-2 * n * V * t)               # amended rate 2 n B V holds
    # the closed form solves du/dt = -2 n V expit(V u) u: compare with a fine RK4 integration
    from scipy.special import expit
    h, x = 1e-4, u0
    for _ in range(int(t / h)):
        f = lambda v: -2 * n * V * expit(V * v) * v     # noqa: E731
        k1 = f(x); k2 = f(x + h * k1 / 2); k3 = f(x + h * k2 / 2); k4 = f(x + h * k3)  # noqa: E702
        x += h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
    assert u == pytest.approx(x, rel=1e-9)


def test_heavy_tail_direction_differs_from_the_max_margin_vector():
    data = osd.span_certified.build(np.random.default_rng(0))
    X, y = data["X"], data["y"]
    b, kkt = heavy_tail_direction(X[y > 0], data["w_pos"])
    cos = b @ data["w_pos"] / np.linalg.norm(data["w_pos"])
    assert kkt < 1e-6 and np.degrees(np.arccos(cos)) > 5.0


def test_i1_exact_zero_cross_pairs_on_integer_data():
    data = osd.boundary.build(np.random.default_rng(0))
    assert _exact_zero_cross_pairs(data["X"], data["y"]) == 6
    d2 = osd.cones.build(np.random.default_rng(0))
    assert _exact_zero_cross_pairs(d2["X"], d2["y"]) is None


# -- real digits (App. D) --------------------------------------------------------------------------

def test_digit_pair_loads_offline_and_is_not_orthogonally_separable():
    X, y = ph.load_digit_pair((0, 1))
    assert X.shape == (360, 64) and set(np.unique(y)) == {-1.0, 1.0} and X.min() >= 0 and X.max() <= 1
    assert not is_orthogonally_separable(X, y)[0]        # nonnegative pixels: every cross product > 0


def test_digit_net_training_is_deterministic_and_learns_the_pair():
    from fixtures.phuong2021 import _trained

    _trained.cache_clear()
    d1 = ph.digits.build(np.random.default_rng(5))
    _trained.cache_clear()  # trained again, not served by the memo
    g = np.random.default_rng(5)
    d2 = ph.digits.build(g)
    np.testing.assert_array_equal(d1["W7"], d2["W7"])
    # the memo serves the same arguments from the same generator state, and leaves the generator where training does
    d3 = ph.digits.build(np.random.default_rng(5))
    assert _trained.cache_info()[:2] == (1, 1)
    np.testing.assert_array_equal(d1["W7"], d3["W7"])
    trained_rng = np.random.default_rng(5)
    ph._adam_training(trained_rng, *ph.load_digit_pair((0, 1)), (64, 64, 32), 50, 128, 1e-3, 0.05)
    assert g.bit_generator.state == trained_rng.bit_generator.state
    assert d1["accuracy"] == 1.0 and d1["X"].shape == (360, 64) and len(d1["layers"]) == 4


@pytest.mark.parametrize("d", [3, 5])
def test_kinked_max_is_a_strict_maximum_on_a_kink_where_g_is_parallel(d):
    """Lemma A.1's informative fixture: the direction lies on x_3's hyperplane (P_w projects onto a (d-1)-space),
    is a strict local maximum of G, and g(w) = G(w) w; turned 0.3 rad within the kink it is neither."""
    from theorems.phuong2021.sectors import _fixture_direction_extremal

    for offset, extremal in ((0.0, True), (0.3, False)):
        fx = ph.kinked_max.build(np.random.default_rng(1), d=d, offset=offset)
        X, c, w = fx["X"], early_weights(fx["y"]), fx["direction"]
        assert list(sector_of(X, w)) == [1, 1, 0]
        assert bool(_fixture_direction_extremal(fx)[0]) is extremal
        res = np.linalg.norm(projected_gradient(X, c, w) - potential(X, c, w) * w)
        assert bool(res < 1e-12) is extremal


@pytest.mark.parametrize("d", [3, 5])
def test_g_free_search_finds_the_kinked_maximum_from_values_of_g_alone(d):
    """Lemma A.1's directions come from G's values (Nelder-Mead), never from g: on phuong.kinked_max the search lands
    on the constructed kinked maximum to the optimiser's accuracy, where g(w) = G(w) w within LEMA1_TOL."""
    from theorems.phuong2021.sectors import LEMA1_TOL, g_free_maxima

    fx = ph.kinked_max.build(np.random.default_rng(1), d=d)
    X, c = fx["X"], early_weights(fx["y"])
    found = g_free_maxima(X, c, np.random.default_rng(2))
    assert len(found) == 1 and found[0]["zeros"] == 1
    w = found[0]["direction"]
    assert np.linalg.norm(w - fx["direction"]) < 1e-6
    g = projected_gradient(X, c, w)
    assert np.linalg.norm(g - potential(X, c, w) * w) / (1 + np.linalg.norm(g)) < LEMA1_TOL


def test_expansion_cones_breaks_only_the_step_range():
    """Lemma A.2's probe family: os.cones data with eps beyond eps_max; the hypothesis sees the step."""
    from theorems.phuong2021.sectors import _eps_within

    a = ph.expansion_cones.build(np.random.default_rng(3), eps_over_max=6.0)
    b = osd.cones.build(np.random.default_rng(3), d=4, n_pos=8, n_neg=8)
    assert np.array_equal(a["X"], b["X"]) and not _eps_within(a)[0]
    assert _eps_within(ph.expansion_cones.build(np.random.default_rng(3), eps_over_max=0.5))[0]
    assert _eps_within(b)[0]


def test_rk45_flow_agrees_with_the_region_by_region_flow():
    """The second integrator of phuong2021.i3.heavy_tail against gradient_flow (DOP853, region by region)."""
    from theorems.phuong2021.informal import rk45_log_time_flow

    fx = ph.span_net.build(np.random.default_rng(0), loss="poly", n_pos=6, n_neg=6, d=3, p=4)
    S = np.array([5.0, 10.0])
    A, Ws, _ = rk45_log_time_flow(fx, S)
    ref = gradient_flow(fx["X"], fx["y"], fx["a0"], fx["W0"], np.concatenate([[0.0], S]), loss="poly")
    assert ref.success
    scale = np.linalg.norm(ref.W[-1])
    assert np.linalg.norm(Ws[-1] - ref.W[-1]) / scale < 1e-6


def test_layer7_orthogonal_separability_check_can_pass():
    """exp.mnist.os and .relu are expected refuted on the digits analogue; their predicate must still say "pass"
    on a representation that is orthogonally separable (each class on its own block of units, no bias)."""
    from theorems.phuong2021.experiments import _layer7_os

    rng = np.random.default_rng(0)
    y = np.array([1.0] * 5 + [-1.0] * 5)
    X = np.zeros((10, 6))
    X[:5, :3] = rng.uniform(0.5, 1.0, (5, 3))      # class +1 on units 0-2, class -1 on units 3-5
    X[5:, 3:] = rng.uniform(0.5, 1.0, (5, 3))
    W7, b7 = np.eye(6), np.zeros(6)
    data = {"X": X, "y": y, "W7": W7, "b7": b7, "layers": [X, X], "accuracy": 1.0}
    fx = Fixture(random(ph.digits), 0, "quick", data)
    for pre in (True, False):
        ev = _layer7_os(fx, pre=pre)
        assert ev.holds and ev.quantities["violating_pair_fraction"] == 0.0
    # the same predicate refutes once one cross-class pair shares an active unit
    X2 = X.copy()
    X2[5, 0] = 1.0
    fx2 = Fixture(random(ph.digits), 0, "quick", {**data, "X": X2, "layers": [X2, X2]})
    assert not _layer7_os(fx2, pre=True).holds


# -- the hand-tuned loops of the heaviest checks are their textbook forms to the bit -----------------------

def _adam_per_array(rng, X, y, widths, epochs, batch, lr, fc_scale):
    """fixtures.phuong2021._adam_training as first written: fresh arrays per layer, parameter and step."""
    sizes = [X.shape[1], *widths, 1]
    params = []
    for k in range(len(sizes) - 1):
        W = ph._torch_default(rng, sizes[k], (sizes[k + 1], sizes[k]))
        b = ph._torch_default(rng, sizes[k], sizes[k + 1])
        if k >= len(sizes) - 3:
            W = W * fc_scale
        params.append([W, b])
    init = [(W.copy(), b.copy()) for W, b in params]
    m = [[np.zeros_like(W), np.zeros_like(b)] for W, b in params]
    v = [[np.zeros_like(W), np.zeros_like(b)] for W, b in params]
    step, n = 0, len(y)
    for _ in range(epochs):
        perm = rng.permutation(n)
        for start in range(0, n, batch):
            idx = perm[start:start + batch]
            hs = [X[idx]]
            for W, b in params[:-1]:
                hs.append(np.maximum(hs[-1] @ W.T + b, 0.0))
            f = hs[-1] @ params[-1][0][0] + params[-1][1][0]
            g = -y[idx] / (1.0 + np.exp(np.clip(y[idx] * f, -500, 500))) / len(idx)
            grads = [None] * len(params)
            delta = g[:, None]
            for k in range(len(params) - 1, -1, -1):
                grads[k] = (delta.T @ hs[k], delta.sum(axis=0))
                if k:
                    delta = (delta @ params[k][0]) * (hs[k] > 0)
            step += 1
            for k, (gW, gb) in enumerate(grads):
                for i, gr in enumerate((gW, gb)):
                    m[k][i] = 0.9 * m[k][i] + 0.1 * gr
                    v[k][i] = 0.999 * v[k][i] + 0.001 * gr * gr
                    mh = m[k][i] / (1 - 0.9**step)
                    vh = v[k][i] / (1 - 0.999**step)
                    params[k][i] = params[k][i] - lr * mh / (np.sqrt(vh) + 1e-8)
    return init, [(W, b) for W, b in params]


def _same_bits(u, v) -> bool:
    if isinstance(u, (list, tuple)):
        return isinstance(v, (list, tuple)) and len(u) == len(v) and all(map(_same_bits, u, v))
    return u.shape == v.shape and u.dtype == v.dtype and u.tobytes() == v.tobytes()


@pytest.mark.parametrize("pair, widths, batch", [((0, 1), (64, 64, 32), 128), ((3, 8), (16, 8), 50)])
def test_adam_training_is_the_per_array_form_bit_for_bit(pair, widths, batch):
    """The flat-buffer, in-place Adam of the digit nets against the per-array form (same generator draws)."""
    X, y = ph.load_digit_pair(pair)
    got_rng, want_rng = np.random.default_rng(9), np.random.default_rng(9)
    got = ph._adam_training(got_rng, X, y, widths, 12, batch, 1e-3, 0.05)
    want = _adam_per_array(want_rng, X, y, widths, 12, batch, 1e-3, 0.05)
    assert _same_bits(got, want) and got_rng.bit_generator.state == want_rng.bit_generator.state


def test_residual_sgd_is_the_textbook_form_bit_for_bit():
    from theorems.phuong2021.experiments import relu, residual_init, residual_sgd

    def textbook(X, y, Ws, rng, lr=0.1, batch=50, epochs=500):
        Ws = [W.copy() for W in Ws]
        L, n = len(Ws), len(y)
        for _ in range(epochs):
            perm = rng.permutation(n)
            for b in range(0, n, batch):
                idx = perm[b:b + batch]
                Xb, yb = X[idx], y[idx]
                zs = [Xb @ Ws[0].T]
                for layer in range(1, L - 1):
                    zs.append(zs[-1] + relu(zs[-1]) @ Ws[layer].T)
                f = (relu(zs[-1]) @ Ws[-1].T)[:, 0]
                gf = -yb * np.exp(-np.logaddexp(0.0, yb * f)) / len(idx)
                grads = [None] * L
                grads[-1] = gf[None, :] @ relu(zs[-1])
                gz = np.outer(gf, Ws[-1][0]) * (zs[-1] > 0)
                for layer in range(L - 2, 0, -1):
                    grads[layer] = gz.T @ relu(zs[layer - 1])
                    gz = gz + (gz @ Ws[layer]) * (zs[layer - 1] > 0)
                grads[0] = gz.T @ Xb
                for layer in range(L):
                    Ws[layer] -= lr * grads[layer]
        return Ws

    fx = ph.sec51.build(np.random.default_rng(2), n=120)
    W0 = residual_init(np.random.default_rng(3), fx["X"].shape[1], p=30, L=5, scale=0.05)
    got_rng, want_rng = np.random.default_rng(4), np.random.default_rng(4)
    got = residual_sgd(fx["X"], fx["y"], W0, got_rng, batch=50, epochs=15)
    want = textbook(fx["X"], fx["y"], W0, want_rng, batch=50, epochs=15)
    assert _same_bits(got, want) and got_rng.bit_generator.state == want_rng.bit_generator.state
