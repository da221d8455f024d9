"""Gradient flow of a balanced two-layer (leaky) ReLU network in polar / log-norm coordinates.

Network ``f(x) = sum_j v_j sigma(<w_j, x>)`` with ``sigma(z) = max(z, leak z)``, loss
``L = sum_i l(y_i, f(x_i))`` (a **sum** over data), descent flow with the fixed subgradient
``sigma'(0) = leak`` (``0`` for ReLU, so a neuron with no active data does not move: the regular
solution of Min et al. 2024, Def. 1)::

    dw_j/dt = v_j sum_i g_i sigma'(<x_i, w_j>) x_i,     dv_j/dt = sum_i g_i sigma(<x_i, w_j>),
    g_i = -dl/dyhat (y_i, f(x_i)).

Balanced initialisation ``v_j(0) = s_j ||w_j(0)||`` is conserved, so with ``w_j = e^{rho_j} u_j``,
``||u_j|| = 1`` and ``v_j = s_j e^{rho_j}`` the flow is exactly::

    z_j = sum_i g_i sigma'(<x_i, u_j>) x_i,
    du_j/dt = s_j (I - u_j u_j^T) z_j,      drho_j/dt = s_j <u_j, z_j>,
    f(x_i) = sum_j s_j e^{2 rho_j} sigma(<u_j, x_i>).

The initial scale enters only through ``rho_j(0) = log eps + log ||w0_j||``, so scales far below
double precision (``log eps = -1e4``) are simulated exactly: ``e^{2 rho}`` underflows to 0 and the
early (alignment) phase runs in the exact ``eps -> 0`` limit.

Also here: the same flow in the direct ``(W, v)`` coordinates (to monitor balancedness, which the
polar form enforces by construction) and fixed-step gradient descent for unbalanced inits.
Conventions: ``X`` is ``(n, D)`` (one point per row), ``W`` and ``U`` are ``(h, D)`` (one neuron per row).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

__all__ = [
    "LOSSES", "PolarTrajectory", "direct_field", "euler_polar", "gradient_descent", "loss_value", "neg_loss_derivative",
    "network_output", "polar_field", "polar_outputs", "simulate_direct", "simulate_polar",
]

LOSSES = ("exp", "logistic", "logistic2", "square")


def neg_loss_derivative(loss: str, y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``g = -dl/dyhat (y, f)`` for the losses in :data:`LOSSES`.

    exp: ``l = e^{-y f}``, ``g = y e^{-y f}`` (argument clipped at 700);
    logistic: ``l = log(1 + e^{-y f})``, ``g = y / (1 + e^{y f})``;
    logistic2: ``l = 2 log(1 + e^{-y f})``, ``g = 2 y / (1 + e^{y f})``;
    square: ``l = (y - f)^2 / 2``, ``g = y - f``.
    """
    m = y * f
    if loss == "exp":
        return y * np.exp(np.minimum(-m, 700.0))
    if loss == "logistic":
        return y * _sigmoid(-m)
    if loss == "logistic2":
        return 2.0 * y * _sigmoid(-m)
    if loss == "square":
        return y - f
    raise ValueError(f"unknown loss {loss!r} (one of {LOSSES})")


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """``1 / (1 + e^{-a})`` without overflow."""
    return np.exp(-np.logaddexp(0.0, -a))


