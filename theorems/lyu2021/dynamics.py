"""Training dynamics used by the claims of Lyu et al. (2021) (spec §3.0, integrators I1-I3).

* :func:`gd_until_margin` (I2): batched small-step GD on L until q_min >= q_target (early phases);
  an adapter over :func:`verify.numerics.flow.gradient_descent` (``stop_margin``).
* :func:`ngd_horizons` (I3): batched normalised GD theta <- theta - eta grad log L, snapshots at the
  first iterate whose q_min passes each margin horizon Q (stop by horizons, not iteration counts);
  :func:`verify.numerics.flow.normalized_gradient_descent`, except with the step scaling ``q_ref``.
* :func:`flow_ode` (I1): accurate gradient flow, an adapter over :func:`verify.numerics.flow.integrate_flow`
  (region by region with Filippov sliding) returning the parameters at the callers' times.
* :func:`flow_margin_horizons` (I1, late phase): the shared accurate non-smooth integrator
  :func:`verify.numerics.flow.integrate_flow` (Filippov sliding along activation boundaries) run in
  margin-shifted segments, with snapshots at margin horizons up to q_min ~ 1e4 (flow time e^{1e4}).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.numerics.flow import gradient_descent, integrate_flow, normalized_gradient_descent
from verify.numerics.memo import pure_memo
from verify.numerics.nets import Loss, gradient, log_loss, log_scaled_loss, margins


@pure_memo(maxsize=32)  # the printed and amended claims of an erratum train on the same seeds
def gd_until_margin(W, a, X, y, alpha, *, eta=0.05, q_target=1.0, max_steps=200_000):
    """Batched GD on the mean logistic loss until every element has q_min >= q_target.

    Returns (W, a, steps) where steps[b] is the number of steps element b took (max_steps if never).
    Elements that reached the target are frozen.  A thin adapter over
    :func:`verify.numerics.flow.gradient_descent` with ``stop_margin`` (no history, no error estimate).
    """
    res = gradient_descent(np.asarray(W, dtype=float), np.asarray(a, dtype=float), X, y, alpha=alpha, lr=eta,
                           steps=max_steps, stop_margin=q_target, error_estimate=None, record_every=max(1, max_steps))
    return res.W, res.a, np.asarray(res.nsteps)


@dataclass
class HorizonRun:
    """Snapshots of a batched normalised-GD run: W[j], a[j] are the (B, m, d), (B, m) iterates at the
    first step where q_min >= horizons[j] (NaN where not reached); ``reached[j, b]``; ``steps[j, b]``."""

    horizons: np.ndarray
    W: np.ndarray
    a: np.ndarray
    reached: np.ndarray
    steps: np.ndarray


@pure_memo(maxsize=32)
def ngd_horizons(W, a, X, y, alpha, horizons, *, eta=1e-2, max_steps=400_000, q_ref=None) -> HorizonRun:
    """Normalised GD theta <- theta - eta grad log L (log-domain weights), batched, with snapshots at
    margin horizons (spec I3). Each element stops after its last horizon.

    :func:`verify.numerics.flow.normalized_gradient_descent` (snapshots repackaged). With ``q_ref`` the step is
    eta * min(1, q_ref / q_min) (its ``step_margin_ref``): the curvature of log L on the sphere grows like q_min,
    and a fixed step makes the iterates jitter at large margins."""
    H = np.asarray(horizons, dtype=float)
    if np.any(np.diff(H) < 0):
        raise ValueError("ngd_horizons: horizons must be ascending")
    res = normalized_gradient_descent(np.asarray(W, dtype=float), np.asarray(a, dtype=float), X, y, alpha=alpha, lr=eta,
                                      margin_horizons=H, max_steps=max_steps, record_every=max(1, max_steps),
                                      step_margin_ref=q_ref, diagnostics=False)  # only the snapshots are read
    snaps = res.snapshots
    steps = np.stack([np.asarray(s["step"]) for s in snaps])
    return HorizonRun(H, np.stack([s["W"] for s in snaps]), np.stack([s["a"] for s in snaps]), steps >= 0, steps)


def shifted_logistic(c: float) -> Loss:
    """The loss e^c log(1 + e^{-q}), built in log domain (e^c itself may overflow).

    Its gradient flow is the logistic flow with time rescaled by e^c (same trajectory); with c = -log L(theta0)
    the field is O(1) at theta0 however small L(theta0) is. It is :func:`verify.numerics.nets.log_scaled_loss`,
    so the compiled integrators take it."""
    return log_scaled_loss("logistic", c)


@dataclass
class FlowHorizons:
    """Snapshots of the accurate late-phase flow: ``W[j]``, ``a[j]`` at the first record with
    q_min >= ``horizons[j]`` (``q[j]`` its q_min); ``error`` the largest relative error estimate of
    integrate_flow (rtol/10 rerun) over the segments; ``sliding`` the number of Filippov sliding episodes;
    ``segments`` the number of integrate_flow calls."""

    horizons: np.ndarray
    W: np.ndarray
    a: np.ndarray
    q: np.ndarray
    error: float
    sliding: int
    segments: int
    all_theta: np.ndarray | None = None
    all_q: np.ndarray | None = None


@pure_memo(maxsize=4)  # few: with keep_all a result holds every record (12 MB a segment at m, d = 100, 51)
def flow_margin_horizons(W, a, X, y, alpha, horizons, *, dq: float = 600.0, records: int = 300,
                         rtol: float = 1e-10, atol: float = 1e-13, keep_all: bool = False) -> FlowHorizons:
    """Accurate gradient flow of the logistic loss (one network (m, d), (m,)) to margin horizons.

    The flow is integrated by :func:`verify.numerics.flow.integrate_flow` (region by region, Filippov sliding
    along kinks, so a neuron sliding on <w_k, x_i> = 0 stays on it to rounding -- normalised GD chatters
    across such planes at relative distance ~1e-3, which spoils the kink test of a KKT residual).  Flow time
    to q_min = Q is ~e^Q, so the run is split into segments: each starts at theta with c = -log L(theta), uses
    :func:`shifted_logistic` (c) (the same trajectory, time rescaled by e^c) and log time up to t = e^dq, so
    every segment raises q_min by about dq.  Records on a grid uniform in log t (spacing dq/records in q).
    ``keep_all``: also return every record up to the last horizon (``all_theta``, ``all_q``).
    Raises :class:`IntegratorStalled` if a segment fails.
    """
    import warnings

    W = np.array(W, dtype=float)
    a = np.array(a, dtype=float)
    H = np.asarray(horizons, dtype=float)
    m, d = W.shape
    SW, Sa, Sq = [], [], []
    te = np.concatenate([[0.0], np.expm1(np.linspace(0.0, dq, records)[1:])])
    err, slides, nseg = 0.0, 0, 0
    all_th, all_q = [], []
    while len(SW) < len(H):
        c = -float(log_loss(margins(W, a, X, y, alpha)))
        with warnings.catch_warnings():      # rejected trial steps may overflow the shifted weights
            warnings.simplefilter("ignore", RuntimeWarning)
            res = integrate_flow(W, a, X, y, alpha=alpha, loss=shifted_logistic(c), t_end=float(te[-1]), t_eval=te,
                                 rtol=rtol, atol=atol, log_time=True, error_estimate=True)
        nseg += 1
        if not res.success or not np.all(np.isfinite(res.history["theta"])):
            raise IntegratorStalled(f"integrate_flow, segment {nseg}: {res.message}")
        err = max(err, float(res.error_estimate))
        slides += len(res.sliding)
        th, qm = res.history["theta"], res.history["min_margin"]
        if keep_all:
            keep = qm <= H[-1]
            all_th.append(th[keep])
            all_q.append(qm[keep])
        while len(SW) < len(H):
            k = np.flatnonzero(qm >= H[len(SW)])
            if not k.size:
                break
            SW.append(th[k[0], : m * d].reshape(m, d))
            Sa.append(th[k[0], m * d:])
            Sq.append(float(qm[k[0]]))
        if qm[-1] <= margins(W, a, X, y, alpha).min() + 1e-9:
            raise IntegratorStalled(f"integrate_flow, segment {nseg}: q_min did not grow")
        W, a = np.array(res.W), np.array(res.a)
    out = FlowHorizons(H, np.array(SW), np.array(Sa), np.array(Sq), err, slides, nseg)
    if keep_all:
        out.all_theta, out.all_q = np.concatenate(all_th), np.concatenate(all_q)
    return out


class IntegratorStalled(RuntimeError):
    """The accurate integrator exceeded its evaluation budget (typically sliding along a kink)."""


def _flow_rhs_dop853(X, y, alpha, m, d, max_nfev=None):
    """Right-hand side -grad L(theta), phi'(0) := (1+alpha)/2, for the flat theta = concat(W.ravel(), a)."""
    count = [0]

    def rhs(_t, th):
        count[0] += 1
        if max_nfev is not None and count[0] > max_nfev:
            raise IntegratorStalled(f"more than {max_nfev} right-hand-side evaluations (sliding along a kink?)")
        W = th[: m * d].reshape(m, d)
        gW, ga = gradient(W, th[m * d:], X, y, alpha)
        return -np.concatenate([gW.ravel(), ga])
    return rhs


