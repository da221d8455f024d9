"""Fast unit tests of the Min et al. (2024) helpers, fixtures and the polar-flow numerics."""

from __future__ import annotations

import numpy as np
import pytest

from fixtures.min2024 import digit_like_data, gaussian_init, wellsep_data
from theorems.min2024.common import (
    DEAD,
    MINUS,
    OTHER,
    PLUS,
    constants,
    membership,
    mu_of,
    zeta1_star,
    zeta2_star,
)
from theorems.min2024.constants_claims import harmonic, longest_path
from theorems.min2024.geometry import sdead_nonempty
from verify.numerics.polar_flow import (
    direct_field,
    euler_polar,
    loss_value,
    neg_loss_derivative,
    network_output,
    polar_field,
    polar_outputs,
    simulate_direct,
    simulate_polar,
)


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


@pytest.mark.parametrize("loss", ["exp", "logistic", "logistic2", "square"])
def test_loss_derivative_matches_finite_difference(loss):
    y = np.array([1.0, -1.0, 1.0])
    f = np.array([0.3, -0.7, 2.0])
    h = 1e-6
    fd = -(loss_value(loss, y, f + h) - loss_value(loss, y, f - h)) / (2 * h)
    assert np.allclose(neg_loss_derivative(loss, y, f), fd, rtol=1e-6, atol=1e-9)


def test_polar_field_matches_direct_field():
    rng = np.random.default_rng(5)
    X, y = wellsep_data(rng, 3, 3, 4, 0.5)
    W = rng.normal(size=(5, 4))
    s = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    v = s * np.linalg.norm(W, axis=1)
    dW, dv = direct_field(W, v, X, y)
    rho = np.log(np.linalg.norm(W, axis=1))
    U = W / np.exp(rho)[:, None]
    dU, drho, _ = polar_field(U, rho, s, X, y)
    assert np.allclose(dW, np.exp(rho)[:, None] * (dU + drho[:, None] * U))
    assert np.allclose(dv, s * np.exp(rho) * drho)
    assert np.allclose(polar_outputs(X, U, rho, s), network_output(X, W, v))


def test_polar_flow_underflow_regime_is_scale_free():
    """Deep in the underflow regime the directions do not depend on log eps (exact eps -> 0 limit)."""
    rng = np.random.default_rng(6)
    X, y = wellsep_data(rng, 2, 2, 3, 0.6)
    W0, s = gaussian_init(rng, 4, 3)
    t = np.linspace(0, 2, 5)
    a = simulate_polar(X, y, W0, np.full(4, -2000.0), s, t)
    b = simulate_polar(X, y, W0, np.full(4, -5000.0), s, t)
    assert a.ok and b.ok
    assert np.allclose(a.U, b.U, atol=1e-12)
    assert np.allclose(a.rho - a.rho[0], b.rho - b.rho[0], atol=1e-10)


def test_direct_flow_conserves_balancedness_and_euler_agrees():
    rng = np.random.default_rng(7)
    X, y = wellsep_data(rng, 2, 2, 3, 0.6)
    W0, s = gaussian_init(rng, 4, 3)
    W0 = 1e-3 * W0
    v0 = s * np.linalg.norm(W0, axis=1)
    t, W, v, ok = simulate_direct(X, y, W0, v0, np.linspace(0, 1, 3), atol=1e-16)
    assert ok
    assert np.abs(v ** 2 - (W ** 2).sum(2)).max() < 1e-9 * (W ** 2).sum(2).max()
    e = euler_polar(X, y, W0, np.log(np.linalg.norm(W0, axis=1)), s, 1e-4, 10000, record_every=10000)
    # explicit Euler is first order: relative error O(dt * t * Lipschitz) ~ 1e-3 here
    assert np.allclose(e.U[-1] * np.exp(e.rho[-1])[:, None], W[-1], rtol=2e-3, atol=0)


def test_digit_stand_in_is_nonnegative_before_centring():
    raw, y = digit_like_data(np.random.default_rng(8), 20, 6, 0.25)
    assert (raw >= 0).all() and (raw @ raw.T >= 0).all()
    X = raw - raw.mean(0)
    assert np.allclose(X[y > 0].sum(0), -X[y < 0].sum(0))


def test_polar_flow_agrees_with_event_driven_log_scale_integrator():
    """Cross-check against verify.numerics.flow.simulate_log_scale (region by region, exact crossings)."""
    flow = pytest.importorskip("verify.numerics.flow")
    if not hasattr(flow, "simulate_log_scale"):
        pytest.skip("simulate_log_scale not available")
    rng = np.random.default_rng(6)
    X, y = wellsep_data(rng, 3, 3, 4, 0.6, xnorm=(1.0, 1.5))
    W0, s = gaussian_init(rng, 8, 4)
    rho0 = -3000 + np.log(np.linalg.norm(W0, axis=1))
    t = np.linspace(0, 10, 11)
    a = simulate_polar(X, y, W0, rho0, s, t)
    b = flow.simulate_log_scale(W0, rho0, s, X, y, t_end=10.0, t_eval=t)
    assert a.ok and b.success
    assert np.abs(a.U - b.history["directions"]).max() < 1e-7
    assert np.abs(a.rho - b.history["log_norms"]).max() < 1e-6
