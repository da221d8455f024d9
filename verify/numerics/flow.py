"""Gradient flow and gradient descent for two-layer (leaky) ReLU networks, with accuracy monitors.

Four integrators, all returning a :class:`FlowResult`:

* :func:`gradient_descent` -- small-step GD theta <- theta - lr grad L, batched over seeds, with a measured
  discretisation error (step halving) and the per-neuron balance drift.
* :func:`normalized_gradient_descent` -- late-phase GD on log L (step lr/L, computed in log domain), stopped
  at margin horizons; never overflows.
* :func:`integrate_flow` -- accurate integration of the non-smooth flow, region by region between
  activation-pattern changes (DOP853 with events), with Filippov sliding along activation boundaries.
* :func:`simulate_log_scale` -- the flow of balanced networks in polar / log-norm coordinates, for init scales
  far below double precision (Min et al. 2024 need epsilon ~ 1e-300 and beyond).

Conventions are those of :mod:`verify.numerics.nets` (rows are points, batch axis first, mean loss by default).
Relative balance drift, reported everywhere, is
    max_j |b_j(t) - b_j(0)| / max(max_j (a_j^2 + ||w_j||^2)(0), max_j (a_j^2 + ||w_j||^2)(t))
with b_j = a_j^2 - ||w_j||^2 (conserved by the exact flow), per batch element: the drift relative to the size
of the terms that cancel in b_j (rounding alone gives ~1e-16 of it).  For small initialisations where the
parameters grow by many orders, the drift relative to the initial scale is this number times the growth;
compute it from the returned parameters when a claim needs it.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import UsageError
from . import _jit, _kernels, _ode
from ._jit import carray
from .nets import (
    Loss,
    _log_count,
    activation,
    activation_derivative,
    balance,
    get_loss,
    kernel_loss,
    log_loss,
    loss_weights,
    preactivations,
)

__all__ = ["FlowResult", "gd_log_time", "gd_step_flops", "gd_steps", "gradient_descent", "integrate_flow",
           "normalized_gradient_descent", "simulate_log_scale"]


class FlowResult(dict):
    """Result of an integrator: a dict with attribute access that prints in a fixed order.

    Keys (some integrators add more): ``W, a`` final parameters; ``t`` final time (GF time for flows and GD,
    where GD time is steps * lr; step count for normalised GD); ``history`` dict of arrays (``t``,
    ``log_loss``, ``min_margin``, ``normalized_margin``, ``balance_drift``, ``pattern_changes``, ...; batched
    quantities have the batch axis last: shape (records, B)); ``success``, ``message``; ``error_estimate``
    (relative, see each integrator); ``sliding`` list of sliding events; ``nsteps``.
    """

    _ORDER = ("success", "message", "t", "nsteps", "error_estimate", "W", "a", "sliding", "snapshots", "history")

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __dir__(self) -> list[str]:
        return list(self.keys())

    def __repr__(self) -> str:
        keys = [k for k in self._ORDER if k in self] + sorted(k for k in self if k not in self._ORDER)
        width = max((len(k) for k in keys), default=0)
        lines = []
        for k in keys:
            v = self[k]
            if isinstance(v, np.generic):
                v = v.item()
            if isinstance(v, dict):
                text = "{" + ", ".join(f"{kk}: array{np.shape(vv)}" for kk, vv in v.items()) + "}"
            elif isinstance(v, np.ndarray) and v.size > 8:
                text = f"array(shape={v.shape}, min={np.nanmin(v):.6g}, max={np.nanmax(v):.6g})"
            elif isinstance(v, list) and (len(v) > 4 or any(isinstance(e, dict) and k == "snapshots" for e in v)):
                text = f"[{len(v)} items]"
            else:
                text = repr(v)
            lines.append(f"{k.rjust(width)}: {text}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------------------------------------

def _batched(W0, a0, X, y):
    W = np.array(W0, dtype=float)
    a = np.array(a0, dtype=float)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if W.ndim not in (2, 3) or a.shape != W.shape[:-1]:
        raise UsageError(f"W0 must be (m, d) or (B, m, d) and a0 of shape W0.shape[:-1]; got {W.shape}, {a.shape}")
    if X.ndim != 2 or X.shape[1] != W.shape[-1] or y.shape != (X.shape[0],):
        raise UsageError(f"X must be (n, {W.shape[-1]}) and y (n,); got {X.shape}, {y.shape}")
    batched = W.ndim == 3
    if not batched:
        W, a = W[None], a[None]
    return W, a, X, y, batched


def _balance_scale(W, a):
    """max_j (a_j^2 + ||w_j||^2) over the last axis (per batch element / record)."""
    s = np.max(a ** 2 + np.sum(W ** 2, axis=-1), axis=-1)
    return np.where(s > 0, s, np.finfo(float).tiny)


def _balance_drift(W, a, b0, scale0):
    """max_j |b_j - b_j(0)| / max(scale0, max_j (a_j^2 + ||w_j||^2)) (see the module docstring)."""
    return np.max(np.abs(balance(W, a) - b0), axis=-1) / np.maximum(scale0, _balance_scale(W, a))


def _state(W, a, X, y, alpha, loss, normalized, at_kink, reduction):
    """Z, q and the gradient (dW, da) for batched W (B, m, d), a (B, m)."""
    Z = W @ X.T
    phiZ = activation(Z, alpha)
    q = y * (a[:, None, :] @ phiZ)[:, 0, :]
    c = loss_weights(q, loss, normalized=normalized, reduction=reduction) * y
    dW, da = _backward(Z, phiZ, a, c, X, alpha, at_kink)
    return Z, q, dW, da


def _backward(Z, phiZ, a, c, X, alpha, at_kink):
    """(dL/dW, dL/da) from Z, phi(Z) and c, with phi'(Z) * c formed in one pass (kinks patched only
    where present) and both contractions as batched matmuls."""
    cb = c[:, None, :]
    G = np.where(Z > 0, cb, alpha * cb)
    zero = Z == 0
    if zero.any():
        kink = 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)
        G[zero] = np.broadcast_to(kink * cb, Z.shape)[zero]
    return -a[..., None] * (G @ X), -(phiZ @ c[:, :, None])[..., 0]


def _unbatch(value, batched):
    return value if batched else value[0]


def _finish_history(hist, batched):
    out = {}
    for k, v in hist.items():
        arr = np.asarray(v)
        out[k] = arr if (batched or arr.ndim < 2) else arr[:, 0]
    return out


def _run_gd(W, a, X, y, alpha, loss, lr, steps, at_kink, reduction):
    """Plain GD for ``steps`` steps (no recording): used for the step-halving error estimate."""
    for _ in range(steps):
        *_, dW, da = _state(W, a, X, y, alpha, loss, False, at_kink, reduction)
        W, a = W - lr * dW, a - lr * da
    return W, a


def _flat_norm(W, a):
    return np.sqrt(np.sum(W ** 2, axis=(-2, -1)) + np.sum(a ** 2, axis=-1))


def _compiled_loss(lf: Loss, W: np.ndarray | None = None, X: np.ndarray | None = None) -> tuple[int, np.ndarray] | None:
    """The loss as the compiled kernels take it, or None: numba off, a user-defined loss, or an empty net
    or data set (the numpy path then says what is wrong)."""
    if not _jit.ENABLED or (W is not None and W.size == 0) or (X is not None and len(X) == 0):
        return None
    return kernel_loss(lf)


def _kink(alpha, at_kink) -> float:
    return 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)


def _grow(buffers: list[np.ndarray]) -> list[np.ndarray]:
    """History buffers with twice the rows (the compiled loops return when theirs are full)."""
    return [np.concatenate([b, np.empty_like(b)]) for b in buffers]


def _gd_steps_compiled(W, a, X, y, spec, alpha, lr, steps, at_kink, reduction, copy=True):
    """``steps`` GD steps by the compiled loop; on copies of W, a (in place when ``copy`` is False and they
    are C-contiguous float64)."""
    W = np.array(W, dtype=np.float64, order="C", copy=True if copy else None)
    a = np.array(a, dtype=np.float64, order="C", copy=True if copy else None)
    _kernels.gd_steps(W, a, carray(X), carray(y),
                      float(lr), int(steps), float(alpha), _kink(alpha, at_kink), spec[0], spec[1],
                      _log_count(X.shape[0], reduction))
    return W, a


# ----------------------------------------------------------------------------------------------------------
# Gradient descent
# ----------------------------------------------------------------------------------------------------------

def gradient_descent(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, alpha: float = 0.0,
                     loss: str | Loss = "logistic", lr: float, steps: int, record_every: int | None = None,
                     stop_margin: float | None = None, at_kink: float | None = None, reduction: str = "mean",
                     error_estimate: str | None = "prefix", error_prefix: int = 200) -> FlowResult:
    """Gradient descent theta_{k+1} = theta_k - lr grad L(theta_k), batched over a leading axis.

    GD time is t = k lr, so GD approximates gradient flow at time t.  ``stop_margin``: a batch element stops
    (is frozen) once its minimum margin reaches the value; the run ends when all have stopped.

    Discretisation error (``error_estimate``): GD is first order, so theta_lr(t) - theta_flow(t) ~
    2 (theta_lr(t) - theta_{lr/2}(t)).  ``"prefix"`` reruns the first ``min(steps, error_prefix)`` steps with
    lr and 2x as many with lr/2 and reports 2 ||theta_lr - theta_{lr/2}|| / ||theta_{lr/2}|| at that time
    (a local estimate: the global error can grow along the run); ``"full"`` does the same over all steps
    (3x the cost; ignores ``stop_margin``); ``None`` skips it.  The balance drift is also a measured error:
    one GD step changes b_j by exactly lr^2 (||dL/dw_j||^2 - (dL/da_j)^2).

    History (one row per recorded step): ``t``, ``step``, ``log_loss``, ``min_margin``,
    ``normalized_margin``, ``balance_drift`` (relative, module docstring), ``pattern_changes`` (cumulative
    number of (neuron, point) sign flips of <w_j, x_i> between consecutive steps).
    """
    W, a, X, y, batched = _batched(W0, a0, X, y)
    lf = get_loss(loss)
    if not lr > 0 or int(steps) < 0:
        raise UsageError(f"gradient_descent: need lr > 0 and steps >= 0; got lr={lr}, steps={steps}")
    steps = int(steps)
    every = max(1, steps // 1000) if record_every is None else max(1, int(record_every))
    B = W.shape[0]
    b0 = balance(W, a)
    scale = _balance_scale(W, a)
    active = np.ones(B, dtype=bool)
    nsteps = np.zeros(B, dtype=int)
    changes = np.zeros(B)
    spec = _compiled_loss(lf, W, X)
    if spec is not None:
        W, a = carray(W), carray(a)  # updated in place by the compiled loop
        hist = _gradient_descent_compiled(W, a, X, y, spec, alpha, lr, steps, every, stop_margin, at_kink,
                                          reduction, b0, scale, active, nsteps, changes)
    else:
        W, a, hist = _gradient_descent_numpy(W, a, X, y, lf, alpha, lr, steps, every, stop_margin, at_kink,
                                             reduction, b0, scale, active, nsteps, changes)

    err = None
    if error_estimate is not None:
        if error_estimate not in ("prefix", "full"):
            raise UsageError(f"error_estimate must be 'prefix', 'full' or None; got {error_estimate!r}")
        P = steps if error_estimate == "full" else min(steps, int(error_prefix))
        W0b, a0b, *_ = _batched(W0, a0, X, y)
        if spec is not None:
            W1, a1 = _gd_steps_compiled(W0b, a0b, X, y, spec, alpha, lr, P, at_kink, reduction)
            W2, a2 = _gd_steps_compiled(W0b, a0b, X, y, spec, alpha, lr / 2, 2 * P, at_kink, reduction)
        else:
            W1, a1 = _run_gd(W0b, a0b, X, y, alpha, lf, lr, P, at_kink, reduction)
            W2, a2 = _run_gd(W0b, a0b, X, y, alpha, lf, lr / 2, 2 * P, at_kink, reduction)
        err = 2 * _flat_norm(W1 - W2, a1 - a2) / np.maximum(_flat_norm(W2, a2), np.finfo(float).tiny)
        err = _unbatch(err, batched)
    finite = bool(np.all(np.isfinite(W)) and np.all(np.isfinite(a)))
    reached = stop_margin is None or not active.any()
    return FlowResult(
        W=_unbatch(W, batched), a=_unbatch(a, batched), t=_unbatch(nsteps * lr, batched),
        nsteps=_unbatch(nsteps, batched), history=_finish_history(hist, batched), success=finite and reached,
        message=("non-finite parameters" if not finite else
                 "ok" if reached else f"stop_margin {stop_margin} not reached in {steps} steps"),
        error_estimate=err, sliding=[],
    )


def _gradient_descent_compiled(W, a, X, y, spec, alpha, lr, steps, every, stop_margin, at_kink, reduction,
                               b0, scale, active, nsteps, changes):
    """The loop of gradient_descent in compiled code (W, a, active, nsteps, changes updated in place)."""
    B, m, _ = W.shape
    n = X.shape[0]
    rows = min(steps // every + 2, 1024)
    step = np.empty(rows, dtype=np.int64)
    buffers = [np.empty((rows, B)) for _ in range(5)]
    prev = np.zeros((B, m, n), dtype=np.bool_)
    q, qmin = np.empty((B, n)), np.empty(B)
    X, y = carray(X), carray(y)
    k, row, done = 0, 0, False
    while not done:
        if row == len(step):
            step, *buffers = _grow([step, *buffers])
        k, row, done = _kernels.gd_run(
            W, a, X, y, float(lr), steps, every, 0.0 if stop_margin is None else float(stop_margin),
            stop_margin is not None, float(alpha), _kink(alpha, at_kink), spec[0], spec[1],
            _log_count(n, reduction), b0, scale, active, nsteps, changes, prev, q, qmin, k, row, step, *buffers)
    step = step[:row]
    hist = {"t": step * lr, "step": step}
    for key, buf in zip(("log_loss", "min_margin", "normalized_margin", "balance_drift", "pattern_changes"), buffers):
        hist[key] = buf[:row]
    return hist


def _gradient_descent_numpy(W, a, X, y, lf, alpha, lr, steps, every, stop_margin, at_kink, reduction, b0, scale,
                            active, nsteps, changes):
    prev = None
    hist: dict[str, list] = {k: [] for k in ("t", "step", "log_loss", "min_margin", "normalized_margin",
                                             "balance_drift", "pattern_changes")}
    k = 0
    while True:
        Z, q, dW, da = _state(W, a, X, y, alpha, lf, False, at_kink, reduction)
        pattern = Z > 0
        if prev is not None:
            changes += np.sum(pattern != prev, axis=(-2, -1)) * active
        prev = pattern
        qmin = q.min(axis=-1)
        if stop_margin is not None:
            active &= qmin < stop_margin
        last = k == steps or not active.any()
        if k % every == 0 or last:
            hist["t"].append(k * lr)
            hist["step"].append(k)
            hist["log_loss"].append(log_loss(q, lf, reduction=reduction))
            hist["min_margin"].append(qmin)
            hist["normalized_margin"].append(qmin / _flat_norm(W, a) ** 2)
            hist["balance_drift"].append(_balance_drift(W, a, b0, scale))
            hist["pattern_changes"].append(changes.copy())
        if last:
            break
        W = W - lr * dW * active[:, None, None]
        a = a - lr * da * active[:, None]
        nsteps += active
        k += 1
    return W, a, hist


def normalized_gradient_descent(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *,
                                alpha: float = 0.0, loss: str | Loss = "logistic", lr: float,
                                margin_horizons: list[float] | np.ndarray, max_steps: int,
                                record_every: int | None = None, at_kink: float | None = None,
                                reduction: str = "mean", step_margin_ref: float | None = None,
                                diagnostics: bool = True) -> FlowResult:
    """Late-phase GD on log L: theta <- theta - lr grad L / L (a GD step of size lr/L), batched.

    ``step_margin_ref`` (q_ref): the step is lr * min(1, q_ref / q_min) instead -- the curvature of log L on the
    sphere grows like q_min, and a fixed step makes the iterates jitter at large margins.

    The step uses the normalised weights -l'(q_i)/(n L) computed in log domain, so nothing overflows however
    small L is.  For each horizon Q (ascending), a snapshot is taken at the first iterate whose minimum margin
    is >= Q; a batch element stops after its last horizon.  The equivalent gradient-flow time is
    t = sum_k lr / L(theta_k); its log is recorded as ``history["log_flow_time"]``.

    Returns a FlowResult with ``snapshots``: a list, one dict per horizon, with ``Q``, ``step`` (int, -1 if
    not reached), ``W``, ``a`` (NaN if not reached), ``min_margin``, ``normalized_margin``, ``log_loss``,
    ``log_flow_time`` (each with the batch axis when batched).  ``success`` iff every element reached every
    horizon.  History: ``step``, ``log_loss``, ``min_margin``, ``normalized_margin``, ``balance_drift``,
    ``pattern_changes``, ``log_flow_time``.

    ``diagnostics=False`` skips the two per-step quantities that only a reader of the history needs: the
    count of activation changes and the log flow time (a log, an exp and a log1p a step).
    ``pattern_changes`` and ``log_flow_time`` (history and snapshots) are then NaN; every other value is the
    same, bit for bit.
    """
    W, a, X, y, batched = _batched(W0, a0, X, y)
    lf = get_loss(loss)
    Qs = np.sort(np.atleast_1d(np.asarray(margin_horizons, dtype=float)))
    if not lr > 0 or Qs.size == 0:
        raise UsageError("normalized_gradient_descent: need lr > 0 and at least one margin horizon")
    q_ref = 0.0 if step_margin_ref is None else float(step_margin_ref)
    if step_margin_ref is not None and not q_ref > 0:
        raise UsageError(f"normalized_gradient_descent: step_margin_ref must be > 0, got {step_margin_ref}")
    max_steps = int(max_steps)
    every = max(1, max_steps // 1000) if record_every is None else max(1, int(record_every))
    B, m, d = W.shape
    H = len(Qs)
    snaps = [{"Q": float(Q), "step": np.full(B, -1), "W": np.full((B, m, d), np.nan), "a": np.full((B, m), np.nan),
              "min_margin": np.full(B, np.nan), "normalized_margin": np.full(B, np.nan),
              "log_loss": np.full(B, np.nan), "log_flow_time": np.full(B, -np.inf)} for Q in Qs]
    nxt = np.zeros(B, dtype=int)
    b0 = balance(W, a)
    scale = _balance_scale(W, a)
    log_time = np.full(B, -np.inf if diagnostics else np.nan)
    nsteps = np.zeros(B, dtype=int)
    changes = np.zeros(B) if diagnostics else np.full(B, np.nan)
    if not diagnostics:
        for s in snaps:
            s["log_flow_time"][:] = np.nan
    spec = _compiled_loss(lf, W, X)
    if spec is not None:
        W, a = carray(W), carray(a)  # updated in place by the compiled loop
        hist = _normalized_compiled(W, a, X, y, spec, alpha, lr, Qs, max_steps, every, at_kink, reduction, snaps,
                                    nxt, b0, scale, log_time, nsteps, changes, q_ref, diagnostics)
    else:
        W, a, hist = _normalized_numpy(W, a, X, y, lf, alpha, lr, Qs, max_steps, every, at_kink, reduction, snaps,
                                       nxt, b0, scale, log_time, nsteps, changes, q_ref, diagnostics)

    if not batched:
        snaps = [{key: (v[0] if isinstance(v, np.ndarray) else v) for key, v in s.items()} for s in snaps]
    finite = bool(np.all(np.isfinite(W)) and np.all(np.isfinite(a)))
    reached = not (nxt < H).any()
    return FlowResult(
        W=_unbatch(W, batched), a=_unbatch(a, batched), t=_unbatch(nsteps, batched),
        nsteps=_unbatch(nsteps, batched), history=_finish_history(hist, batched), snapshots=snaps,
        success=finite and reached,
        message=("non-finite parameters" if not finite else "ok" if reached
                 else f"horizon {Qs[np.min(nxt)]:g} not reached by every element in {max_steps} steps"),
        error_estimate=None, sliding=[],
    )


def _normalized_compiled(W, a, X, y, spec, alpha, lr, Qs, max_steps, every, at_kink, reduction, snaps, nxt, b0,
                         scale, log_time, nsteps, changes, q_ref=0.0, diagnostics=True):
    """The loop of normalized_gradient_descent in compiled code (arguments after ``snaps`` updated in place).
    Without ``diagnostics`` the kernel is told to skip them by a NaN log step and an empty ``prev``."""
    B, m, d = W.shape
    n, H = X.shape[0], len(Qs)
    snap = {key: np.stack([s[key] for s in snaps]) for key in
            ("step", "W", "a", "min_margin", "normalized_margin", "log_loss", "log_flow_time")}
    rows = min(max_steps // every + 2, 1024)
    step = np.empty(rows, dtype=np.int64)
    buffers = [np.empty((rows, B)) for _ in range(6)]
    prev = np.zeros((B if diagnostics else 0, m, n), dtype=np.bool_)
    log_lr = float(np.log(lr)) if diagnostics else np.nan
    X, y = carray(X), carray(y)
    k, row, done = 0, 0, False
    while not done:
        if row == len(step):
            step, *buffers = _grow([step, *buffers])
        k, row, done = _kernels.ngd_run(
            W, a, X, y, float(lr), log_lr, float(q_ref), max_steps, every, Qs, float(alpha), _kink(alpha, at_kink),
            spec[0], spec[1], _log_count(n, reduction), b0, scale, nxt, log_time, nsteps, changes, prev, k, row,
            snap["step"], snap["W"], snap["a"], snap["min_margin"], snap["normalized_margin"], snap["log_loss"],
            snap["log_flow_time"], step, *buffers)
    for h in range(H):
        for key, arr in snap.items():
            snaps[h][key] = arr[h]
    hist = {"step": step[:row]}
    for key, buf in zip(("log_loss", "min_margin", "normalized_margin", "balance_drift", "pattern_changes",
                         "log_flow_time"), buffers):
        hist[key] = buf[:row]
    return hist


def _normalized_numpy(W, a, X, y, lf, alpha, lr, Qs, max_steps, every, at_kink, reduction, snaps, nxt, b0, scale,
                      log_time, nsteps, changes, q_ref=0.0, diagnostics=True):
    B, H = W.shape[0], len(Qs)
    prev = None
    hist: dict[str, list] = {k: [] for k in ("step", "log_loss", "min_margin", "normalized_margin",
                                             "balance_drift", "pattern_changes", "log_flow_time")}
    k = 0
    while True:
        Z, q, dW, da = _state(W, a, X, y, alpha, lf, True, at_kink, reduction)
        logL = log_loss(q, lf, reduction=reduction)
        active = nxt < H
        if diagnostics:
            pattern = Z > 0
            if prev is not None:
                changes += np.sum(pattern != prev, axis=(-2, -1)) * active
            prev = pattern
        qmin = q.min(axis=-1)
        gamma = qmin / _flat_norm(W, a) ** 2
        for b in range(B):  # horizon bookkeeping only (cheap); the dynamics below are vectorised
            while nxt[b] < H and qmin[b] >= Qs[nxt[b]]:
                s = snaps[nxt[b]]
                s["step"][b], s["W"][b], s["a"][b] = k, W[b], a[b]
                s["min_margin"][b], s["normalized_margin"][b] = qmin[b], gamma[b]
                s["log_loss"][b], s["log_flow_time"][b] = logL[b], log_time[b]
                nxt[b] += 1
        active = nxt < H
        last = k == max_steps or not active.any()
        if k % every == 0 or last:
            hist["step"].append(k)
            hist["log_loss"].append(logL)
            hist["min_margin"].append(qmin)
            hist["normalized_margin"].append(gamma)
            hist["balance_drift"].append(_balance_drift(W, a, b0, scale))
            hist["pattern_changes"].append(changes.copy())
            hist["log_flow_time"].append(log_time.copy())
        if last:
            break
        lr_b = np.where(qmin > q_ref, lr * (q_ref / np.maximum(qmin, 1e-300)), lr) if q_ref > 0 else np.full(B, lr)
        W = W - lr_b[:, None, None] * dW * active[:, None, None]
        a = a - lr_b[:, None] * da * active[:, None]
        if diagnostics:
            log_time[:] = np.where(active, np.logaddexp(log_time, np.log(lr_b) - logL), log_time)
        nsteps += active
        k += 1
    return W, a, hist


# ----------------------------------------------------------------------------------------------------------
# Accurate non-smooth flow (region by region, Filippov sliding)
# ----------------------------------------------------------------------------------------------------------

class _Model:
    """Fixed data of a flow problem: the data, the activation, the loss, the coordinates, the hyperplanes.

    Direct coordinates: theta = concat(W.ravel(), a).  Polar coordinates (``signs`` given): theta =
    concat(U.ravel(), rho - rho0) for a balanced net w_k = e^{rho_k} u_k / ||u_k||, a_k = s_k e^{rho_k}.
    In both, theta[:m d] reshaped (m, d) has rows parallel to w_k, so activation signs read the same.

    Hyperplanes: points with parallel x (e.g. x and -x in symmetric data) share the boundary <w, x> = 0, so
    they switch together.  Points are grouped into classes r with unit normal E[r]; point i has
    x_i = sigma_i ||x_i|| E[rep_i].  Events, sides T (m, R) and sliding flags (m, R) live on classes; the side
    of pair (k, i) is S_ki = sigma_i T[k, rep_i].
    """

    def __init__(self, X, y, m, d, alpha, loss, reduction, signs=None, rho0=None):
        self.X, self.y, self.m, self.d, self.alpha = X, y, m, d, alpha
        self.loss, self.reduction = loss, reduction
        self.signs, self.rho0 = signs, rho0
        self.xnorm = np.linalg.norm(X, axis=1)
        if not np.all(self.xnorm > 0):
            raise UsageError("flow: every data point must be nonzero (x = 0 has no activation boundary)")
        unit = X / self.xnorm[:, None]
        cos = unit @ unit.T
        reps: list[int] = []
        self.rep = np.full(len(X), -1)
        self.sigma = np.ones(len(X))
        for i in range(len(X)):
            if self.rep[i] < 0:
                same = (self.rep < 0) & (np.abs(cos[i]) >= 1.0 - 1e-13)
                self.rep[same] = len(reps)
                self.sigma[same] = np.sign(cos[i, same])
                reps.append(i)
        self.rep_point = np.array(reps)
        self.E = unit[self.rep_point]
        self.members = [np.flatnonzero(self.rep == r) for r in range(len(reps))]
        spec = _compiled_loss(loss, None, X)
        self.compiled = None
        if spec is not None:  # the same data as the tuple the compiled field takes (verify.numerics._ode)
            polar = signs is not None
            X64 = carray(X)
            self.compiled = (
                X64, carray(X64.T), carray(y), spec[0], spec[1], _log_count(len(X), reduction), polar,
                carray(signs if polar else np.zeros(m)), carray(rho0 if polar else np.zeros(m)),
                carray(self.E), carray(self.sigma), carray(self.xnorm),
                np.cumsum([0] + [len(mm) for mm in self.members]).astype(np.int64),
                np.concatenate(self.members).astype(np.int64), carray(self.E.T))

    def pair_sides(self, T):
        return self.sigma[None, :] * T[:, self.rep]


class _RegionFlow:
    """The smooth vector field of one activation region, with sliding constraints.

    ``T`` (m, R) in {+1, -1}: side of each (neuron, hyperplane) (+1: <w_k, E_r> > 0).  ``C`` (m, R) bool:
    hyperplanes on which the neuron is held (sliding).  Inside a region phi(z) = h z with h = 1 or alpha
    fixed, so the field is a polynomial in theta times smooth loss weights: DOP853 sees a smooth problem.
    Sliding (Filippov): with z_k = sum_{i not on a sliding plane} c_i h_ki x_i, the neuron moves with
    (I - P_k) z_k in place of z_k (dw_k/dt = a_k z_k directly, du_k/dt = s_k (I - u_k u_k^T) z_k in polar form),
    P_k the orthogonal projector on span{E_r : C_kr}.  The removed component -P_k z_k = sum_r beta_r E_r must be
    the contribution of the sliding plane's own points: beta_r = sum_{i in r} c_i h_ki sigma_i ||x_i||, a convex
    combination lam beta_plus + (1 - lam) beta_minus of its values on the two adjacent sides; ``lam`` in
    [0, 1] is the Filippov weight of the active side (sliding ends when it leaves [0, 1]).
    (The common factor a_k of dw_k/dt cancels from lam.)  Balance is conserved because P_k w_k = 0.
    """

    def __init__(self, model, T, C):
        self.model = model
        alpha = model.alpha
        self.T, self.C = T.copy(), C.copy()
        S = model.pair_sides(T)
        H = np.where(S > 0, 1.0, alpha)
        held = C[:, model.rep]
        self.H_free = np.where(held, 0.0, H)
        self.H_phi = np.where(held, 0.5 * (1.0 + alpha), H)
        self.sliding_neurons = [(k, np.flatnonzero(C[k])) for k in np.flatnonzero(C.any(axis=1))]
        self.h_plus = np.where(model.sigma > 0, 1.0, alpha)
        self.h_minus = np.where(model.sigma > 0, alpha, 1.0)
        self.pairs = [(int(k), int(r)) for k, planes in self.sliding_neurons for r in planes]
        self.compiled = None
        if model.compiled is not None:
            counts = [len(planes) for _, planes in self.sliding_neurons]
            self.H_phi, self.H_free = carray(self.H_phi), carray(self.H_free)
            sptr = np.cumsum([0] + counts).astype(np.int64)
            splane = np.array([r for _, r in self.pairs], dtype=np.int64)
            self.compiled = (carray(self.T, np.int64), carray(self.C, np.bool_), self.H_phi, self.H_free,
                             self.h_plus, self.h_minus, sptr,
                             np.array([k for k, _ in self.sliding_neurons], dtype=np.int64), splane,
                             _ode.sliding_pinv(model.compiled[9], sptr, splane), np.zeros(T.shape))

    def region_arrays(self, off):
        """The region as the compiled field takes it (verify.numerics._ode), with crossing offsets ``off``."""
        return self.compiled[:-1] + (carray(off),)

    def with_side(self, k, r, side):
        """This region with neuron k on side ``side`` of plane r (the fields on either side of a boundary)."""
        mo = self.model
        other = copy.copy(self)
        other.T = self.T.copy()
        other.T[k, r] = side
        idx = mo.members[r]
        h = np.where(mo.sigma[idx] * side > 0, 1.0, mo.alpha)
        other.H_free, other.H_phi = self.H_free.copy(), self.H_phi.copy()
        other.H_free[k, idx] = 0.0 if self.C[k, r] else h
        other.H_phi[k, idx] = 0.5 * (1.0 + mo.alpha) if self.C[k, r] else h
        if self.compiled is not None:
            c = self.compiled
            other.compiled = (carray(other.T, np.int64), c[1], carray(other.H_phi), carray(other.H_free)) + c[4:]
        return other

    def parts(self, theta):
        """(dV, dr, lam): velocities of theta[:m d] (as (m, d)) and theta[m d:], and Filippov weights."""
        mo = self.model
        if self.compiled is not None:
            dV, dr, lam = np.empty((mo.m, mo.d)), np.empty(mo.m), np.empty(max(len(self.pairs), 1))
            _ode.parts(carray(theta), mo.compiled, self.compiled, dV, dr, lam)
            return dV, dr, dict(zip(self.pairs, lam.tolist()))
        V, r = theta[: mo.m * mo.d].reshape(mo.m, mo.d), theta[mo.m * mo.d:]
        if mo.signs is None:
            u, coef = V, r
        else:
            u = V / np.linalg.norm(V, axis=1, keepdims=True)
            coef = mo.signs * np.exp(2.0 * (mo.rho0 + r))
        phiZ = self.H_phi * (u @ mo.X.T)
        q = mo.y * (coef @ phiZ)
        c = loss_weights(q, mo.loss, reduction=mo.reduction) * mo.y
        z = (self.H_free * c[None, :]) @ mo.X
        lam = {}
        for k, planes in self.sliding_neurons:
            Ec = mo.E[planes]
            beta = -np.linalg.lstsq(Ec.T, z[k], rcond=None)[0]
            z[k] = z[k] + Ec.T @ beta
            for rr, b in zip(planes, beta):
                idx = mo.members[rr]
                t = c[idx] * mo.sigma[idx] * mo.xnorm[idx]
                bp, bm = float(t @ self.h_plus[idx]), float(t @ self.h_minus[idx])
                lam[(k, int(rr))] = (b - bm) / (bp - bm) if bp != bm else 0.5
        if mo.signs is None:
            return r[:, None] * z, phiZ @ c, lam
        uz = np.sum(u * z, axis=1)
        return mo.signs[:, None] * (z - uz[:, None] * u), mo.signs * uz, lam

    def velocity(self, theta):
        dV, dr, _ = self.parts(theta)
        return np.concatenate([dV.ravel(), dr])


def _integrate_single(model, theta0, t_end, t_eval, rtol, atol, log_time, max_events, max_rhs):
    """Region-by-region integration of one network (see integrate_flow); returns the raw pieces."""
    if model.compiled is not None:
        try:
            return _integrate_compiled(model, theta0, t_end, t_eval, rtol, atol, log_time, max_events, max_rhs)
        except np.linalg.LinAlgError as exc:
            # a non-finite least-squares input inside the compiled loop (seen once, on a thorough lyu2021
            # fixture, where the numpy path integrates cleanly): the run is repeated on the reference path
            import warnings

            warnings.warn(f"compiled region integrator failed ({exc}); this run repeated on the numpy path",
                          UserWarning, stacklevel=2)
            model = copy.copy(model)
            model.compiled = None
    m, d, E = model.m, model.d, model.E
    R = len(E)
    T = np.where(theta0[: m * d].reshape(m, d) @ E.T > 0, 1, -1)
    C = np.zeros((m, R), dtype=bool)
    has_kink = model.alpha < 1.0
    t = 0.0
    theta = theta0.copy()
    out_t, out_y = [], []
    events: list[tuple[float, str, int, int]] = []
    sliding: list[dict] = []
    open_slides: dict[tuple[int, int], dict] = {}
    nrhs = 0
    success, message = True, "ok"
    eps = np.finfo(float).eps
    stuck_t, stuck = None, 0

    def to_s(tt):
        return np.log1p(tt) if log_time else tt

    while True:
        # a sliding pair whose Filippov weight already lies outside [0, 1] leaves now: its exit event function
        # starts on the far side of 0 and would never fire (two neurons on one plane reach lam = 0 together,
        # the first exit is located and the second, at lam = -8e-15, was missed)
        while C.any():
            lams = _RegionFlow(model, T, C).parts(theta)[2]
            out = [(min(v, 1.0 - v), kr, v) for kr, v in lams.items() if min(v, 1.0 - v) <= 0.0]
            if not out or len(events) >= max_events:
                break
            _, (k, r), lam = min(out)
            C[k, r] = False
            T[k, r] = 1 if lam >= 0.5 else -1
            open_slides.pop((k, r))["t_end"] = t
            events.append((t, "exit", k, int(model.rep_point[r])))
        # hold sliding neurons exactly on their planes (a rounding-level correction) and give (neuron, plane)
        # pairs sitting on a plane an offset of a few ulp, so that each segment starts strictly inside its region
        W = theta[: m * d].reshape(m, d)
        for kk in np.flatnonzero(C.any(axis=1)):
            Ec = E[np.flatnonzero(C[kk])]
            W[kk] -= Ec.T @ np.linalg.lstsq(Ec @ Ec.T, Ec @ W[kk], rcond=None)[0]
        theta[: m * d] = W.ravel()
        G = W @ E.T
        ulp = 8 * eps * (np.abs(W) @ np.abs(E).T)
        off = np.where(T * G < ulp, ulp - T * G, 0.0)
        flow = _RegionFlow(model, T, C)
        s0, s1 = to_s(t), to_s(t_end)
        n_events = (2 if C.any() else 1) if has_kink else 0
        later = t_eval[t_eval >= t]
        segment = _segment_compiled if flow.compiled is not None else _segment_scipy
        status, s_end, y_end, event, sample, nrhs, seg_message = segment(
            flow, off, theta, s0, s1, rtol, atol, log_time, n_events, to_s(later), nrhs, max_rhs)
        if status == "budget":
            success, message = False, f"right-hand-side budget of {max_rhs} evaluations exhausted at t = {t:.6g}"
            break
        if status == -1:
            success, message = False, f"solve_ivp failed at t = {t:.6g}: {seg_message}"
            break
        t_stop = float(np.expm1(s_end)) if log_time else float(s_end)
        te = later[later <= t_stop] if status == 1 else later
        start = 0
        if te.size and out_t and te[0] <= out_t[-1]:
            te, start = te[1:], 1
        if te.size:
            out_t.extend(te.tolist())
            out_y.extend(sample(to_s(te), start).tolist())
        if status == 0:
            theta, t = y_end, t_end
            break
        # a terminal event
        if len(events) >= max_events:
            success, message = False, f"more than {max_events} pattern events by t = {t:.6g} (chattering?)"
            break
        s_ev, theta = s_end, y_end.copy()
        kind = "cross" if event == 0 else "exit"
        t_new = float(np.expm1(s_ev)) if log_time else float(s_ev)
        stuck = stuck + 1 if stuck_t is not None and t_new - stuck_t <= 1e-12 * (1.0 + abs(t_new)) else 0
        stuck_t, t = t_new, t_new
        if stuck > 4 * (m * R + 1):
            success, message = False, (f"Zeno point: {stuck} pattern events at t = {t:.6g} without progress "
                                       "(use gradient_descent here)")
            break
        W = theta[: m * d].reshape(m, d)
        G = W @ E.T
        if kind == "cross":
            # the plane that fired: among planes within rounding of the boundary, one approached (a dead
            # neuron can sit on a plane at distance 1e-19 without moving, and must not be chosen)
            g = np.where(C, np.inf, T * G + off)
            rate = np.where(C, 0.0, T * (flow.parts(theta)[0] @ E.T))
            near = g <= np.min(g) + 1e-12 * (np.linalg.norm(W, axis=1)[:, None] + 1e-300)
            moving = near & (rate < 0)
            pick = np.where(moving, rate, np.inf) if moving.any() else g
            k, r = (int(v) for v in np.unravel_index(np.argmin(pick), pick.shape))
            side = _boundary_side(theta, flow, k, r, T[k, r])
            point = int(model.rep_point[r])
            if side == 0:
                C[k, r] = True
                rec = {"t_start": t, "t_end": None, "neuron": k, "point": point,
                       "points": model.members[r].tolist()}
                sliding.append(rec)
                open_slides[(k, r)] = rec
                events.append((t, "slide", k, point))
            else:
                if side != T[k, r]:
                    events.append((t, "cross", k, point))
                T[k, r] = side
        else:
            lams = flow.parts(theta)[2]
            (k, r), lam = min(lams.items(), key=lambda kv: min(kv[1], 1.0 - kv[1]))
            C[k, r] = False
            T[k, r] = 1 if lam >= 0.5 else -1
            open_slides.pop((k, r))["t_end"] = t
            events.append((t, "exit", k, int(model.rep_point[r])))
    for rec in open_slides.values():
        rec["t_end"] = t
    out_y = np.asarray(out_y).reshape(len(out_t), m * d + m)
    return theta, t, np.asarray(out_t), out_y, events, sliding, success, message, nrhs


def _integrate_compiled(model, theta0, t_end, t_eval, rtol, atol, log_time, max_events, max_rhs):
    """:func:`_integrate_single` as one compiled loop (verify.numerics._ode.integrate_regions): the same
    regions, events, sliding episodes and messages."""
    m, d = model.m, model.d
    N, K, cap = len(theta0), len(t_eval), int(max_events) + 1
    out_t, out_y, theta = np.empty(K), np.empty((K, N)), np.empty(N)
    ev_t, ev_kind, ev_k, ev_r = np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64)
    sl_start, sl_end, sl_k, sl_r = np.empty(cap), np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64)
    status, t, n_out, n_ev, n_sl, nrhs, stuck = _ode.integrate_regions(
        carray(theta0), float(t_end), carray(t_eval), float(rtol), float(atol), bool(log_time), int(max_events),
        int(max_rhs), model.compiled, float(model.alpha), m, d, carray(model.rep, np.int64),
        carray(model.rep_point, np.int64), N ** 0.5, out_t, out_y, ev_t, ev_kind, ev_k, ev_r, sl_start, sl_end,
        sl_k, sl_r, theta)
    if status == _ode.EVENT_SIGN_ERROR:  # what scipy's brentq raises from solve_ivp's event location
        raise ValueError("f(a) and f(b) must have different signs")
    if status == _ode.EVENT_NAN:
        raise ValueError(f"The function value at x={t:f} is NaN; solver cannot continue.")
    if status == _ode.EVENT_NO_CONVERGENCE:
        raise RuntimeError("Failed to converge after 100 iterations")
    message = {
        _ode.FINISHED: "ok",
        _ode.BUDGET: f"right-hand-side budget of {max_rhs} evaluations exhausted at t = {t:.6g}",
        _ode.TOO_SMALL_STEP: f"solve_ivp failed at t = {t:.6g}: Required step size is less than spacing between "
                             "numbers.",
        _ode.MAX_EVENTS: f"more than {max_events} pattern events by t = {t:.6g} (chattering?)",
        _ode.ZENO: f"Zeno point: {stuck} pattern events at t = {t:.6g} without progress (use gradient_descent here)",
    }[status]
    rp = model.rep_point
    events = [(float(ev_t[i]), _ode.EVENT_KINDS[ev_kind[i]], int(ev_k[i]), int(rp[ev_r[i]])) for i in range(n_ev)]
    sliding = [{"t_start": float(sl_start[i]), "t_end": float(sl_end[i]), "neuron": int(sl_k[i]),
                "point": int(rp[sl_r[i]]), "points": model.members[sl_r[i]].tolist()} for i in range(n_sl)]
    return (theta, float(t), out_t[:n_out].copy(), out_y[:n_out].copy(), events, sliding, status == _ode.FINISHED,
            message, int(nrhs))


class _Budget(Exception):
    """Raised inside the right-hand side when its evaluation budget is spent."""


def _segment_scipy(flow, off, theta, s0, s1, rtol, atol, log_time, n_events, cand, nrhs, max_rhs):
    """One region, until its first terminal event, with scipy's solve_ivp (DOP853, dense output).

    Returns (status, s_end, y_end, event, sample, nrhs, message): status 0 (end reached), 1 (event), -1
    (solver failure) or "budget"; ``event`` 0 (crossing) or 1 (sliding exit); ``sample(s, start)`` the
    solution at the points s = cand[start:start + len(s)] as rows.  Events: crossing (minimum over free
    (neuron, plane) pairs of T <w, E_r> + off) and, with ``n_events`` = 2, sliding exit (a Filippov weight
    leaving [0, 1]), both terminal and decreasing."""
    mo = flow.model
    m, d, E = mo.m, mo.d, mo.E
    free = ~flow.C
    count = [nrhs]

    def rhs(s, th):
        count[0] += 1
        if count[0] > max_rhs:
            raise _Budget()
        v = flow.velocity(th)
        return v * np.exp(s) if log_time else v

    def crossing(s, th):
        g = flow.T * (th[: m * d].reshape(m, d) @ E.T) + off
        return np.min(g[free]) if free.any() else 1.0

    def slide_exit(s, th):
        return min(min(lam, 1.0 - lam) for lam in flow.parts(th)[2].values())

    for ev in (crossing, slide_exit):
        ev.terminal, ev.direction = True, -1
    try:
        sol = solve_ivp(rhs, (s0, s1), theta, method="DOP853", rtol=rtol, atol=atol, dense_output=True,
                        events=[crossing, slide_exit][:n_events] or None)
    except _Budget:
        return "budget", None, None, None, None, count[0], ""
    if sol.status == -1:
        return -1, None, None, None, None, count[0], sol.message
    event = None
    y_end = sol.y[:, -1]
    if sol.status == 1:
        event = 0 if sol.t_events[0].size else 1
        y_end = sol.y_events[event][0]
    return sol.status, sol.t[-1], y_end, event, lambda s, start: np.atleast_2d(sol.sol(s)).T, count[0], sol.message


def _segment_compiled(flow, off, theta, s0, s1, rtol, atol, log_time, n_events, cand, nrhs, max_rhs):
    """:func:`_segment_scipy` in compiled code (verify.numerics._ode.region_segment), same returns."""
    mo = flow.model
    N = len(theta)
    cand = carray(cand)
    out, y_end, F, y_old, step = np.empty((len(cand), N)), np.empty(N), np.empty((7, N)), np.empty(N), np.empty(2)
    status, event, s_end, n_out, nrhs = _ode.region_segment(
        carray(theta), float(s0), float(s1), float(rtol), float(atol),
        bool(log_time), mo.compiled, flow.region_arrays(off), mo.m, mo.d, n_events, cand, nrhs, int(max_rhs),
        N ** 0.5, out, y_end, F, y_old, step)
    if status == _ode.BUDGET:
        return "budget", None, None, None, None, nrhs, ""
    if status == _ode.TOO_SMALL_STEP:
        return -1, None, None, None, None, nrhs, "Required step size is less than spacing between numbers."
    if status == _ode.EVENT_SIGN_ERROR:  # what scipy's brentq raises from solve_ivp's event location
        raise ValueError("f(a) and f(b) must have different signs")
    if status == _ode.EVENT_NAN:
        raise ValueError(f"The function value at x={s_end:f} is NaN; solver cannot continue.")
    if status == _ode.EVENT_NO_CONVERGENCE:
        raise RuntimeError("Failed to converge after 100 iterations")

    def sample(s, start):
        rows = out[start:min(start + len(s), n_out)]
        if len(rows) == len(s):
            return rows
        extra = np.empty((len(s) - len(rows), N))  # rounding put a point past the last step: its interpolant
        for i, si in enumerate(s[len(rows):]):
            _ode.dense_eval(F, y_old, step[0], step[1], float(si), extra[i])
        return np.vstack([rows, extra])

    return (0 if status == _ode.FINISHED else 1), s_end, y_end, (None if event < 0 else int(event)), sample, nrhs, ""


def _boundary_side(theta, flow, k, r, old):
    """Where the Filippov flow goes from a point with <w_k, E_r> = 0: +1, -1, or 0 (slide on the plane).

    v_plus / v_minus = d<w_k, E_r>/dt under the field of the side T_kr = +1 / -1 (``flow`` with that one
    side changed).  Both pointing into the plane (v_plus < 0 < v_minus) is an attracting sliding surface.
    Both pointing away (repelling, non-unique flow) continues on the side opposite to ``old`` (the
    arrival side).
    """
    v = {}
    for side in (1, -1):
        dV = flow.with_side(k, r, side).parts(theta)[0]
        v[side] = float(dV[k] @ flow.model.E[r])
    vp, vm = v[1], v[-1]
    if vp < 0 < vm:
        return 0
    if (vp >= 0 and vm > 0) or (vp > 0 and vm >= 0):
        return 1
    if (vp <= 0 and vm < 0) or (vp < 0 and vm <= 0):
        return -1
    return -old


def integrate_flow(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, alpha: float = 0.0,
                   loss: str | Loss = "logistic", t_end: float, t_eval: np.ndarray | None = None,
                   rtol: float = 1e-10, atol: float = 1e-13, error_estimate: bool = True,
                   log_time: bool = False, reduction: str = "mean", max_events: int = 10_000,
                   max_rhs_evals: int = 2_000_000) -> FlowResult:
    """Accurate gradient flow d theta/dt = -grad L of the non-smooth net, region by region.

    Inside an activation region (signs of all <w_k, x_i> fixed) the field is smooth and is integrated with
    solve_ivp(DOP853, rtol, atol).  Points with parallel x (x and -x in symmetric data) share one boundary
    plane and switch together.  A terminal event fires when some neuron reaches a plane (one event function:
    the minimum over (neuron, plane) of T_kr <w_k, E_r>, E_r the unit normal).  At the event the two one-sided
    fields are compared (:func:`_boundary_side`): a transversal crossing flips the side; an attracting plane
    (both sides push onto it: v_plus < 0 < v_minus) starts *sliding*: the neuron is held on the plane with the
    Filippov velocity (the convex combination of the two one-sided fields tangent to the plane), and a
    sliding event is recorded; sliding ends when the Filippov weight of the active side reaches 0 or 1
    (second event function), and the neuron leaves on that side.  Because sliding is detected from the
    one-sided fields, chattering never starts; a Zeno guard stops the run (success False, with a message) if
    more than 4 (m R + 1) events occur at one instant, and ``max_events``/``max_rhs_evals`` bound the work.
    Repelling planes (non-unique flow) are crossed.  ``log_time=True`` integrates in s = log(1 + t)
    (d theta/ds = e^s F), for horizons like t = e^320 (Phuong & Lampert 2021); ``t_end``/``t_eval`` stay in t.

    Batched input is integrated element by element (event times differ).  ``atol`` is absolute: scale it with
    the init scale for small initialisations.

    ``error_estimate``: the whole run is repeated with rtol/10, atol/10 and the maximum over recorded times
    (and the end) of ||theta - theta_ref|| / ||theta_ref|| is reported (per element).  History (at ``t_eval``,
    default 101 points on [0, t_end]): ``t``, ``log_loss``, ``min_margin``, ``normalized_margin``,
    ``balance_drift`` (relative, module docstring), ``pattern_changes`` (cumulative number of events),
    ``theta`` (flattened parameters).  ``sliding``: list of dicts ``t_start, t_end, neuron, point, points``
    (``point`` represents the plane, ``points`` all data points on it; a list per element when batched).
    ``events``: list of (t, kind, neuron, point) with kind in {"cross", "slide", "exit"}.
    """
    Wb, ab, X, y, batched = _batched(W0, a0, X, y)
    lf = get_loss(loss)
    if not t_end > 0:
        raise UsageError(f"integrate_flow: t_end must be > 0, got {t_end}")
    if not 0.0 <= alpha <= 1.0:
        raise UsageError(f"integrate_flow: alpha must lie in [0, 1], got {alpha}")
    t_eval = np.linspace(0.0, t_end, 101) if t_eval is None else np.unique(np.asarray(t_eval, dtype=float))
    if t_eval.size and (t_eval[0] < 0 or t_eval[-1] > t_end):
        raise UsageError("integrate_flow: t_eval must lie in [0, t_end]")
    B, m, d = Wb.shape
    results = []
    for b in range(B):
        theta0 = np.concatenate([Wb[b].ravel(), ab[b]])
        model = _Model(X, y, m, d, alpha, lf, reduction)
        run = _integrate_single(model, theta0, t_end, t_eval, rtol, atol, log_time, max_events, max_rhs_evals)
        err = None
        if error_estimate:
            ref = _integrate_single(model, theta0, t_end, t_eval, rtol / 10, atol / 10, log_time, max_events,
                                    max_rhs_evals)
            k = min(len(run[2]), len(ref[2]))
            A, R = np.vstack([run[3][:k], run[0]]), np.vstack([ref[3][:k], ref[0]])
            err = float(np.max(np.linalg.norm(A - R, axis=1) / np.maximum(np.linalg.norm(R, axis=1), 1e-300)))
        results.append((run, err))

    hists, Ws, As, ts, errs, slides, evs, oks, msgs, nsteps = [], [], [], [], [], [], [], [], [], []
    for b, ((theta, t, out_t, out_y, events, sliding, ok, msg, nrhs), err) in enumerate(results):
        Wt, at = out_y[:, : m * d].reshape(-1, m, d), out_y[:, m * d:]
        q = y * np.einsum("rm,rmn->rn", at, activation(preactivations(Wt, X), alpha))
        b0 = balance(Wb[b], ab[b])
        ev_t = np.array([e[0] for e in events])
        hists.append({
            "t": out_t, "log_loss": log_loss(q, lf, reduction=reduction), "min_margin": q.min(axis=-1),
            "normalized_margin": q.min(axis=-1) / np.sum(out_y ** 2, axis=1),
            "balance_drift": (_balance_drift(Wt, at, b0, _balance_scale(Wb[b], ab[b])) if len(out_t)
                              else np.zeros(0)),
            "pattern_changes": np.searchsorted(ev_t, out_t, side="right").astype(float), "theta": out_y})
        Ws.append(theta[: m * d].reshape(m, d))
        As.append(theta[m * d:])
        ts.append(t)
        errs.append(err)
        slides.append(sliding)
        evs.append(events)
        oks.append(ok)
        msgs.append(msg)
        nsteps.append(nrhs)
    if batched:
        history = {k: np.stack([h[k] for h in hists], axis=-1) if all(len(h["t"]) == len(hists[0]["t"])
                                                                      for h in hists) else [h[k] for h in hists]
                   for k in hists[0]}
        history["t"] = hists[0]["t"]
        return FlowResult(W=np.stack(Ws), a=np.stack(As), t=np.array(ts), nsteps=np.array(nsteps),
                          history=history, success=all(oks), message="; ".join(sorted(set(msgs))),
                          error_estimate=None if not error_estimate else np.array(errs), sliding=slides,
                          events=evs)
    return FlowResult(W=Ws[0], a=As[0], t=ts[0], nsteps=nsteps[0], history=hists[0], success=oks[0],
                      message=msgs[0], error_estimate=errs[0], sliding=slides[0], events=evs[0])


# ----------------------------------------------------------------------------------------------------------
# Log-scale (polar) flow for tiny initialisations
# ----------------------------------------------------------------------------------------------------------

def simulate_log_scale(U0: np.ndarray, log_norms0: np.ndarray, signs: np.ndarray, X: np.ndarray, y: np.ndarray,
                       *, alpha: float = 0.0, loss: str | Loss = "exponential", reduction: str = "sum",
                       t_end: float, t_eval: np.ndarray | None = None, rtol: float = 1e-10,
                       atol: float = 1e-12, events: bool = True, error_estimate: bool = False,
                       at_kink: float | None = 0.0, max_events: int = 10_000,
                       max_rhs_evals: int = 2_000_000) -> FlowResult:
    """Gradient flow of a *balanced* net in polar / log-norm coordinates (Min et al. 2024 spec, section 1.5).

    Each neuron is w_j = e^{rho_j} u_j, a_j = s_j e^{rho_j} with ||u_j|| = 1 and a fixed sign s_j.  For a
    balanced net (a_j^2 = ||w_j||^2, conserved by the flow, and sign(a_j) then never changes) the flow is
    *exactly*
        z_j = sum_i c_i phi'(<u_j, x_i>) x_i,   c_i = -l'(q_i) y_i (/ n for the mean),
        du_j/dt = s_j (I - u_j u_j^T) z_j,      d rho_j/dt = s_j <u_j, z_j>,
        f(x_i) = sum_j s_j e^{2 rho_j} phi(<u_j, x_i>).
    No linearisation is made: the state carries epsilon only through rho_j(0) = log eps + log||W0_j||, and
    rho is integrated as rho - rho(0), so log eps = -1e10 costs no accuracy.  The only deviations from exact
    arithmetic are (i) e^{2 rho_j} underflows to 0 when rho_j < -372: then that neuron's contribution to f is
    below 1e-323 and is dropped, i.e. f is computed in the exact eps -> 0 limit (correct to rounding, since
    the loss derivatives at |q| < 1e-300 equal l'(0) in double precision); (ii) unbalanced initial conditions
    cannot be represented (pass a balanced init; this is the setting of Min et al. 2024, eq. (3)).
    Hence there is no switch to ordinary coordinates: the polar state stays exact for all t; ``W``, ``a`` in
    the result are e^{rho} u, s e^{rho} (which underflow to 0 while rho < -745).

    ``events=True`` (default): region by region exactly as :func:`integrate_flow` (events on <u_j, x_i> = 0,
    Filippov sliding, which is what data violating Assumption 1 produce), element by element over a batch;
    ``events``/``sliding`` record every crossing, so crossing times are exact to the integrator tolerance.
    A neuron exactly on a boundary at t = 0 starts on the inactive side and leaves it at once if the field
    pushes it out (the regular-solution convention of Min et al.).  ``events=False``: one stacked ODE over the
    whole batch with phi'(0) = ``at_kink`` (default 0, the paper's 1[z > 0]) and no event handling (faster
    per element for large batches, less accurate at crossings, stalls on sliding data; ``max_rhs_evals``
    stops it with success False).  ``error_estimate``: rerun at rtol/10, atol/10 and report the max
    difference of (u, rho) at the recorded times (absolute; a difference in rho is a relative one in the norm).

    History at ``t_eval`` (default 201 points): ``t``, ``log_norms`` (rho, shape (R, [B,] m)), ``directions``
    (u), ``log_loss``, ``min_margin``, ``max_abs_f``, ``pattern_changes`` (cumulative number of pattern events
    with ``events=True``; sign changes between consecutive records, a lower bound, otherwise).
    """
    U = np.array(U0, dtype=float)
    rho0 = np.array(log_norms0, dtype=float)
    s = np.array(signs, dtype=float)
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if U.ndim not in (2, 3) or rho0.shape != U.shape[:-1] or s.shape != rho0.shape:
        raise UsageError(f"simulate_log_scale: U0 (m, d) or (B, m, d), log_norms0 and signs of shape U0.shape[:-1]; "
                         f"got {U.shape}, {rho0.shape}, {s.shape}")
    if not np.all(np.linalg.norm(U, axis=-1) > 0):
        raise UsageError("simulate_log_scale: every direction in U0 must be nonzero")
    if not np.all(np.abs(s) == 1) or not np.all(np.isfinite(rho0)):
        raise UsageError("simulate_log_scale: signs must be +1 or -1 and log_norms0 finite")
    if X.ndim != 2 or X.shape[1] != U.shape[-1] or y.shape != (X.shape[0],):
        raise UsageError(f"X must be (n, {U.shape[-1]}) and y (n,); got {X.shape}, {y.shape}")
    if not t_end > 0:
        raise UsageError(f"simulate_log_scale: t_end must be > 0, got {t_end}")
    batched = U.ndim == 3
    if not batched:
        U, rho0, s = U[None], rho0[None], s[None]
    U = U / np.linalg.norm(U, axis=-1, keepdims=True)
    B, m, d = U.shape
    lf = get_loss(loss)
    t_eval = np.linspace(0.0, t_end, 201) if t_eval is None else np.unique(np.asarray(t_eval, dtype=float))
    if t_eval.size and (t_eval[0] < 0 or t_eval[-1] > t_end):
        raise UsageError("simulate_log_scale: t_eval must lie in [0, t_end]")

    def solve(rt, at):
        """(T, Y (R, B, m d + m), ok, message, nrhs, event lists, sliding lists)."""
        if events:
            runs = [_integrate_single(_Model(X, y, m, d, alpha, lf, reduction, signs=s[b], rho0=rho0[b]),
                                      np.concatenate([U[b].ravel(), np.zeros(m)]), t_end, t_eval, rt, at, False,
                                      max_events, max_rhs_evals) for b in range(B)]
            k = min(len(r[2]) for r in runs)
            Y = np.stack([r[3][:k] for r in runs], axis=1)
            return (runs[0][2][:k], Y, all(r[6] for r in runs), "; ".join(sorted({r[7] for r in runs})),
                    sum(r[8] for r in runs), [r[4] for r in runs], [r[5] for r in runs])
        T, Y, ok, msg, nrhs = _stacked_polar(U, rho0, s, X, y, alpha, lf, reduction, t_end, t_eval, rt, at,
                                             at_kink, max_rhs_evals)
        return T, Y, ok, msg, nrhs, [[] for _ in range(B)], [[] for _ in range(B)]

    T, Y, ok, msg, nrhs, ev, sl = solve(rtol, atol)
    err = None
    if error_estimate:
        T2, Y2, *_ = solve(rtol / 10, atol / 10)
        k = min(len(T), len(T2))
        err = np.max(np.abs(Y[:k] - Y2[:k]), axis=(0, 2), initial=0.0)
        err = _unbatch(err, batched)
    if len(T) == 0:
        T, Y = np.zeros(1), np.concatenate([U.reshape(B, -1), np.zeros((B, m))], axis=1)[None]
    Ur, dr = Y[..., : m * d].reshape(len(T), B, m, d), Y[..., m * d:]
    u = Ur / np.linalg.norm(Ur, axis=-1, keepdims=True)
    rho = rho0[None] + dr
    Z = u @ X.T
    f = np.einsum("rbm,rbmn->rbn", s[None] * np.exp(2.0 * rho), activation(Z, alpha))
    q = y * f
    if events:
        counts = [np.searchsorted(np.array([e[0] for e in evb]), T, side="right") for evb in ev]
        flips = np.stack(counts, axis=1).astype(float)
    else:
        pattern = Z > 0
        flips = np.concatenate([np.zeros((1, B)), np.cumsum(np.sum(pattern[1:] != pattern[:-1], axis=(-2, -1)),
                                                            axis=0)]).astype(float)
    hist = {"t": np.asarray(T), "log_norms": rho, "directions": u, "log_loss": log_loss(q, lf, reduction=reduction),
            "min_margin": q.min(axis=-1), "max_abs_f": np.max(np.abs(f), axis=-1), "pattern_changes": flips}
    if not batched:
        hist = {k: (v if k == "t" else v[:, 0]) for k, v in hist.items()}
    u_end, rho_end = u[-1], rho[-1]
    with np.errstate(under="ignore"):
        W_end, a_end = np.exp(rho_end)[..., None] * u_end, s * np.exp(rho_end)
    out = FlowResult(W=_unbatch(W_end, batched), a=_unbatch(a_end, batched), t=float(T[-1]),
                     directions=_unbatch(u_end, batched), log_norms=_unbatch(rho_end, batched),
                     signs=_unbatch(s, batched), nsteps=nrhs, history=hist, success=bool(ok), message=msg,
                     error_estimate=err, sliding=sl if batched else sl[0])
    out["events"] = ev if batched else ev[0]
    return out


def _stacked_polar(U, rho0, s, X, y, alpha, lf, reduction, t_end, t_eval, rtol, atol, at_kink, max_rhs):
    """The polar flow of a whole batch as one ODE, phi'(0) = at_kink, no events (simulate_log_scale)."""
    B, m, d = U.shape
    nrhs = 0

    def rhs(_t, v):
        nonlocal nrhs
        nrhs += 1
        if nrhs > max_rhs:
            raise _Budget()
        Uv, drho = v[: B * m * d].reshape(B, m, d), v[B * m * d:].reshape(B, m)
        u = Uv / np.linalg.norm(Uv, axis=-1, keepdims=True)
        Z = u @ X.T
        f = np.einsum("bm,bmn->bn", s * np.exp(2.0 * (rho0 + drho)), activation(Z, alpha))
        c = loss_weights(y * f, lf, reduction=reduction) * y
        zj = (activation_derivative(Z, alpha, at_kink) * c[:, None, :]) @ X
        uz = np.sum(u * zj, axis=-1)
        return np.concatenate([(s[..., None] * (zj - uz[..., None] * u)).ravel(), (s * uz).ravel()])

    v0 = np.concatenate([U.ravel(), np.zeros(B * m)])
    try:
        sol = solve_ivp(rhs, (0.0, t_end), v0, method="DOP853", rtol=rtol, atol=atol, t_eval=t_eval)
    except _Budget:
        return np.zeros(0), np.zeros((0, B, m * d + m)), False, f"right-hand-side budget of {max_rhs} " \
            "evaluations exhausted", nrhs
    Y = sol.y.T
    Y = np.concatenate([Y[:, : B * m * d].reshape(-1, B, m * d), Y[:, B * m * d:].reshape(-1, B, m)], axis=2)
    return sol.t, Y, sol.status == 0, str(sol.message), nrhs