def _flow_ode_dop853(W, a, X, y, alpha, te, rtol, atol, max_nfev):
    """One smooth DOP853 ODE with the convention phi'(0) = (1+alpha)/2 (for starts with w_k = 0, a_k != 0,
    where every activation plane passes through the neuron and the event-based integrator cannot start)."""
    from scipy.integrate import solve_ivp

    m, d = W.shape
    sol = solve_ivp(_flow_rhs_dop853(X, y, alpha, m, d, max_nfev), (0.0, float(te[-1])),
                    np.concatenate([W.ravel(), a]), method="DOP853", t_eval=te, rtol=rtol, atol=atol)
    if not sol.success:
        raise IntegratorStalled(f"solve_ivp failed: {sol.message}")
    return sol.y.T


def flow_ode(W, a, X, y, alpha, t_eval, *, rtol=1e-10, atol=1e-14, t0=0.0, max_nfev=100_000):
    """Accurate gradient flow d theta/dt = -grad L from theta(t0) = (W, a). Returns (Ws, as) at t_eval:
    (T, m, d), (T, m).

    A thin adapter over :func:`verify.numerics.flow.integrate_flow` (region by region, DOP853, Filippov
    sliding along activation boundaries; ``atol`` absolute) with the (time-shifted) t_eval of the callers.
    Neurons with w_k = 0 and a_k = 0 are exact rest points of the flow (their gradient is zero and they add
    nothing to f); they are taken out and put back as zeros, because every activation plane passes through
    them (a Zeno point for the event-based integrator).  A start with w_k = 0 but a_k != 0 leaves the origin
    along the convention phi'(0) = (1+alpha)/2 and is integrated as one smooth DOP853 ODE.  Raises
    :class:`IntegratorStalled` when the integrator fails (budget ``max_nfev`` per run, Zeno point, solver)."""
    W = np.asarray(W, dtype=float)
    a = np.asarray(a, dtype=float)
    m, d = W.shape
    te = np.asarray(t_eval, dtype=float) - float(t0)
    if te[-1] <= 0:
        return np.repeat(W[None], len(te), axis=0), np.repeat(a[None], len(te), axis=0)
    if np.any(np.diff(te) <= 0) or te[0] < 0:
        raise ValueError("flow_ode: t_eval must be strictly increasing and >= t0")
    wzero = ~np.any(W != 0, axis=1)
    rest = wzero & (a == 0)
    keep = ~rest
    Ws = np.zeros((len(te), m, d))
    As = np.zeros((len(te), m))
    if not keep.any():
        return Ws, As
    Wk, ak, mk = W[keep], a[keep], int(keep.sum())
    if np.any(wzero & ~rest):
        th = _flow_ode_dop853(Wk, ak, X, y, alpha, te, rtol, atol, max_nfev)
    else:
        res = integrate_flow(Wk, ak, X, y, alpha=alpha, t_end=float(te[-1]), t_eval=te, rtol=rtol, atol=atol,
                             error_estimate=False, max_rhs_evals=max_nfev)
        th = res.history["theta"]
        if not res.success or len(th) != len(te):
            raise IntegratorStalled(f"integrate_flow: {res.message}")
    Ws[:, keep] = th[:, : mk * d].reshape(-1, mk, d)
    As[:, keep] = th[:, mk * d:]
    return Ws, As


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

    return judge_trend(name, horizons, errors, tol, floor=tol / 10, evidence=evidence, scale_label=scale_label)
