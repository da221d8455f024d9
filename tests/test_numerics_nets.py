"""Tests of verify.numerics.nets: forward pass, log-domain losses, gradients, Clarke subgradients."""

import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp

from verify.errors import UsageError
from verify.numerics import nets


def _fixture(seed=0, m=4, d=3, n=7, batch=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    shape = (m,) if batch is None else (batch, m)
    W = rng.normal(size=(*shape, d))
    a = rng.normal(size=shape)
    return W, a, X, y


def _away_from_kinks(W, X, tol=1e-3):
    Z = nets.preactivations(W, X)
    scale = np.linalg.norm(W, axis=-1)[..., None] * np.linalg.norm(X, axis=-1)
    return np.min(np.abs(Z) / scale) > tol


def _log_or_loss(W, a, X, y, alpha, loss, normalized):
    q = nets.margins(W, a, X, y, alpha)
    return nets.log_loss(q, loss) if normalized else nets.loss_value(q, loss)


@pytest.mark.parametrize("alpha", [0.0, 0.3])
@pytest.mark.parametrize("loss", ["logistic", "exponential"])
@pytest.mark.parametrize("normalized", [False, True])
def test_gradient_matches_central_differences(alpha, loss, normalized):
    W, a, X, y = _fixture(seed=3)
    assert _away_from_kinks(W, X)
    dW, da = nets.gradient(W, a, X, y, alpha, loss, normalized=normalized)
    theta = nets.flatten_params(W, a)
    g = nets.flatten_params(dW, da)
    h = 1e-6
    fd = np.empty_like(theta)
    for k in range(theta.size):
        e = np.zeros_like(theta)
        e[k] = h
        Wp, ap = nets.unflatten_params(theta + e, 4, 3)
        Wm, am = nets.unflatten_params(theta - e, 4, 3)
        fd[k] = (_log_or_loss(Wp, ap, X, y, alpha, loss, normalized)
                 - _log_or_loss(Wm, am, X, y, alpha, loss, normalized)) / (2 * h)
    assert np.linalg.norm(g - fd) <= 1e-7 * np.linalg.norm(g)


def _mp_log_logistic(q):
    with mpmath.workdps(60):
        return float(mpmath.log(mpmath.log1p(mpmath.exp(-mpmath.mpf(q)))))


def _mp_log_neg_derivative_logistic(q):
    with mpmath.workdps(60):
        return float(-mpmath.log1p(mpmath.exp(mpmath.mpf(q))))


Q_GRID = [-1e3, -700.0, -50.0, -1.0, -1e-8, 0.0, 1e-8, 0.5, 29.9, 30.0, 30.1, 36.0, 100.0, 700.0, 745.0, 800.0,
          1e4, 1e6]


@pytest.mark.parametrize("q", Q_GRID)
def test_log_loss_logistic_matches_mpmath(q):
    got = float(nets.log_loss(np.array([q]), "logistic"))
    want = _mp_log_logistic(q)
    assert np.isfinite(got)
    assert abs(got - want) <= 4e-16 * max(1.0, abs(want))
    got_d = float(nets.LOGISTIC.log_neg_derivative(np.array(q)))
    assert abs(got_d - _mp_log_neg_derivative_logistic(q)) <= 4e-16 * max(1.0, abs(got_d))


def test_log_loss_mean_over_mixed_margins_matches_mpmath():
    q = np.array(Q_GRID)
    with mpmath.workdps(60):
        for name, ell in (("logistic", lambda t: mpmath.log1p(mpmath.exp(-t))), ("exponential",
                                                                                lambda t: mpmath.exp(-t))):
            want = float(mpmath.log(mpmath.fsum(ell(mpmath.mpf(v)) for v in q) / len(q)))
            got = float(nets.log_loss(q, name))
            assert abs(got - want) <= 1e-15 * abs(want)
            want_sum = float(mpmath.log(mpmath.fsum(ell(mpmath.mpf(v)) for v in q[-4:])))
            got_sum = float(nets.log_loss(q[-4:], name, reduction="sum"))
            assert abs(got_sum - want_sum) <= 1e-15 * abs(want_sum)


def test_normalized_weights_finite_when_loss_underflows():
    q = np.array([1e5, 1e5 + 1.0, 1e6])
    r = nets.loss_weights(q, "exponential", normalized=True)
    assert np.all(np.isfinite(r)) and abs(r.sum() - 1.0) <= 1e-15
    assert abs(r[0] / r[1] - np.e) <= 1e-13 * np.e
    assert nets.loss_value(q, "logistic") == 0.0  # the reason log_loss exists
    rl = nets.loss_weights(q, "logistic", normalized=True)
    assert abs(rl.sum() - 1.0) <= 1e-13  # logistic: -l'/l -> 1 as q -> inf


def test_scaled_and_custom_loss():
    q = np.linspace(-3, 3, 7)
    two = nets.scaled_loss("logistic", 2.0)
    assert np.allclose(nets.log_loss(q, two), np.log(2) + nets.log_loss(q, "logistic"), rtol=0, atol=1e-15)
    square = nets.Loss("square-hinge", value=lambda t: np.maximum(1 - t, 0) ** 2,
                       neg_derivative=lambda t: 2 * np.maximum(1 - t, 0),
                       log_value=lambda t: 2 * np.log(np.maximum(1 - t, 1e-300)),
                       log_neg_derivative=lambda t: np.log(2 * np.maximum(1 - t, 1e-300)))
    W, a, X, y = _fixture(seed=5)
    dW, da = nets.gradient(W, a, X, y, 0.2, square)
    assert np.all(np.isfinite(dW)) and np.all(np.isfinite(da))
    with pytest.raises(UsageError):
        nets.get_loss("hinge")


def test_euler_identity_symbolic_and_numeric():
    """sympy: sum_theta theta df/dtheta = 2 f on every activation region; then our gradient obeys it."""
    alpha = sp.Symbol("alpha", positive=True)
    w = sp.symbols("w11 w12 w21 w22", real=True)
    av = sp.symbols("a1 a2", real=True)
    x = sp.symbols("x1 x2", real=True)
    z = [w[0] * x[0] + w[1] * x[1], w[2] * x[0] + w[3] * x[1]]
    params = list(w) + list(av)
    for signs in itertools.product([1, 0], repeat=2):
        f = sum(av[j] * (z[j] if signs[j] else alpha * z[j]) for j in range(2))
        euler = sum(p * sp.diff(f, p) for p in params)
        assert sp.simplify(euler - 2 * f) == 0
    # Max form: sympy's exact gradient at a rational point equals ours (exponential loss, n = 1, y = 1:
    # grad f = -e^{f} grad L)
    fmax = sum(av[j] * sp.Max(z[j], sp.Rational(1, 4) * z[j]) for j in range(2))
    point = {w[0]: sp.Rational(1, 2), w[1]: sp.Rational(-1, 3), w[2]: sp.Rational(2, 5), w[3]: sp.Rational(3, 7),
             av[0]: sp.Rational(-5, 4), av[1]: sp.Rational(2, 3), x[0]: sp.Rational(1, 3), x[1]: sp.Rational(3, 2)}
    exact = np.array([float(sp.diff(fmax, p).subs(point)) for p in params])
    W = np.array([[0.5, -1 / 3], [0.4, 3 / 7]])
    a = np.array([-1.25, 2 / 3])
    X = np.array([[1 / 3, 1.5]])
    f_val = float(nets.forward(W, a, X, 0.25)[0])
    assert abs(f_val - float(fmax.subs(point))) <= 1e-15
    dW, da = nets.gradient(W, a, X, np.array([1.0]), 0.25, "exponential")
    ours = -np.exp(f_val) * nets.flatten_params(dW, da)
    assert np.max(np.abs(ours - exact)) <= 1e-14
    assert abs(ours @ nets.flatten_params(W, a) - 2 * f_val) <= 1e-14
    # and for a batch with many points: <theta, grad L> = -2 sum_i r_i q_i
    Wb, ab, Xb, yb = _fixture(seed=9, batch=3)
    dW, da = nets.gradient(Wb, ab, Xb, yb, 0.1)
    lhs = np.einsum("bp,bp->b", nets.flatten_params(Wb, ab), nets.flatten_params(dW, da))
    q = nets.margins(Wb, ab, Xb, yb, 0.1)
    rhs = -2 * np.sum(nets.loss_weights(q) * q, axis=-1)
    assert np.max(np.abs(lhs - rhs)) <= 1e-13 * np.max(np.abs(rhs))


def test_homogeneity_and_normalized_margin_scale_invariance():
    W, a, X, y = _fixture(seed=1)
    c = 3.7
    assert np.allclose(nets.forward(c * W, c * a, X, 0.2), c ** 2 * nets.forward(W, a, X, 0.2), rtol=1e-14)
    g1 = nets.normalized_margin(W, a, X, y, 0.2)
    g2 = nets.normalized_margin(c * W, c * a, X, y, 0.2)
    assert abs(g1 - g2) <= 1e-14 * abs(g1)


def test_batched_equals_per_seed():
    W, a, X, y = _fixture(seed=2, batch=5)
    f = nets.forward(W, a, X, 0.1)
    dW, da = nets.gradient(W, a, X, y, 0.1, "exponential", normalized=True)
    for b in range(5):
        assert np.allclose(f[b], nets.forward(W[b], a[b], X, 0.1), rtol=1e-14, atol=0)
        dWb, dab = nets.gradient(W[b], a[b], X, y, 0.1, "exponential", normalized=True)
        assert np.allclose(dW[b], dWb, rtol=1e-13, atol=1e-300) and np.allclose(da[b], dab, rtol=1e-13, atol=1e-300)
        assert np.array_equal(nets.activation_pattern(W, X)[b], nets.activation_pattern(W[b], X))
        assert np.allclose(nets.balance(W, a)[b], nets.balance(W[b], a[b]), rtol=1e-15)


def test_activation_and_derivative_conventions():
    z = np.array([-2.0, 0.0, 3.0])
    assert np.array_equal(nets.activation(z, 0.25), [-0.5, 0.0, 3.0])
    assert np.array_equal(nets.activation_derivative(z, 0.25), [0.25, 0.625, 1.0])
    assert np.array_equal(nets.activation_derivative(z, 0.25, at_kink=0.0), [0.25, 0.0, 1.0])
    assert np.array_equal(nets.activation_derivative(z, 0.0, at_kink=1.0), [0.0, 1.0, 1.0])


def _kink_fixture(alpha):
    """Neuron 0 exactly orthogonal to x_0 and neuron 1 to x_1 (two ambiguous pairs, integer data)."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    W = np.array([[0.0, 0.7], [1.3, 0.0], [0.4, -0.9]])
    a = np.array([0.8, -1.1, 0.5])
    return W, a, X, y


@pytest.mark.parametrize("alpha", [0.0, 0.4])
def test_clarke_extremes_and_min_norm(alpha):
    W, a, X, y = _kink_fixture(alpha)
    G, info = nets.clarke_extreme_gradients(W, a, X, y, alpha)
    assert info["n_ambiguous"] == 2 and not info["sampled"] and G.shape == (4, 3 * 2 + 3)
    assert {tuple(p) for p in info["pairs"]} == {(0, 0), (1, 1)}
    # the extremes are the gradients with the one-sided derivative conventions
    for at_kink in (alpha, 1.0):
        dW, da = nets.gradient(W, a, X, y, alpha, at_kink=at_kink)
        g = nets.flatten_params(dW, da)
        assert np.min(np.linalg.norm(G - g, axis=1)) <= 1e-15
    dW, da, info = nets.min_norm_subgradient(W, a, X, y, alpha)
    g = nets.flatten_params(dW, da)
    assert info["optimality"] <= 1e-12 and abs(np.linalg.norm(g) - info["norm"]) <= 1e-15
    # brute force over a grid of the box [alpha, 1]^2: nothing beats the solver's point
    grid = np.linspace(alpha, 1.0, 61)
    best = np.inf
    for h0, h1 in itertools.product(grid, grid):
        Wt = W.copy()
        best = min(best, np.linalg.norm(_grad_with_h(Wt, a, X, y, alpha, {(0, 0): h0, (1, 1): h1})))
    assert info["norm"] <= best + 1e-14
    assert info["norm"] >= best - 1e-2 * (1 - alpha)  # the grid is fine enough to come close


def _grad_with_h(W, a, X, y, alpha, h):
    q = nets.margins(W, a, X, y, alpha)
    c = nets.loss_weights(q) * y
    Z = W @ X.T
    H = nets.activation_derivative(Z, alpha)
    for (k, i), v in h.items():
        H[k, i] = v
    dW = -a[:, None] * ((H * c) @ X)
    da = -(nets.activation(Z, alpha) @ c)
    return nets.flatten_params(dW, da)


def test_clarke_sampling_flag():
    X = np.eye(3)[[0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]]
    y = np.ones(13)
    W = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    a = np.array([1.0, 1.0])
    G, info = nets.clarke_extreme_gradients(W, a, X, y, 0.0, max_extremes=64)
    assert info["n_ambiguous"] > 6 and info["sampled"] and G.shape[0] == 64


def test_bad_input_raises_usage_error():
    W, a, X, y = _fixture()
    with pytest.raises(UsageError):
        nets.forward(W, a[:-1], X)
    with pytest.raises(UsageError):
        nets.forward(W, a, X[:, :2])
    with pytest.raises(UsageError):
        nets.log_loss(np.zeros(3), reduction="median")


_POLY = nets.Loss("poly", lambda q: np.exp(-np.arcsinh(q)) / 2, lambda q: np.exp(-np.arcsinh(q)) / 2 / np.hypot(1, q),
                  lambda q: -np.log(2.0) - np.arcsinh(q), lambda q: -np.log(2.0) - np.arcsinh(q) - 0.5 * np.log1p(q * q))
"""A user-defined loss: the compiled kernels do not know it, so gradient takes its numpy path even with numba."""


@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("loss, alpha, normalized, at_kink, reduction, batch", [
    ("logistic", 0.0, False, 0.0, "sum", None),
    ("exponential", 0.3, True, None, "mean", None),
    ("logistic", 0.1, False, None, "mean", 4),
    (_POLY, 0.0, False, 0.0, "sum", None),
    (_POLY, 0.2, True, 0.5, "mean", 3),
    # the numpy path's shortcuts and where they stop: the kink patch kept (at_kink != alpha, also -0.0 for
    # +0.0) or skipped (at_kink = alpha != 0), the log-count subtraction kept (mean) or skipped (sum)
    (_POLY, 0.0, False, None, "mean", None),
    (_POLY, 0.0, False, -0.0, "sum", 2),
    (_POLY, 0.2, False, 0.2, "sum", None),
])
def test_gradient_function_is_gradient_bit_for_bit(monkeypatch, jit, loss, alpha, normalized, at_kink, reduction,
                                                   batch):
    from verify.numerics import _jit

    monkeypatch.setattr(_jit, "ENABLED", jit and _jit.ENABLED)
    W, a, X, y = _fixture(seed=5, batch=batch)
    X = np.asfortranarray(X)        # held as given: the numpy path's matmuls see the caller's layout
    W[..., 0, :] = 0.0              # exact zero pre-activations: the kink convention is exercised
    grad = nets.gradient_function(X, y, alpha, loss, normalized, at_kink, reduction=reduction)
    vel = nets.gradient_function(X, y, alpha, loss, normalized, at_kink, reduction=reduction, negate=True)
    for scale in (1.0, 1e-3, 40.0):
        want = nets.gradient(scale * W, scale * a, X, y, alpha, loss, normalized, at_kink, reduction=reduction)
        for got, sign in ((grad(scale * W, scale * a), 1.0), (vel(scale * W, scale * a), -1.0)):
            # bytes: signed zeros count (the velocity's zeros must be the negated gradient's)
            assert all(g.tobytes() == (sign * w).tobytes() and g.shape == w.shape
                       for g, w in zip(got, want, strict=True))


def test_gradient_function_refuses_what_gradient_refuses():
    W, a, X, y = _fixture()
    grad = nets.gradient_function(X, y)
    for bad_W, bad_a in ((W, a[:-1]), (W[:, :2], a), (W[0], a[0])):
        with pytest.raises(UsageError):
            nets.gradient(bad_W, bad_a, X, y)
        with pytest.raises(UsageError):
            grad(bad_W, bad_a)
    for kwargs in ({"loss": "hinge"}, {"reduction": "median"}):
        with pytest.raises(UsageError):
            nets.gradient(W, a, X, y, **kwargs)
        with pytest.raises(UsageError):
            nets.gradient_function(X, y, **kwargs)
    with pytest.raises(UsageError):
        nets.gradient(W, a, X[0], y)
    with pytest.raises(UsageError):
        nets.gradient_function(X[0], y)


@pytest.mark.parametrize("alpha, at_kink", [(0.0, None), (0.0, 0.0), (0.0, -0.0), (0.2, None), (0.2, 0.2),
                                            (0.2, 0.0), (0.0, 0.5)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_numpy_gradient_is_the_textbook_formula_bit_for_bit(monkeypatch, alpha, at_kink, reduction):
    """The numpy path's shortcuts (the kink patch skipped where it would write alpha's own bits, phi' as the bool
    mask Z > 0 for ReLU with the kink at +0.0, x - 0.0 not computed, the negation left out for the velocity)
    against the formulas written out in full: phi'(Z) = where(Z > 0, 1, alpha) with at_kink at exact zeros,
    c = exp(log(-l') - log n) y, dL/dW = -a (phi' * c) X, dL/da = -phi(Z) c. Bytes, so signed zeros count."""
    monkeypatch.setattr(nets._jit, "ENABLED", False)
    W, a, X, y = _fixture(seed=5, batch=2)
    W[..., 0, :] = 0.0                      # exact zero pre-activations
    a[0, 1] = -0.0
    Z = W @ X.T
    kink = 0.5 * (1.0 + alpha) if at_kink is None else at_kink
    H = np.where(Z > 0, 1.0, alpha)
    H[Z == 0] = kink
    lf = nets.get_loss("logistic")
    q = y * (a[..., None, :] @ nets.activation(Z, alpha))[..., 0, :]
    c = np.exp(lf.log_neg_derivative(q) - (np.log(len(y)) if reduction == "mean" else 0.0)) * y
    want = (-a[..., None] * ((H * c[..., None, :]) @ X), -(nets.activation(Z, alpha) @ c[..., :, None])[..., 0])
    assert nets.activation_derivative(Z, alpha, at_kink).tobytes() == H.tobytes()
    got = nets.gradient(W, a, X, y, alpha, "logistic", at_kink=at_kink, reduction=reduction)
    vel = nets.gradient_function(X, y, alpha, "logistic", at_kink=at_kink, reduction=reduction, negate=True)(W, a)
    for g, v, w in zip(got, vel, want, strict=True):
        assert g.tobytes() == w.tobytes() and v.tobytes() == (-w).tobytes()
