"""Training dynamics used by the claims of Lyu et al. (2021) (spec §3.0, integrators I1-I3).

* :func:`gd_until_margin` (I2): batched small-step GD on L until q_min >= q_target (early phases).
* :func:`ngd_horizons` (I3): batched normalised GD theta <- theta - eta grad log L, snapshots at the
  first iterate whose q_min passes each margin horizon Q (stop by horizons, not iteration counts).
* :func:`flow_ode` (I1): accurate gradient flow with DOP853 (phi'(0) := (1+alpha)/2), with the
  conserved balance ||w_k||^2 - a_k^2 as accuracy monitor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from verify.numerics.nets import gradient, margins


def gd_until_margin(W, a, X, y, alpha, *, eta=0.05, q_target=1.0, max_steps=200_000):
    """Batched GD on the mean logistic loss until every element has q_min >= q_target.

    Returns (W, a, steps) where steps[b] is the number of steps element b took (max_steps if never).
    Elements that reached the target are frozen.
    """
    W = np.array(W, dtype=float)
    a = np.array(a, dtype=float)
    B = W.shape[0]
    steps = np.full(B, max_steps)
    active = np.ones(B, bool)
    for k in range(max_steps):
        q = margins(W[active], a[active], X, y, alpha).min(axis=-1)
        done = q >= q_target
        if np.any(done):
            idx = np.flatnonzero(active)[done]
            steps[idx] = k
            active[idx] = False
        if not active.any():
            break
        gW, ga = gradient(W[active], a[active], X, y, alpha)
        W[active] -= eta * gW
        a[active] -= eta * ga
    return W, a, steps


@dataclass
class HorizonRun:
    """Snapshots of a batched normalised-GD run: W[j], a[j] are the (B, m, d), (B, m) iterates at the
    first step where q_min >= horizons[j] (NaN where not reached); ``reached[j, b]``; ``steps[j, b]``."""

    horizons: np.ndarray
    W: np.ndarray
    a: np.ndarray
    reached: np.ndarray
    steps: np.ndarray


def ngd_horizons(W, a, X, y, alpha, horizons, *, eta=1e-2, max_steps=400_000, q_ref=None) -> HorizonRun:
    """Normalised GD theta <- theta - eta grad log L (log-domain weights), batched, with snapshots at
    margin horizons (spec I3). Each element stops after its last horizon. With ``q_ref`` the step is
    eta * min(1, q_ref / q_min): the curvature of log L on the sphere grows like q_min, and a fixed step
    makes the iterates jitter at large margins."""
    W = np.array(W, dtype=float)
    a = np.array(a, dtype=float)
    H = np.asarray(horizons, dtype=float)
    B, m, d = W.shape
    SW = np.full((len(H), B, m, d), np.nan)
    Sa = np.full((len(H), B, m), np.nan)
    reached = np.zeros((len(H), B), bool)
    steps = np.full((len(H), B), -1)
    nxt = np.zeros(B, int)
    active = np.ones(B, bool)
    for k in range(max_steps):
        idx = np.flatnonzero(active)
        q = margins(W[idx], a[idx], X, y, alpha).min(axis=-1)
        for j_b, b in enumerate(idx):
            while nxt[b] < len(H) and q[j_b] >= H[nxt[b]]:
                SW[nxt[b], b], Sa[nxt[b], b] = W[b], a[b]
                reached[nxt[b], b] = True
                steps[nxt[b], b] = k
                nxt[b] += 1
            if nxt[b] >= len(H):
                active[b] = False
        if not active.any():
            break
        idx = np.flatnonzero(active)
        gW, ga = gradient(W[idx], a[idx], X, y, alpha, normalized=True)
        if q_ref is None:
            step = np.full(len(idx), eta)
        else:
            qa = margins(W[idx], a[idx], X, y, alpha).min(axis=-1)
            step = eta * np.minimum(1.0, q_ref / np.maximum(qa, 1e-300))
        W[idx] -= step[:, None, None] * gW
        a[idx] -= step[:, None] * ga
    return HorizonRun(H, SW, Sa, reached, steps)


class IntegratorStalled(RuntimeError):
    """The accurate integrator exceeded its evaluation budget (typically sliding along a kink)."""


def flow_rhs(X, y, alpha, m, d, max_nfev=None):
    """Right-hand side -grad L(theta) for the flat theta = concat(W.ravel(), a)."""
    count = [0]

    def rhs(_t, th):
        count[0] += 1
        if max_nfev is not None and count[0] > max_nfev:
            raise IntegratorStalled(f"more than {max_nfev} right-hand-side evaluations (sliding along a kink?)")
        W = th[: m * d].reshape(m, d)
        a = th[m * d:]
        gW, ga = gradient(W, a, X, y, alpha)
        return -np.concatenate([gW.ravel(), ga])
    return rhs


def flow_ode(W, a, X, y, alpha, t_eval, *, rtol=1e-10, atol=1e-14, t0=0.0, max_nfev=100_000):
    """Gradient flow d theta/dt = -grad L (DOP853). Returns (Ws, as) at t_eval: (T, m, d), (T, m).

    Raises :class:`IntegratorStalled` after ``max_nfev`` right-hand-side evaluations: the measure-zero
    convention phi'(0) = (1+alpha)/2 makes a solver chatter when the flow slides along a kink."""
    m, d = W.shape
    th0 = np.concatenate([np.asarray(W, float).ravel(), np.asarray(a, float)])
    t_eval = np.asarray(t_eval, dtype=float)
    if t_eval[-1] <= t0:
        Y = np.repeat(th0[None], len(t_eval), axis=0)
        return Y[:, : m * d].reshape(-1, m, d), Y[:, m * d:]
    sol = solve_ivp(flow_rhs(X, y, alpha, m, d, max_nfev), (t0, float(t_eval[-1])), th0, method="DOP853",
                    t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        raise IntegratorStalled(f"solve_ivp failed: {sol.message}")
    Y = sol.y.T
    return Y[:, : m * d].reshape(-1, m, d), Y[:, m * d:]


def inconclusive_on_stall(check):
    """Wrap a check so that a stalled accurate integrator gives an inconclusive verdict, not an error."""
    import functools

    from verify import Evidence

    @functools.wraps(check)
    def wrapped(fx):
        try:
            return check(fx)
        except IntegratorStalled as exc:
            return Evidence().inconclusive(f"accurate integrator stalled: {exc}")
    return wrapped


def judge_floored_trend(name, horizons, errors, tol, evidence, scale_label="margin horizon"):
    """judge_trend on max(error, tol/10): fluctuations far below the tolerance (normalised-GD jitter at large
    margins) are not counted as a failure of monotonicity. The raw errors are recorded."""
    from verify import judge_trend

    raw = np.asarray(errors, dtype=float)
    evidence.record(**{f"{name}: raw errors": raw})
    return judge_trend(name, horizons, np.maximum(raw, tol / 10), tol, evidence=evidence, scale_label=scale_label)
