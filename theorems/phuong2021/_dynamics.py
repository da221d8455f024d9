"""Gradient flow of the two-layer bias-free ReLU network f(x) = a^T rho(W x) (eq. (2)) on a summed loss
(eq. (3)), written on top of verify.numerics.nets / verify.numerics.flow, and the metrics of Theorem 1 /
Corollary 1.

Paper conventions, fixed here once: parameters in the order (a, W); the loss is a *sum* over examples
(``reduction="sum"``); rho'(0) = 0, i.e. the indicator 1[z > 0] (``at_kink=0.0``); the flow is sampled in
log-time s = log(1 + t) (``integrate_flow(log_time=True)``), up to s = 320.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.numerics import nets
from verify.numerics.flow import gd_log_time, gd_steps, integrate_flow
from verify.numerics.memo import pure_memo
from verify.numerics.nets import LOGISTIC, Loss, forward, gradient, margins
from verify.numerics.sectors import sector_of


def _ce2_log_value(q: np.ndarray) -> np.ndarray:
    return np.log(0.5) + LOGISTIC.log_value(2.0 * np.asarray(q, dtype=float))


CE2 = Loss(
    name="ce2",
    value=lambda q: 0.5 * LOGISTIC.value(2.0 * np.asarray(q, dtype=float)),
    neg_derivative=lambda q: LOGISTIC.neg_derivative(2.0 * np.asarray(q, dtype=float)),
    log_value=_ce2_log_value,
    log_neg_derivative=lambda q: LOGISTIC.log_neg_derivative(2.0 * np.asarray(q, dtype=float)),
)
"""l(m) = log(1 + e^{-2m})/2 (the second loss of I3): -l'(m) = 1/(1 + e^{2m})."""


def tempered_cross_entropy(kappa: float) -> Loss:
    """l(m) = log(1 + e^{-kappa m})/kappa: -l'(m) = 1/(1 + e^{kappa m}) (so -l'(0) = 1/2 for every kappa),
    |l'| <= 1, l' Lipschitz with constant kappa/4, tail -l'(m) ~ e^{-kappa m}. kappa -> 0 is the heavy end
    and kappa -> infinity the light end of the exponentially tailed losses of Section 2."""
    k = float(kappa)
    if not k > 0:
        raise ValueError(f"kappa must be > 0, got {kappa}")
    return Loss(
        name=f"ce:{k:g}",
        value=lambda q: LOGISTIC.value(k * np.asarray(q, dtype=float)) / k,
        neg_derivative=lambda q: LOGISTIC.neg_derivative(k * np.asarray(q, dtype=float)),
        log_value=lambda q: LOGISTIC.log_value(k * np.asarray(q, dtype=float)) - np.log(k),
        log_neg_derivative=lambda q: LOGISTIC.log_neg_derivative(k * np.asarray(q, dtype=float)),
    )


_MINUS_LOG_2 = -np.log(2.0)     # the same float64 every call, computed once (an RHS evaluates it ~10^5 times)


def _poly_log_value(q: np.ndarray) -> np.ndarray:
    return _MINUS_LOG_2 - np.arcsinh(np.asarray(q, dtype=float))


