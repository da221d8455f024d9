"""Tests of verify.numerics.flow: GD, normalised GD, the accurate non-smooth flow, the log-scale flow."""

import numpy as np
import pytest

from verify.errors import UsageError
from verify.numerics import flow, nets


def _separable(seed=1, n=8, d=3, m=4, scale=0.3, batch=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.sign(X @ rng.normal(size=d))
    shape = (m,) if batch is None else (batch, m)
    return scale * rng.normal(size=(*shape, d)), scale * rng.normal(size=shape), X, y


def _theta(W, a):
    return nets.flatten_params(W, a)


def test_accurate_flow_conserves_balance_and_reports_small_error():
    W, a, X, y = _separable()
    r = flow.integrate_flow(W, a, X, y, alpha=0.2, t_end=20.0)
    assert r.success, r.message
    assert np.max(r.history["balance_drift"]) <= 1e-9
    assert r.error_estimate <= 1e-8
    assert r.history["pattern_changes"][-1] >= 1  # the fixture does cross activation boundaries
    assert np.all(np.diff(r.history["log_loss"]) < 0)  # gradient flow decreases the loss


def test_accurate_flow_agrees_with_small_step_gd():
    """GD is first order: its distance to the flow must shrink ~ linearly in the step."""
    W, a, X, y = _separable()
    r = flow.integrate_flow(W, a, X, y, alpha=0.2, t_end=5.0, t_eval=[5.0])
    errs = []
    for lr in (4e-3, 2e-3):
        g = flow.gradient_descent(W, a, X, y, alpha=0.2, lr=lr, steps=int(round(5.0 / lr)), error_estimate="full")
        err = np.linalg.norm(_theta(g.W, g.a) - _theta(r.W, r.a)) / np.linalg.norm(_theta(r.W, r.a))
        errs.append(err)
        # the step-halving estimate is within a factor 2 of the true error
        assert 0.5 * err <= g.error_estimate <= 2.0 * err
    assert errs[1] <= 2e-4
    assert 0.4 <= errs[1] / errs[0] <= 0.6


def _sliding_fixture():
    """One neuron (a > 0) touching a negative point x_- at 60 degrees from a positive point x_+.

    d<w, x_->/dt = a (r_+ <x_+, x_-> - h r_- ||x_-||^2) with r_+ = r_- at q = 0: negative on the active side
    (h = 1) and positive on the inactive side (h = alpha < 1/2): both sides push w onto <w, x_-> = 0.
    """
    X = np.array([[1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    y = np.array([1.0, -1.0])
    return np.array([[0.3, -0.05]]), np.array([0.3]), X, y


def test_sliding_relu_finishes_on_the_boundary_and_matches_gd():
    W, a, X, y = _sliding_fixture()
    r = flow.integrate_flow(W, a, X, y, alpha=0.0, t_end=30.0, t_eval=[5.0, 30.0])
    assert r.success, r.message
    assert len(r.sliding) == 1 and r.sliding[0]["neuron"] == 0 and r.sliding[0]["point"] == 1
    assert r.sliding[0]["t_end"] == 30.0  # r_+ only decreases, so the neuron never leaves the boundary
    z = nets.preactivations(r.W, X)[0, 1]
    assert abs(z) <= 1e-12 * np.linalg.norm(r.W)
    assert np.max(r.history["balance_drift"]) <= 1e-9
    errs = []
    for lr in (1e-2, 5e-3):  # GD chatters across the boundary; it still converges to the Filippov flow
        g = flow.gradient_descent(W, a, X, y, alpha=0.0, lr=lr, steps=int(round(30.0 / lr)), error_estimate=None)
        assert g.history["pattern_changes"][-1] > 100
        errs.append(np.linalg.norm(_theta(g.W, g.a) - _theta(r.W, r.a)))
    assert errs[1] <= 1e-3 and errs[1] <= 0.6 * errs[0]


def test_sliding_leaky_exits_on_the_inactive_side():
    """With alpha = 0.3 the inactive-side push a (r_+/2 - 0.3 r_-) changes sign as r_+ falls: sliding ends."""
    W, a, X, y = _sliding_fixture()
    r = flow.integrate_flow(W, a, X, y, alpha=0.3, t_end=30.0, t_eval=[5.0, 30.0])
    assert r.success, r.message
    kinds = [e[1] for e in r.events]
    assert kinds == ["slide", "exit"]
    assert r.sliding[0]["t_start"] < 5.0 < r.sliding[0]["t_end"] < 30.0
    assert nets.preactivations(r.W, X)[0, 1] < 0
    assert np.max(r.history["balance_drift"]) <= 1e-9
    errs = []
    for lr in (5e-3, 2.5e-3):
        g = flow.gradient_descent(W, a, X, y, alpha=0.3, lr=lr, steps=int(round(5.0 / lr)), error_estimate=None)
        errs.append(np.linalg.norm(_theta(g.W, g.a) - r.history["theta"][0]))
    assert errs[1] <= 3e-4 and 0.4 <= errs[1] / errs[0] <= 0.6
    # exact exit condition: on the plane f(x_-) = 0, so the inactive-side push vanishes when
    # expit(-q_+) = 0.3 expit(0) / 0.5, i.e. q_+ = log(7/3)
    t_exit = r.sliding[0]["t_end"]
    at_exit = flow.integrate_flow(W, a, X, y, alpha=0.3, t_end=t_exit, t_eval=[t_exit])
    q = nets.margins(at_exit.W, at_exit.a, X, y, 0.3)
    assert abs(q[0] - np.log(7 / 3)) <= 1e-9


def test_two_neurons_leaving_one_plane_together_both_exit(monkeypatch):
    """Two copies (w, a)/sqrt2 of the exiting neuron compute the same function and slide on the same plane with
    the same Filippov weight, so both must leave at the exit time of the single neuron (a second exit whose weight
    is already past 0 when the first is handled was once missed, and that neuron slid on for good)."""
    W, a, X, y = _sliding_fixture()
    one = flow.integrate_flow(W, a, X, y, alpha=0.3, t_end=30.0, t_eval=[5.0, 30.0])
    W2, a2 = np.vstack([W, W]) / np.sqrt(2), np.concatenate([a, a]) / np.sqrt(2)
    from verify.numerics import _jit

    for jit in (True, False):          # the compiled loop and the numpy path
        monkeypatch.setattr(_jit, "ENABLED", jit and _jit.ENABLED)
        two = flow.integrate_flow(W2, a2, X, y, alpha=0.3, t_end=30.0, t_eval=[5.0, 30.0])
        assert two.success, two.message
        exits = [e for e in two.events if e[1] == "exit"]
        assert len(exits) == 2 and {e[2] for e in exits} == {0, 1}
        assert abs(exits[0][0] - exits[1][0]) <= 1e-9 * exits[0][0]
        assert abs(exits[0][0] - one.sliding[0]["t_end"]) <= 1e-6 * exits[0][0]
        assert np.allclose(two.W, np.vstack([one.W, one.W]) / np.sqrt(2), rtol=1e-7, atol=1e-9)


def test_batched_equals_per_seed():
    W, a, X, y = _separable(seed=4, batch=3)
    g = flow.gradient_descent(W, a, X, y, alpha=0.1, lr=1e-2, steps=300, error_estimate="prefix", error_prefix=20)
    ng = flow.normalized_gradient_descent(W, a, X, y, alpha=0.1, lr=5e-2, margin_horizons=[2.0, 5.0],
                                          max_steps=20000)
    assert ng.success, ng.message
    fr = flow.integrate_flow(W, a, X, y, alpha=0.1, t_end=3.0, error_estimate=False)
    for b in range(3):
        gb = flow.gradient_descent(W[b], a[b], X, y, alpha=0.1, lr=1e-2, steps=300, error_prefix=20)
        assert np.allclose(_theta(g.W[b], g.a[b]), _theta(gb.W, gb.a), rtol=1e-13, atol=0)
        assert np.allclose(g.history["balance_drift"][:, b], gb.history["balance_drift"], rtol=1e-10, atol=1e-17)
        assert abs(g.error_estimate[b] - gb.error_estimate) <= 1e-8 * gb.error_estimate
        ngb = flow.normalized_gradient_descent(W[b], a[b], X, y, alpha=0.1, lr=5e-2, margin_horizons=[2.0, 5.0],
                                               max_steps=20000)
        for s, sb in zip(ng.snapshots, ngb.snapshots):
            assert s["step"][b] == sb["step"]
            assert np.allclose(s["W"][b], sb["W"], rtol=1e-12, atol=0)
        frb = flow.integrate_flow(W[b], a[b], X, y, alpha=0.1, t_end=3.0, error_estimate=False)
        assert np.array_equal(fr.W[b], frb.W) and np.array_equal(fr.a[b], frb.a)
        assert fr.sliding[b] == frb.sliding


@pytest.mark.parametrize("loss", ["logistic", "exponential"])
def test_normalized_gd_reaches_horizons_without_overflow(loss):
    W, a, X, y = _separable(seed=2, batch=2)
    Qs = [10.0, 100.0, 1e3, 1e4]
    r = flow.normalized_gradient_descent(W, a, X, y, alpha=0.2, loss=loss, lr=2e-2, margin_horizons=Qs,
                                         max_steps=20000)
    assert r.success, r.message
    assert np.all(np.isfinite(r.W)) and np.all(np.isfinite(r.a))
    for snap, Q in zip(r.snapshots, Qs):
        assert np.all(snap["min_margin"] >= Q) and np.all(np.isfinite(snap["W"]))
        # log L ~ -q_min far beyond the underflow of L itself
        assert np.all(snap["log_loss"] <= -Q + np.log(len(y)) + 1e-9)
        assert np.all(np.isfinite(snap["log_loss"]))
    assert np.all(np.diff([s["step"] for s in r.snapshots], axis=0) > 0)
    assert np.all(np.isfinite(r.history["log_flow_time"][-1]))
    assert nets.loss_value(nets.margins(r.W, r.a, X, y, 0.2), loss)[0] == 0.0  # L underflowed; log L did not


def test_log_scale_flow_matches_direct_flow_at_moderate_scale():
    rng = np.random.default_rng(3)
    _, _, X, y = _separable(seed=3, n=6)
    U = rng.normal(size=(5, 3))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    s = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
    eps = 1e-2
    r = flow.simulate_log_scale(U, np.full(5, np.log(eps)), s, X, y, loss="logistic", reduction="mean",
                                t_end=30.0, t_eval=[10.0, 30.0])
    ref = flow.integrate_flow(eps * U, s * eps, X, y, t_end=30.0, t_eval=[10.0, 30.0], atol=1e-16,
                              error_estimate=False)
    assert r.success and ref.success
    assert np.max(np.abs(_theta(r.W, r.a) - _theta(ref.W, ref.a))) <= 1e-7 * np.max(np.abs(_theta(ref.W, ref.a)))
    # balanced by construction: |a_j| = ||w_j||
    assert np.allclose(np.abs(r.a), np.linalg.norm(r.W, axis=1), rtol=1e-14)


def test_log_scale_flow_below_double_precision():
    """log eps = -1e3 and -1e8: f underflows to exactly 0, so the direction dynamics are the eps -> 0 limit."""
    _, _, X, y = _separable(seed=5, n=6)
    rng = np.random.default_rng(0)
    U = rng.normal(size=(2, 4, 3))
    s = np.where(rng.random((2, 4)) < 0.5, 1.0, -1.0)
    runs = [flow.simulate_log_scale(U, np.full((2, 4), L), s, X, y, t_end=5.0) for L in (-1e3, -1e8)]
    for r in runs:
        assert r.success and np.all(np.isfinite(r.log_norms)) and np.all(r.history["max_abs_f"] == 0.0)
    assert np.array_equal(runs[0].directions, runs[1].directions)
    assert np.allclose(runs[0].log_norms + 1e3, runs[1].log_norms + 1e8, rtol=0, atol=1e-6)
    # batched equals per element (element by element with events; one stacked ODE without)
    single = flow.simulate_log_scale(U[1], np.full(4, -1e3), s[1], X, y, t_end=5.0)
    assert np.array_equal(single.directions, runs[0].directions[1])
    assert single.events == runs[0].events[1]
    stacked = flow.simulate_log_scale(U, np.full((2, 4), -1e3), s, X, y, t_end=5.0, events=False)
    assert stacked.success
    assert np.max(np.abs(stacked.directions - runs[0].directions)) <= 1e-7


def test_shared_planes_of_symmetric_data_slide_and_match_gd():
    """XOR data (x and -x in the data, Assumption 1 violated): neurons slide on planes shared by two points."""
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    rng = np.random.default_rng(0)
    W, a = 0.3 * rng.normal(size=(6, 2)), 0.3 * rng.normal(size=6)
    r = flow.integrate_flow(W, a, X, y, t_end=10.0, t_eval=[10.0])
    assert r.success, r.message
    assert len(r.sliding) >= 1 and all(len(ev["points"]) == 2 for ev in r.sliding)
    assert np.max(r.history["balance_drift"]) <= 1e-9 and r.error_estimate <= 1e-8
    errs = []
    for lr in (4e-3, 2e-3):
        g = flow.gradient_descent(W, a, X, y, lr=lr, steps=int(round(10.0 / lr)), error_estimate=None)
        errs.append(np.linalg.norm(_theta(g.W, g.a) - _theta(r.W, r.a)))
    assert errs[1] <= 1e-3 and errs[1] <= 0.6 * errs[0]
    # the same data at log eps = -1e4 (far below double precision) in polar coordinates
    U = rng.normal(size=(6, 2))
    signs = np.where(rng.random(6) < 0.5, 1.0, -1.0)
    p = flow.simulate_log_scale(U, np.full(6, -1e4), signs, X, y, t_end=50.0)
    assert p.success, p.message
    assert len(p.sliding) >= 1 and np.all(np.isfinite(p.log_norms))


def test_flow_result_prints_in_fixed_order():
    W, a, X, y = _separable()
    r = flow.gradient_descent(W, a, X, y, lr=1e-2, steps=10, error_estimate=None)
    keys = [line.split(":")[0].strip() for line in repr(r).splitlines()]
    assert keys[:4] == ["success", "message", "t", "nsteps"]
    assert r.t == r["t"] and r.nsteps == 10


def test_bad_arguments_raise_usage_error():
    W, a, X, y = _separable()
    with pytest.raises(UsageError):
        flow.gradient_descent(W, a, X, y, lr=-1.0, steps=10)
    with pytest.raises(UsageError):
        flow.integrate_flow(W, a, X, y, t_end=1.0, t_eval=[2.0])
    with pytest.raises(UsageError):
        flow.simulate_log_scale(W, np.zeros(4), np.full(4, 2.0), X, y, t_end=1.0)


def test_log_time_integration_matches_linear_time():
    W, a, X, y = _separable(seed=6)
    lin = flow.integrate_flow(W, a, X, y, alpha=0.2, t_end=50.0, t_eval=[10.0, 50.0], error_estimate=False)
    log = flow.integrate_flow(W, a, X, y, alpha=0.2, t_end=50.0, t_eval=[10.0, 50.0], log_time=True,
                              error_estimate=False)
    assert lin.success and log.success
    assert np.max(np.abs(log.history["theta"] - lin.history["theta"])) <= 1e-8 * np.max(np.abs(lin.history["theta"]))
    assert [e[1:] for e in log.events] == [e[1:] for e in lin.events]
    far = flow.integrate_flow(W, a, X, y, alpha=0.2, t_end=np.expm1(60.0), log_time=True, error_estimate=False)
    assert far.success and np.max(far.history["balance_drift"]) <= 1e-9


def test_gd_stop_margin_freezes_each_element():
    W, a, X, y = _separable(seed=7, batch=2)
    g = flow.gradient_descent(W, a, X, y, alpha=0.2, lr=0.05, steps=20000, stop_margin=1.0, error_estimate=None)
    assert g.success, g.message
    q = nets.margins(g.W, g.a, X, y, 0.2).min(axis=-1)
    assert np.all(q >= 1.0) and g.nsteps[0] != g.nsteps[1]
    # frozen exactly at the first step where the margin reached 1: one step earlier it had not
    for b in range(2):
        prev = flow.gradient_descent(W[b], a[b], X, y, alpha=0.2, lr=0.05, steps=int(g.nsteps[b]) - 1,
                                     error_estimate=None)
        assert nets.margins(prev.W, prev.a, X, y, 0.2).min() < 1.0