# ----------------------------------------------------------------------------------------------------------
# Monitor-free batched GD (the fast path for seed sweeps and benchmarks)
# ----------------------------------------------------------------------------------------------------------

# elements of one (chunk, m, n) work array: 2^15 doubles = 256 KiB, about an L2 cache (measured, 32 seeds,
# m = n = 100, loaded 2-core machine: 7.3 / 7.6 / 8.8 / 10.4 ms per step for 1 / 2 / 4 / 32 seeds per chunk)
_CHUNK_ELEMENTS = 1 << 15


def gd_steps(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, lr: float, steps: int,
             alpha: float = 0.0, loss: str | Loss = "logistic", at_kink: float | None = None,
             reduction: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """``steps`` plain GD steps ``theta <- theta - lr grad L(theta)``, batched over a leading seed axis.

    Parameters
    ----------
    W0, a0 : ``(m, d)``, ``(m,)`` or batched ``(B, m, d)``, ``(B, m)``.
    X, y : ``(n, d)`` data and ``(n,)`` labels in {+1, -1}.
    lr, steps : step size (> 0) and number of steps (>= 0).
    alpha, loss, at_kink, reduction : as in :func:`verify.numerics.nets.gradient`.

    Returns
    -------
    (W, a) after ``steps`` steps, with the input's batch shape.
    """
    W = np.array(W0, dtype=np.float64)
    a = np.array(a0, dtype=np.float64)
    X = carray(X)
    y = np.asarray(y, dtype=np.float64)
    if W.ndim not in (2, 3) or a.shape != W.shape[:-1]:
        raise UsageError(f"W0 must be (m, d) or (B, m, d) and a0 of shape W0.shape[:-1]; got {W.shape}, {a.shape}")
    if X.ndim != 2 or X.shape[1] != W.shape[-1] or y.shape != (X.shape[0],):
        raise UsageError(f"X must be (n, {W.shape[-1]}) and y (n,); got {X.shape}, {y.shape}")
    if not lr > 0 or int(steps) < 0:
        raise UsageError(f"gd_steps: need lr > 0 and steps >= 0; got lr={lr}, steps={steps}")
    if not 0.0 <= alpha <= 1.0:
        raise UsageError(f"gd_steps: alpha must lie in [0, 1], got {alpha}")
    batched = W.ndim == 3
    if not batched:
        W, a = W[None], a[None]
    lf = get_loss(loss)
    spec = _compiled_loss(lf, W, X)
    if spec is not None:  # W, a are this call's own copies: stepped in place
        W_out, a_out = _gd_steps_compiled(W, a, X, y, spec, alpha, lr, steps, at_kink, reduction, copy=False)
        return (W_out, a_out) if batched else (W_out[0], a_out[0])
    kink = _kink(alpha, at_kink)
    # seeds are independent: run them in chunks whose (chunk, m, n) work arrays stay in cache
    chunk = max(1, _CHUNK_ELEMENTS // (W.shape[1] * X.shape[0]))
    W_out, a_out = np.empty_like(W), np.empty_like(a)
    for start in range(0, W.shape[0], chunk):
        Wc, ac = W[start:start + chunk], a[start:start + chunk]
        for _ in range(int(steps)):
            *_, dW, da = _state(Wc, ac, X, y, float(alpha), lf, False, kink, reduction)
            Wc = Wc - lr * dW
            ac = ac - lr * da
        W_out[start:start + chunk], a_out[start:start + chunk] = Wc, ac
    return (W_out, a_out) if batched else (W_out[0], a_out[0])


def gd_log_time(W0: np.ndarray, a0: np.ndarray, X: np.ndarray, y: np.ndarray, *, h: float,
                log_times: np.ndarray, alpha: float = 0.0, loss: str | Loss = "logistic",
                at_kink: float | None = None, reduction: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """Explicit Euler on the gradient flow with steps that grow with t, for horizons like t = e^300.

    From t_0 = 0: theta_{k+1} = theta_k - dt_k grad L(theta_k), t_{k+1} = t_k + dt_k, with
    dt_k = h (1 + t_k) / max(1, log(1 + t_k)), i.e. about h / max(1, s) in log-time s = log(1 + t).  Returns
    ``(W, a)`` of shapes ``(K, m, d)``, ``(K, m)``: row k is the first iterate with log(1 + t) >= log_times[k]
    (the checkpoints are served in the order given; one already passed is the current iterate).  The whole
    run, from checkpoint to checkpoint, is one compiled loop.  ``alpha``, ``loss``, ``at_kink``, ``reduction``
    as in :func:`gd_steps`; unbatched ``W0`` ``(m, d)``, ``a0`` ``(m,)``.
    """
    W = np.array(W0, dtype=np.float64, order="C")
    a = np.array(a0, dtype=np.float64, order="C")
    X = carray(X)
    y = carray(y)
    s_k = carray(np.atleast_1d(np.asarray(log_times, dtype=np.float64)))
    if W.ndim != 2 or a.shape != W.shape[:1]:
        raise UsageError(f"gd_log_time: W0 must be (m, d) and a0 (m,); got {W.shape}, {a.shape}")
    if X.ndim != 2 or X.shape[1] != W.shape[1] or y.shape != (X.shape[0],):
        raise UsageError(f"X must be (n, {W.shape[1]}) and y (n,); got {X.shape}, {y.shape}")
    if not h > 0 or s_k.ndim != 1 or not np.all(np.isfinite(s_k)):
        raise UsageError(f"gd_log_time: need h > 0 and finite log_times; got h={h}, log_times={log_times}")
    lf = get_loss(loss)
    log_n = _log_count(X.shape[0], reduction)
    kink = _kink(alpha, at_kink)
    W_out, a_out = np.empty((len(s_k), *W.shape)), np.empty((len(s_k), *a.shape))
    spec = _compiled_loss(lf, W, X)
    if spec is not None:
        _kernels.gd_log_time(W, a, X, y, float(h), s_k, float(alpha), kink, spec[0], spec[1], log_n, W_out, a_out)
        return W_out, a_out
    t, k = 0.0, 0
    while k < len(s_k):
        s = np.log1p(t)
        if s >= s_k[k]:
            W_out[k], a_out[k] = W, a
            k += 1
            continue
        dt = h * (1.0 + t) / max(1.0, s)
        *_, dW, da = _state(W[None], a[None], X, y, float(alpha), lf, False, kink, reduction)
        W, a = W - dt * dW[0], a - dt * da[0]
        t += dt
    return W_out, a_out


def gd_step_flops(B: int, m: int, n: int, d: int) -> int:
    """Floating-point operations of one batched GD step, counting the two matrix products (2 B m n d each)
    and the matrix-vector products (2 B m n each); elementwise work is not counted."""
    return 4 * B * m * n * d + 4 * B * m * n
