"""Local search for large normalised margins (spec thm4.2 ``.structure``): L-BFGS ascent of the
softmin margin smin_beta(q(theta))/||theta||^2, smin_beta(q) = -(1/beta) log sum_i exp(-beta q_i),
with an increasing beta schedule. A local search certifies nothing about the supremum; it is a
search for counterexamples, and its endpoints are judged by the exact margin."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from verify.numerics.nets import activation, activation_derivative


def _neg_soft_margin(th, X, y, alpha, m, d, beta):
    W = th[: m * d].reshape(m, d)
    a = th[m * d:]
    Z = X @ W.T
    q = y * (activation(Z, alpha) @ a)
    z = -beta * q
    zmax = z.max()
    e = np.exp(z - zmax)
    tot = e.sum()
    s = -(zmax + np.log(tot)) / beta
    c = (e / tot) * y
    gW = a[:, None] * ((activation_derivative(Z, alpha) * c[:, None]).T @ X)
    ga = activation(Z, alpha).T @ c
    g = np.concatenate([gW.ravel(), ga])
    N = th @ th
    return -s / N, -(g / N - 2 * s * th / N ** 2)


def ascend_margin(theta0: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float, m: int,
                  betas=(100.0, 1000.0), maxiter: int = 500) -> tuple[np.ndarray, np.ndarray]:
    """Locally maximise the softmin normalised margin from theta0 (flat); returns unit-norm (W, a)."""
    d = X.shape[1]
    th = np.asarray(theta0, dtype=float)
    for beta in betas:
        res = minimize(_neg_soft_margin, th, args=(X, y, alpha, m, d, beta), jac=True, method="L-BFGS-B",
                       options={"maxiter": maxiter})
        th = res.x / np.linalg.norm(res.x)
    return th[: m * d].reshape(m, d), th[m * d:]