def _poly_log_neg_derivative(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    return _poly_log_value(q) - 0.5 * np.log1p(q * q)


POLY = Loss(
    name="poly",
    value=lambda q: np.exp(_poly_log_value(q)),
    neg_derivative=lambda q: np.exp(_poly_log_neg_derivative(q)),
    log_value=_poly_log_value,
    log_neg_derivative=_poly_log_neg_derivative,
)
"""l(m) = (sqrt(1 + m^2) - m)/2 = e^{-asinh m}/2: differentiable, -l'(m) = l(m)/sqrt(1 + m^2) in (0, 1)
(so l' is bounded), l'' bounded (Lipschitz l'), -l'(0) = 1/2 as for cross-entropy; a polynomial tail
l(m) ~ 1/(4m), -l'(m) ~ 1/(4m^2): the heavy-tail end of the class of losses named in Section 2."""

PAPER_LOSSES = {"ce": nets.LOGISTIC, "exp": nets.EXPONENTIAL, "ce2": CE2, "poly": POLY}
LOSS_TAILS = {"ce": "exponential", "exp": "exponential", "ce2": "exponential", "poly": "polynomial"}
"""Tail of -l'(m) as m -> infinity, per loss name ("ce:<kappa>" losses are exponential)."""


def get_paper_loss(loss: str) -> Loss:
    """The fixture's loss name ("ce" of eq. (3), "ce2", "ce:<kappa>", "exp", "poly") as a verify.numerics Loss."""
    if isinstance(loss, str) and loss.startswith("ce:"):
        return tempered_cross_entropy(float(loss[3:]))
    try:
        return PAPER_LOSSES[loss]
    except KeyError:
        raise ValueError(f"unknown loss {loss!r}") from None


def loss_tail(loss: str) -> str:
    """"exponential" or "polynomial": the tail of -l'(m) for the named loss."""
    return "exponential" if isinstance(loss, str) and loss.startswith("ce:") else LOSS_TAILS[loss]


def net(a: np.ndarray, W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """f_theta(x_i) = sum_j a_j rho(w_j^T x_i) for every row x_i of X (eq. (2)); paper argument order."""
    return forward(W, a, X)


def loss_value(a, W, X, y, loss: str = "ce") -> float:
    """l(theta) = sum_i l_i(f(x_i)) (eq. (3))."""
    return float(nets.loss_value(margins(W, a, X, y), get_paper_loss(loss), reduction="sum"))


def velocity(a, W, X, y, loss: str = "ce"):
    """(da/dt, dW/dt) = -grad l of eqs. (45), (46) at a generic point, with rho'(0) = 0."""
    dW, da = gradient(W, a, X, y, loss=get_paper_loss(loss), at_kink=0.0, reduction="sum")
    return -da, -dW


@dataclass
class Trajectory:
    """Checkpoints of one run: s (log-time), t = e^s - 1, a[k] (p,), W[k] (p, d)."""

    s: np.ndarray
    a: np.ndarray
    W: np.ndarray
    nfev: int
    success: bool
    message: str

    @property
    def t(self) -> np.ndarray:
        return np.expm1(self.s)


@pure_memo(maxsize=32)  # the printed and amended claims of an erratum (i3) integrate the same flows
def gradient_flow(X, y, a0, W0, s_grid, *, loss: str = "ce", rtol: float = 1e-10, atol: float | None = None,
                  alpha: float = 0.0) -> Trajectory:
    """The flow sampled at the increasing log-times ``s_grid``, started at s_grid[0] from (a0, W0).

    verify.numerics.flow.integrate_flow (region by region, log_time=True) run from t = 0; the flow is
    autonomous in t, so a grid starting at s_0 > 0 is sampled at t - t_0 with t = e^s - 1.
    ``atol`` defaults to ``rtol`` times the smallest initial neuron norm, so the early phase is resolved (and an
    absolute tolerance never dominates a tighter ``rtol`` on large neurons: with a fixed 1e-10 x min|a0| and
    a0 = 7, rtol 1e-12 left the samples between steps 4e-7 off on a^2 = 12.5, 4e-9 with atol 1e-14).
    ``alpha = 1`` gives the linear network of P1 (eqs. (15), (16)).
    """
    s_grid = np.asarray(s_grid, dtype=float)
    if s_grid.ndim != 1 or s_grid.size < 2 or np.any(np.diff(s_grid) <= 0):
        raise ValueError("s_grid must be strictly increasing with at least two points")
    p, d = np.shape(W0)
    if atol is None:
        atol = rtol * max(float(np.min(np.abs(a0))), 1e-300)
    t_eval = np.expm1(s_grid) - np.expm1(s_grid[0])
    res = integrate_flow(W0, a0, X, y, alpha=alpha, loss=get_paper_loss(loss), t_end=float(t_eval[-1]),
                         t_eval=t_eval, rtol=rtol, atol=atol, error_estimate=False, log_time=True,
                         reduction="sum")
    W, a = nets.unflatten_params(res.history["theta"], p, d)
    k = len(a)
    return Trajectory(s_grid[:k], a, W, int(res.nsteps), bool(res.success) and k == s_grid.size, str(res.message))


def flow_until_output(X, y, a0, W0, level: float, s_max: float, *, points: int = 401, zooms: int = 3):
    """(a, W) at the first time max_i |f(x_i)| reaches ``level`` (cross-entropy), or at s_max if never.

    integrate_flow has no user event functions, so the crossing is bracketed on ``points`` log-time
    checkpoints in [0, s_max] and the bracket is refined ``zooms`` times by restarting the flow at its left
    end on a 200-point grid in t (the flow is autonomous in t). The state returned is the first checkpoint
    at or above ``level`` after the last refinement (a bracket (points - 1) * 199^zooms times shorter).
    """
    p, d = np.shape(W0)
    tr = gradient_flow(X, y, a0, W0, np.linspace(0.0, s_max, points))
    t, a, W = tr.t, tr.a, tr.W
    atol = 1e-10 * max(float(np.min(np.abs(a0))), 1e-300)
    for zoom in range(zooms + 1):
        hit = np.flatnonzero(np.max(np.abs(forward(W, a, X)), axis=-1) >= level)
        if hit.size == 0:
            return a[-1], W[-1]
        k = int(hit[0])
        if k == 0 or zoom == zooms:
            return a[k], W[k]
        t = np.linspace(0.0, float(t[k] - t[k - 1]), 200)
        res = integrate_flow(W[k - 1], a[k - 1], X, y, loss=nets.LOGISTIC, t_end=float(t[-1]), t_eval=t,
                             rtol=1e-10, atol=atol, error_estimate=False, reduction="sum")
        W, a = nets.unflatten_params(res.history["theta"], p, d)
    raise AssertionError("unreachable")


def gd_history(X, y, a0, W0, eta: float, steps: int, *, loss: str = "ce", record_every: int = 1):
    """Explicit GD theta <- theta - eta grad l (rho'(0) = 0) by verify.numerics.flow.gd_steps; returns the
    (a, W) histories at steps 0, record_every, 2 record_every, ... <= steps."""
    a, W = np.array(a0, dtype=float), np.array(W0, dtype=float)
    A, Ws = [a], [W]
    for _ in range(steps // record_every):
        W, a = gd_steps(W, a, X, y, lr=eta, steps=record_every, loss=get_paper_loss(loss), at_kink=0.0,
                        reduction="sum")
        A.append(a)
        Ws.append(W)
    return np.array(A), np.array(Ws)


def log_time_gd(X, y, a0, W0, s_checkpoints, h: float = 0.002):
    """GD with log-time steps dt = h (1 + t)/max(1, log(1 + t)) (explicit Euler on the flow,
    verify.numerics.flow.gd_log_time, compiled from checkpoint to checkpoint; used where kinks make adaptive
    solvers stall, i.e. on data that are not orthogonally separable). Returns the states (a, W) at the
    checkpoints s = log(1 + t)."""
    W, a = gd_log_time(W0, a0, X, y, h=h, log_times=np.asarray(s_checkpoints, float), at_kink=0.0,
                       reduction="sum")
    return list(zip(a, W))


# ------------------------------------------------------------------------------------------------
# Metrics


def groups(a, W, X, sig_pos, sig_neg, tol: float = 1e-10) -> dict:
    """J_0 (dead: X w_j <= 0), J_+ (a_j > 0, sector sigma^+), J_- (a_j < 0, sector sigma^-), other;
    sectors by verify.numerics.sectors.sector_of (relative zero test ``tol``)."""
    S = np.array([sector_of(X, w, tol) for w in W]).reshape(len(W), len(X))        # (p, n)
    dead = np.all(S <= 0, axis=1)
    jp = (a > 0) & np.all(S == sig_pos[None, :], axis=1)
    jn = (a < 0) & np.all(S == sig_neg[None, :], axis=1)
    return {"J0": np.flatnonzero(dead), "J+": np.flatnonzero(jp & ~dead), "J-": np.flatnonzero(jn & ~dead),
            "other": np.flatnonzero(~(dead | jp | jn)), "patterns": S}


def limit_distance(a, W, w_pos, w_neg, sign_consistent: bool = True):
    """D8 = min_{u, z >= 0, u o z = 0} || W/||W||_F - (u w_+^T + z w_-^T) ||_F (rows decouple), and
    D9 = || a/||a|| - (u ||w_+|| - z ||w_-||) || at the minimiser (eqs. (8), (9)).

    With ``sign_consistent`` a neuron with a_j > 0 is matched to w_+ and a_j < 0 to w_- (as the proof of
    Theorem 1 does); otherwise each row takes the closer of the two. Returns (D8, D9, u, z).
    """
    om = W / np.linalg.norm(W)
    cu = np.maximum(0.0, om @ w_pos / (w_pos @ w_pos))
    cz = np.maximum(0.0, om @ w_neg / (w_neg @ w_neg))
    rp = np.sum((om - np.outer(cu, w_pos)) ** 2, axis=1)
    rn = np.sum((om - np.outer(cz, w_neg)) ** 2, axis=1)
    use_pos = (a > 0) if sign_consistent else (rp <= rn)
    u = np.where(use_pos, cu, 0.0)
    z = np.where(use_pos, 0.0, cz)
    d8 = float(np.sqrt(np.sum(np.where(use_pos, rp, rn))))
    d9 = float(np.linalg.norm(a / np.linalg.norm(a) - (u * np.linalg.norm(w_pos) - z * np.linalg.norm(w_neg))))
    return d8, d9, u, z
