"""Fast unit tests of the Phuong & Lampert (2021) helpers: geometry, hypotheses, sector numerics, dynamics."""

import numpy as np
import pytest

from fixtures import orthogonal as osd
from fixtures import phuong2021 as ph
from theorems.phuong2021 import hypotheses as H
from theorems.phuong2021._dynamics import (
    flow_until_output,
    gd_history,
    gradient_flow,
    limit_distance,
    log_time_gd,
    loss_value,
    net,
    velocity,
)
from theorems.phuong2021._geometry import class_geometry, early_weights, extremal_sectors
from verify.claims import Fixture, random
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