def loss_value(loss: str, y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Per-sample losses ``l(y_i, f_i)`` in log-domain form (``log1p``/``logaddexp``)."""
    m = y * f
    if loss == "exp":
        return np.exp(np.minimum(-m, 700.0))
    if loss == "logistic":
        return np.logaddexp(0.0, -m)
    if loss == "logistic2":
        return 2.0 * np.logaddexp(0.0, -m)
    if loss == "square":
        return 0.5 * (y - f) ** 2
    raise ValueError(f"unknown loss {loss!r} (one of {LOSSES})")


def _act(pre: np.ndarray, leak: float) -> tuple[np.ndarray, np.ndarray]:
    """``sigma(pre)`` and ``sigma'(pre)`` with ``sigma'(0) = leak``."""
    pos = pre > 0
    d = np.where(pos, 1.0, leak)
    return pre * d, d


def network_output(X: np.ndarray, W: np.ndarray, v: np.ndarray, leak: float = 0.0) -> np.ndarray:
    """``f(x_i) = sum_j v_j sigma(<w_j, x_i>)`` for every row of ``X``."""
    a, _ = _act(X @ W.T, leak)
    return a @ v


def polar_outputs(X: np.ndarray, U: np.ndarray, rho: np.ndarray, s: np.ndarray, leak: float = 0.0,
                  shift: float = 0.0) -> np.ndarray:
    """``e^{-2 shift} f(x_i) = sum_j s_j e^{2 (rho_j - shift)} sigma(<u_j, x_i>)``."""
    a, _ = _act(X @ U.T, leak)
    return a @ (s * np.exp(2.0 * (rho - shift)))


def polar_field(U: np.ndarray, rho: np.ndarray, s: np.ndarray, X: np.ndarray, y: np.ndarray,
                loss: str = "exp", leak: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The polar field ``(du/dt, drho/dt, z)`` at unit directions ``U`` (rows renormalised here)."""
    Un = U / np.linalg.norm(U, axis=1, keepdims=True)
    pre = X @ Un.T
    a, d = _act(pre, leak)
    f = a @ (s * np.exp(2.0 * rho))
    g = neg_loss_derivative(loss, y, f)
    Z = (d * g[:, None]).T @ X
    uz = np.einsum("jd,jd->j", Un, Z)
    dU = s[:, None] * (Z - uz[:, None] * Un)
    return dU, s * uz, Z


@dataclass
class PolarTrajectory:
    """Saved states of :func:`simulate_polar`: ``U[k]`` (h, D) unit directions and ``rho[k]`` (h,)
    log-norms at times ``t[k]``; ``ok`` and ``message`` report the integrator's status."""

    t: np.ndarray
    U: np.ndarray
    rho: np.ndarray
    s: np.ndarray
    ok: bool
    message: str
    nfev: int
    extra: dict = field(default_factory=dict)


def simulate_polar(X: np.ndarray, y: np.ndarray, U0: np.ndarray, rho0: np.ndarray, s: np.ndarray,
                   t_eval: np.ndarray, *, loss: str = "exp", leak: float = 0.0, rtol: float = 1e-10,
                   atol: float = 1e-12, max_step: float = np.inf) -> PolarTrajectory:
    """Integrate the polar flow with RK45 and return the states at ``t_eval`` (sorted, from 0).

    The field is discontinuous only on the hyperplanes ``<x_i, u_j> = 0``; RK45's step control
    resolves the (finitely many, for orthogonally separable data) crossings. Directions are
    renormalised on output.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    s = np.asarray(s, float)
    h, D = U0.shape
    U0 = U0 / np.linalg.norm(U0, axis=1, keepdims=True)

    def rhs(_t: float, state: np.ndarray) -> np.ndarray:
        dU, drho, _ = polar_field(state[: h * D].reshape(h, D), state[h * D:], s, X, y, loss, leak)
        return np.concatenate([dU.ravel(), drho])

    t_eval = np.asarray(t_eval, float)
    sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), np.concatenate([U0.ravel(), rho0]), method="RK45",
                    t_eval=t_eval, rtol=rtol, atol=atol, max_step=max_step)
    k = sol.y.shape[1]
    U = sol.y[: h * D].T.reshape(k, h, D)
    U = U / np.linalg.norm(U, axis=2, keepdims=True)
    return PolarTrajectory(sol.t, U, sol.y[h * D:].T.copy(), s, bool(sol.success), str(sol.message),
                           int(sol.nfev))


def euler_polar(X: np.ndarray, y: np.ndarray, U0: np.ndarray, rho0: np.ndarray, s: np.ndarray,
                dt: float, steps: int, *, loss: str = "exp", leak: float = 0.0, record_every: int = 1
                ) -> PolarTrajectory:
    """Fixed-step explicit Euler on the polar field (gradient descent with step ``dt`` up to
    O(dt^2) per step), for data where RK45 would stall on sliding modes (e.g. ``mu <= 0``).
    Directions are renormalised after every step; on a non-finite state the recorded trajectory
    stops there with ``ok = False``."""
    X, y, s = np.asarray(X, float), np.asarray(y, float), np.asarray(s, float)
    U = U0 / np.linalg.norm(U0, axis=1, keepdims=True)
    rho = np.array(rho0, float)
    ts, Us, rhos = [0.0], [U.copy()], [rho.copy()]
    for k in range(1, steps + 1):
        dU, drho, _ = polar_field(U, rho, s, X, y, loss, leak)
        U = U + dt * dU
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        rho = rho + dt * drho
        if not (np.all(np.isfinite(U)) and np.all(np.isfinite(rho))):
            return PolarTrajectory(np.asarray(ts), np.asarray(Us), np.asarray(rhos), s, False,
                                   f"euler diverged at step {k}", k)
        if k % record_every == 0:
            ts.append(k * dt)
            Us.append(U.copy())
            rhos.append(rho.copy())
    return PolarTrajectory(np.asarray(ts), np.asarray(Us), np.asarray(rhos), s, True, "euler", steps)


def direct_field(W: np.ndarray, v: np.ndarray, X: np.ndarray, y: np.ndarray, loss: str = "exp",
                 leak: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(dW/dt, dv/dt) = -grad L`` (sum loss, ``sigma'(0) = leak``)."""
    pre = X @ W.T
    a, d = _act(pre, leak)
    g = neg_loss_derivative(loss, y, a @ v)
    dW = v[:, None] * ((d * g[:, None]).T @ X)
    dv = a.T @ g
    return dW, dv


def simulate_direct(X: np.ndarray, y: np.ndarray, W0: np.ndarray, v0: np.ndarray, t_eval: np.ndarray, *,
                    loss: str = "exp", leak: float = 0.0, rtol: float = 1e-10, atol: float = 1e-14
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Integrate the flow in ``(W, v)`` with RK45; returns ``(t, W[k], v[k], success)``."""
    h, D = W0.shape

    def rhs(_t: float, state: np.ndarray) -> np.ndarray:
        dW, dv = direct_field(state[: h * D].reshape(h, D), state[h * D:], X, y, loss, leak)
        return np.concatenate([dW.ravel(), dv])

    t_eval = np.asarray(t_eval, float)
    sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), np.concatenate([W0.ravel(), v0]), method="RK45",
                    t_eval=t_eval, rtol=rtol, atol=atol)
    k = sol.y.shape[1]
    return sol.t, sol.y[: h * D].T.reshape(k, h, D), sol.y[h * D:].T.copy(), bool(sol.success)


def gradient_descent(X: np.ndarray, y: np.ndarray, W0: np.ndarray, v0: np.ndarray, lr: float, steps: int,
                     *, loss: str = "exp", leak: float = 0.0, record_every: int = 1,
                     train_v: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Plain GD on the sum loss; returns ``(iterations, W[k], v[k])`` recorded every ``record_every``
    steps (iteration 0 included). ``train_v=False`` trains the first layer only."""
    W, v = np.array(W0, float), np.array(v0, float)
    its, Ws, vs = [0], [W.copy()], [v.copy()]
    for k in range(1, steps + 1):
        dW, dv = direct_field(W, v, X, y, loss, leak)
        W = W + lr * dW
        if train_v:
            v = v + lr * dv
        if k % record_every == 0:
            its.append(k)
            Ws.append(W.copy())
            vs.append(v.copy())
    return np.asarray(its), np.asarray(Ws), np.asarray(vs)
