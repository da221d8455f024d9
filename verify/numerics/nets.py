"""Two-layer (leaky) ReLU networks: forward pass, losses in log domain, gradients and Clarke subgradients.

Conventions (shared by every function here)
-------------------------------------------
* Data ``X`` is ``(n, d)`` (rows are points), labels ``y`` are floats in ``{+1, -1}``, shape ``(n,)``.
* A network is ``W`` ``(m, d)`` and ``a`` ``(m,)``; ``f(x) = sum_j a_j phi(<w_j, x>)`` with
  ``phi(z) = max(z, alpha z)`` (``alpha = 0``: ReLU; ``0 < alpha < 1``: leaky ReLU).
* Every function accepts an optional leading batch axis: ``W`` ``(B, m, d)``, ``a`` ``(B, m)``; outputs then gain
  the same leading axis.  Batches are computed in one vectorised einsum (no Python loop), except where a
  docstring says otherwise (the Clarke-set functions, whose outputs have a data-dependent size).
* The flat parameter vector is ``theta = concat(W.ravel(), a)`` (see :func:`flatten_params`).
* Losses: ``L = (1/n) sum_i l(q_i)`` with margins ``q_i = y_i f(x_i)`` (``reduction="mean"``, the default), or
  ``L = sum_i l(q_i)`` (``reduction="sum"``, the convention of Min et al. 2024).  Gradient flow on the sum is
  gradient flow on the mean with time multiplied by ``n``.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear
from scipy.special import expit

from ..errors import UsageError
from . import _jit, _kernels
from ._jit import carray

__all__ = [
    "EXPONENTIAL", "LOGISTIC", "Loss", "activation", "activation_derivative", "activation_pattern",
    "balance", "clarke_extreme_gradients", "flatten_params", "forward", "get_loss", "gradient", "gradient_function",
    "kernel_loss", "log_loss", "log_scaled_loss", "loss_value", "loss_weights", "margins", "min_norm_subgradient",
    "normalized_margin", "parameter_norm_sq", "preactivations", "scaled_loss", "unflatten_params",
]


# ----------------------------------------------------------------------------------------------------------
# Losses
# ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Loss:
    """A margin loss ``l(q)`` given by four vectorised functions of the margin array ``q``.

    Protocol (every function maps a float array to a float array of the same shape, elementwise):

    * ``value(q)``             = l(q)                  (may overflow/underflow; used for display only)
    * ``neg_derivative(q)``    = -l'(q)                (> 0 for a decreasing loss)
    * ``log_value(q)``         = log l(q)              (must be finite for q in [-1e3, 1e6])
    * ``log_neg_derivative(q)``= log(-l'(q))           (must be finite for q in [-1e3, 1e6])

    Every computation in this module uses only the two ``log_*`` functions, so a user-supplied loss is
    overflow-safe iff those two are.  Build one with ``Loss(name, value, neg_derivative, log_value,
    log_neg_derivative)``; :data:`LOGISTIC` and :data:`EXPONENTIAL` are the built-ins; :func:`scaled_loss`
    multiplies a loss by a constant (e.g. the ``2 log(1 + e^{-q})`` of Min et al. 2024, App. B).
    """

    name: str
    value: Callable[[np.ndarray], np.ndarray]
    neg_derivative: Callable[[np.ndarray], np.ndarray]
    log_value: Callable[[np.ndarray], np.ndarray]
    log_neg_derivative: Callable[[np.ndarray], np.ndarray]


_LOGISTIC_SWITCH = 30.0


def _logistic_log_value(q: np.ndarray) -> np.ndarray:
    """log(log(1 + e^{-q})), exact to a few ulp for every finite q.

    For q <= 30: ``log(logaddexp(0, -q))``.  For q > 30, with u = e^{-q}:
    log(log1p(u)) = -q + log(log1p(u)/u) = -q + log1p(-u/2 + u^2/3 - ...) and u^2 < 1e-26 is below
    rounding, so ``-q + log1p(-u/2)``; e^{-q} is never formed for q > 745 (it would underflow to 0 harmlessly).
    """
    q = np.asarray(q, dtype=float)
    small = q <= _LOGISTIC_SWITCH
    qs = np.where(small, q, 0.0)
    ql = np.where(small, _LOGISTIC_SWITCH + 1.0, q)
    return np.where(small, np.log(np.logaddexp(0.0, -qs)), -ql + np.log1p(-0.5 * np.exp(-ql)))


LOGISTIC = Loss(
    name="logistic",
    value=lambda q: np.logaddexp(0.0, -np.asarray(q, dtype=float)),
    neg_derivative=lambda q: expit(-np.asarray(q, dtype=float)),
    log_value=_logistic_log_value,
    log_neg_derivative=lambda q: -np.logaddexp(0.0, np.asarray(q, dtype=float)),
)
"""l(q) = log(1 + e^{-q}); -l'(q) = 1/(1 + e^{q}); log(-l'(q)) = -log(1 + e^{q})."""

EXPONENTIAL = Loss(
    name="exponential",
    value=lambda q: np.exp(-np.asarray(q, dtype=float)),
    neg_derivative=lambda q: np.exp(-np.asarray(q, dtype=float)),
    log_value=lambda q: -np.asarray(q, dtype=float),
    log_neg_derivative=lambda q: -np.asarray(q, dtype=float),
)
"""l(q) = e^{-q} = -l'(q)."""

LINEARISED_LOGISTIC = Loss(
    name="ln2 - q/2 (the logistic loss linearised at 0)",
    value=lambda q: np.log(2.0) - np.asarray(q) / 2,
    neg_derivative=lambda q: np.full(np.shape(q), 0.5),
    log_value=lambda q: np.log(np.abs(np.log(2.0) - np.asarray(q) / 2) + 1e-300),   # display only
    log_neg_derivative=lambda q: np.full(np.shape(q), np.log(0.5)),
)
"""l(q) = ln 2 - q/2, the logistic loss to first order at q = 0 (-l' = 1/2 everywhere): the loss that drives the
flow of a tiny initialisation (Lyu et al. 2021, App. G's G-flow). Not a margin loss for large q (it goes
negative); its log_value is for display only."""

_LOSSES = {"logistic": LOGISTIC, "exponential": EXPONENTIAL, "exp": EXPONENTIAL}

# the losses the compiled kernels know: built-ins and their scaled versions (kind, log-domain offsets)
_KERNEL_LOSSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_KERNEL_LOSSES[LOGISTIC] = (0, ())
_KERNEL_LOSSES[EXPONENTIAL] = (1, ())
_KERNEL_LOSSES[LINEARISED_LOGISTIC] = (2, ())


def kernel_loss(loss: str | Loss) -> tuple[int, np.ndarray] | None:
    """``(kind, offsets)`` of a loss the compiled kernels compute, or None (a user-defined loss).

    kind 0 is :data:`LOGISTIC`, 1 :data:`EXPONENTIAL`, 2 :data:`LINEARISED_LOGISTIC`; ``offsets`` are the constants that
    :func:`scaled_loss` added to both log-domain functions, innermost first.  Only these built-ins and
    losses built from them by :func:`scaled_loss` are recognised (by identity, never by name), so a
    user-supplied :class:`Loss` always runs the numpy path with its own functions.
    """
    spec = _KERNEL_LOSSES.get(get_loss(loss))
    return None if spec is None else (spec[0], np.array(spec[1], dtype=np.float64))


def scaled_loss(loss: str | Loss, factor: float) -> Loss:
    """The loss ``factor * l(q)`` (factor > 0), e.g. ``scaled_loss("logistic", 2)`` for Min et al. 2024 App. B."""
    base = get_loss(loss)
    if not factor > 0:
        raise UsageError(f"scaled_loss: factor must be > 0, got {factor}")
    c, logc = float(factor), float(np.log(factor))
    scaled = Loss(
        name=f"{factor:g}*{base.name}",
        value=lambda q: c * base.value(q),
        neg_derivative=lambda q: c * base.neg_derivative(q),
        log_value=lambda q: logc + base.log_value(q),
        log_neg_derivative=lambda q: logc + base.log_neg_derivative(q),
    )
    spec = _KERNEL_LOSSES.get(base)
    if spec is not None:
        _KERNEL_LOSSES[scaled] = (spec[0], (*spec[1], logc))
    return scaled


def log_scaled_loss(loss: str | Loss, log_factor: float) -> Loss:
    """The loss ``e^log_factor * l(q)``, built in log domain (``e^log_factor`` itself may overflow).

    Its gradient flow is that of ``l`` with time multiplied by ``e^log_factor`` (the same trajectory); with
    ``log_factor = -log L(theta0)`` the field is O(1) at theta0 however small L(theta0) is.  Like
    :func:`scaled_loss`, it runs the compiled kernels when ``loss`` does.
    """
    base = get_loss(loss)
    c = float(log_factor)
    if not np.isfinite(c):
        raise UsageError(f"log_scaled_loss: log_factor must be finite, got {log_factor}")
    shifted = Loss(
        name=f"e^{c:.6g}*{base.name}",
        value=lambda q: np.exp(c + base.log_value(q)),
        neg_derivative=lambda q: np.exp(c + base.log_neg_derivative(q)),
        log_value=lambda q: c + base.log_value(q),
        log_neg_derivative=lambda q: c + base.log_neg_derivative(q),
    )
    spec = _KERNEL_LOSSES.get(base)
    if spec is not None:
        _KERNEL_LOSSES[shifted] = (spec[0], (*spec[1], c))
    return shifted


def get_loss(loss: str | Loss) -> Loss:
    """Resolve ``"logistic"``, ``"exponential"`` (alias ``"exp"``) or a :class:`Loss` instance."""
    if isinstance(loss, Loss):
        return loss
    try:
        return _LOSSES[loss]
    except (KeyError, TypeError):
        raise UsageError(f"unknown loss {loss!r}; use 'logistic', 'exponential' or a Loss instance") from None


def _log_count(n: int, reduction: str) -> float:
    if reduction == "mean":
        return float(np.log(n))
    if reduction == "sum":
        return 0.0
    raise UsageError(f"reduction must be 'mean' or 'sum', got {reduction!r}")


def _logsumexp(v: np.ndarray) -> np.ndarray:
    """log sum_i e^{v_i} over the last axis (shifted by the maximum; scipy's version is 10x slower here)."""
    top = np.max(v, axis=-1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(v - safe[..., None]), axis=-1))


def log_loss(q: np.ndarray, loss: str | Loss = "logistic", *, reduction: str = "mean") -> np.ndarray:
    """log L with L = (1/n) sum_i l(q_i) (mean) or sum_i l(q_i) (sum), over the last axis of ``q``.

    Computed as ``logsumexp(log l(q_i)) - log n``: finite for q in [-1e3, 1e6] (and beyond) for the built-ins.
    """
    q = np.asarray(q, dtype=float)
    lf = get_loss(loss)
    spec = kernel_loss(lf) if _jit.ENABLED and q.ndim >= 1 and q.size > 0 else None
    if spec is not None:  # compiled: one pass, no temporaries (the same formula)
        rows = carray(q.reshape(-1, q.shape[-1]))
        out = np.empty(rows.shape[0])
        _kernels.log_loss_rows(rows, spec[0], spec[1], _log_count(q.shape[-1], reduction), out)
        return out.reshape(q.shape[:-1]) if q.ndim > 1 else out[0]
    return _logsumexp(lf.log_value(q)) - _log_count(q.shape[-1], reduction)


def loss_value(q: np.ndarray, loss: str | Loss = "logistic", *, reduction: str = "mean") -> np.ndarray:
    """L itself (``exp(log_loss)``): the reduced loss, which underflows to 0 for huge margins (use log_loss)."""
    return np.exp(log_loss(q, loss, reduction=reduction))


def loss_weights(q: np.ndarray, loss: str | Loss = "logistic", *, normalized: bool = False,
                 reduction: str = "mean") -> np.ndarray:
    """Per-sample weights r_i = -l'(q_i)/n (mean) or -l'(q_i) (sum); with ``normalized`` divided by L.

    Normalised weights r_i / L = exp(log(-l'(q_i)) - log n - log L) are computed in log domain, so they stay
    finite when L underflows.  For the exponential loss they are the softmin weights and sum to 1.
    """
    q = np.asarray(q, dtype=float)
    lf = get_loss(loss)
    log_nd = lf.log_neg_derivative(q)
    if not normalized:
        log_count = _log_count(q.shape[-1], reduction)
        return np.exp(log_nd - log_count if log_count != 0.0 else log_nd)     # x - 0.0 is x to the bit
    # r_i / L = e^{log(-l'_i) - M} / sum_j e^{log l_j - M}, M = max_j log l_j: the exponents are differences
    # of nearby numbers (exact for huge q), so the weights keep full relative accuracy at q ~ 1e6
    log_l = lf.log_value(q)
    top = np.max(log_l, axis=-1, keepdims=True)
    return np.exp(log_nd - top) / np.sum(np.exp(log_l - top), axis=-1, keepdims=True)


# ----------------------------------------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------------------------------------

def activation(z: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """phi(z) = max(z, alpha z) for 0 <= alpha <= 1 (z where z > 0, alpha z otherwise)."""
    z = np.asarray(z, dtype=float)
    return np.maximum(z, alpha * z) if alpha != 0.0 else np.maximum(z, 0.0)


def activation_derivative(z: np.ndarray, alpha: float = 0.0, at_kink: float | None = None) -> np.ndarray:
    """phi'(z): 1 where z > 0, alpha where z < 0, and ``at_kink`` where z == 0 exactly.

    Default ``at_kink = (1 + alpha)/2``, the midpoint of the Clarke interval [alpha, 1] (a measure-zero
    convention, as in the Lyu et al. 2021 spec for the ODE right-hand side).  Pass ``at_kink=0.0`` for the
    indicator convention 1[z > 0] of Min et al. 2024 and Phuong & Lampert 2021 (ReLU), or ``alpha``.
    """
    z = np.asarray(z, dtype=float)
    kink = 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)
    out = np.where(z > 0, 1.0, alpha)
    # exact zeros hold alpha already (z > 0 is false there): patch them only when the kink value has other bits,
    # and only when present (exact kinks are rare outside constructed fixtures)
    if not _same_float(kink, alpha):
        zero = z == 0
        if zero.any():
            out[zero] = kink
    return out


def _same_float(u: float, v: float) -> bool:
    """Whether u and v are the same float64 to the bit (signed zeros told apart)."""
    return np.float64(u).tobytes() == np.float64(v).tobytes()


def _check_net(W: np.ndarray, a: np.ndarray, X: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    W = np.asarray(W, dtype=float)
    a = np.asarray(a, dtype=float)
    if W.ndim not in (2, 3) or a.shape != W.shape[:-1]:
        raise UsageError(f"W must be (m, d) or (B, m, d) and a of shape W.shape[:-1]; got {W.shape}, {a.shape}")
    if X is not None and (np.ndim(X) != 2 or np.shape(X)[1] != W.shape[-1]):
        raise UsageError(f"X must be (n, d) with d = {W.shape[-1]}; got {np.shape(X)}")
    return W, a


def _contract_neurons(a: np.ndarray, A: np.ndarray) -> np.ndarray:
    """sum_j a[..., j] A[..., j, i] as a batched matmul."""
    return (a[..., None, :] @ A)[..., 0, :]


def preactivations(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Z[..., j, i] = <w_j, x_i>, shape (m, n) or (B, m, n)."""
    return np.asarray(W, dtype=float) @ np.asarray(X, dtype=float).T


def _compilable(W: np.ndarray, X) -> bool:
    """Whether the compiled kernels take this net and data (numba on, nothing empty)."""
    return _jit.ENABLED and W.size > 0 and np.shape(X)[0] > 0


def _compiled_margins(W, a, X, y, alpha) -> np.ndarray:
    """y * f(X) by the compiled kernel (``y`` None: f itself), with the batch shape of W."""
    X = carray(X)
    y = np.ones(X.shape[0]) if y is None else carray(y)
    W3, a2 = (W, a) if W.ndim == 3 else (W[None], a[None])
    out = np.empty((W3.shape[0], X.shape[0]))
    _kernels.margins_batch(carray(W3), carray(a2), X, y, float(alpha), out)
    return out if W.ndim == 3 else out[0]


def forward(W: np.ndarray, a: np.ndarray, X: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """f(x_i) = sum_j a_j phi(<w_j, x_i>); shape (n,) or (B, n)."""
    W, a = _check_net(W, a, X)
    if _compilable(W, X):
        return _compiled_margins(W, a, X, None, alpha)
    return _contract_neurons(a, activation(preactivations(W, X), alpha))


def margins(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """q_i = y_i f(x_i)."""
    y = np.asarray(y, dtype=float)
    W, a = _check_net(W, a, X)
    if y.shape == (np.shape(X)[0],) and _compilable(W, X):
        return _compiled_margins(W, a, X, y, alpha)
    return y * forward(W, a, X, alpha)


def parameter_norm_sq(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """||theta||^2 = ||W||_F^2 + ||a||^2 (per batch element)."""
    return np.sum(np.asarray(W) ** 2, axis=(-2, -1)) + np.sum(np.asarray(a) ** 2, axis=-1)


def normalized_margin(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """gamma = min_i q_i / (||W||_F^2 + ||a||^2).

    The net is positively 2-homogeneous in theta = (W, a) (f_{c theta} = c^2 f_theta), so dividing by
    ||theta||^2 makes gamma scale invariant; this is q_min(theta/||theta||) as in Lyu & Li's normalised margin.
    """
    return np.min(margins(W, a, X, y, alpha), axis=-1) / parameter_norm_sq(W, a)


def balance(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """a_j^2 - ||w_j||^2 per neuron (conserved by gradient flow); shape (m,) or (B, m)."""
    W, a = _check_net(W, a)
    return a ** 2 - np.sum(W ** 2, axis=-1)


def activation_pattern(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Boolean (m, n) or (B, m, n): <w_j, x_i> > 0."""
    return preactivations(W, X) > 0


def flatten_params(W: np.ndarray, a: np.ndarray) -> np.ndarray:
    """theta = concat(W.ravel(), a) (per batch element: shape (m d + m,) or (B, m d + m))."""
    W, a = _check_net(W, a)
    lead = W.shape[:-2]
    return np.concatenate([W.reshape(*lead, -1), a], axis=-1)


def unflatten_params(theta: np.ndarray, m: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`flatten_params`."""
    theta = np.asarray(theta, dtype=float)
    if theta.shape[-1] != m * d + m:
        raise UsageError(f"theta has length {theta.shape[-1]}, expected m*d + m = {m * d + m}")
    lead = theta.shape[:-1]
    return theta[..., : m * d].reshape(*lead, m, d), theta[..., m * d:]


def _signed_weights(W, a, X, y, alpha, loss, normalized, reduction):
    """c_i = r_i y_i with r_i = -l'(q_i)/n (or /L): dL/dtheta = -sum_i c_i df_i/dtheta.  Also returns Z."""
    Z = preactivations(W, X)
    y = np.asarray(y, dtype=float)
    q = y * _contract_neurons(a, activation(Z, alpha))
    return loss_weights(q, loss, normalized=normalized, reduction=reduction) * y, Z


def gradient(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float = 0.0,
             loss: str | Loss = "logistic", normalized: bool = False, at_kink: float | None = None, *,
             reduction: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """(dL/dW, dL/da), or the gradient of log L when ``normalized`` (i.e. grad L / L, in log domain).

    With c_i = -l'(q_i) y_i / n and h_ji = phi'(<w_j, x_i>) (``at_kink`` at exact zeros):
    dL/dw_j = -a_j sum_i c_i h_ji x_i,   dL/da_j = -sum_i c_i phi(<w_j, x_i>).
    """
    W, a = _check_net(W, a, X)
    spec = kernel_loss(loss) if _compilable(W, X) else None
    yv = np.asarray(y, dtype=np.float64)
    if spec is not None and yv.shape == (np.shape(X)[0],):  # compiled: the same formulas in one pass
        kink = 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)
        return _gradient_compiled(W, a, carray(X), carray(yv), float(alpha), kink, spec[0], spec[1],
                                  _log_count(yv.shape[0], reduction), bool(normalized))
    c, Z = _signed_weights(W, a, X, y, alpha, loss, normalized, reduction)
    return _gradient_from_weights(a, np.asarray(X, dtype=float), c, Z, alpha, at_kink)


def _gradient_compiled(W, a, X, y, alpha, kink, kind, offsets, log_count, normalized):
    """The compiled path of gradient (X, y already C-contiguous float64; W (m, d) or (B, m, d))."""
    W3, a2 = (W, a) if W.ndim == 3 else (W[None], a[None])
    dW, da = np.empty(W3.shape), np.empty(a2.shape)
    _kernels.gradient_batch(carray(W3), carray(a2), X, y, alpha, kink, kind, offsets, log_count, normalized, dW, da)
    return (dW, da) if W.ndim == 3 else (dW[0], da[0])


def _gradient_from_weights(a, X, c, Z, alpha, at_kink, A=None, negate=False):
    """(dL/dW, dL/da) from the signed weights c and the pre-activations Z (the numpy path of gradient); ``A`` is
    activation(Z, alpha) where the caller has it; with ``negate`` (-dL/dW, -dL/da), the gradient flow's velocity,
    bit for bit the negated gradient (negation is exact: -((-a) M) is a M) without negating twice."""
    kink = 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)
    if _same_float(alpha, 0.0) and _same_float(kink, 0.0):
        H = Z > 0       # phi'(Z) itself: a bool multiplies as 1.0 or 0.0, the same products
    else:
        H = activation_derivative(Z, alpha, at_kink)
    # Batched matmuls (BLAS), not a three-operand einsum, which numpy runs as a naive loop.
    M = (H * c[..., None, :]) @ X
    Ac = ((activation(Z, alpha) if A is None else A) @ c[..., :, None])[..., 0]
    return (a[..., None] * M, Ac) if negate else (-a[..., None] * M, -Ac)


def gradient_function(X: np.ndarray, y: np.ndarray, alpha: float = 0.0, loss: str | Loss = "logistic",
                      normalized: bool = False, at_kink: float | None = None, *, reduction: str = "mean",
                      negate: bool = False) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``(W, a) -> gradient(W, a, X, y, alpha, loss, normalized, at_kink, reduction=reduction)``, bit for bit;
    with ``negate`` its negation ``(-dL/dW, -dL/da)`` (the gradient flow's velocity), bit for bit.

    For the right-hand side of an ODE solver, which calls the gradient some 10^5 times on one data set: X, y,
    the loss, the reduction and the compiled kernel's constants are checked and prepared here once, and each call
    checks only W and a (the same errors as :func:`gradient`) before the same arithmetic (tests/test_numerics_nets
    holds the two equal on both paths); the numpy path computes phi(Z) once for the margins and dL/da. X and y
    are held, not copied: they must not change afterwards.
    """
    if np.ndim(X) != 2:
        raise UsageError(f"X must be (n, d); got {np.shape(X)}")
    n, d = np.shape(X)
    lf = get_loss(loss)
    _log_count(max(n, 1), reduction)          # an unknown reduction is refused now, as gradient refuses it
    alpha = float(alpha)
    yv = np.asarray(y, dtype=np.float64)
    Xf = np.asarray(X, dtype=float)           # the numpy path's operands, as gradient makes them
    XfT = Xf.T
    spec = kernel_loss(lf)
    compiled = spec is not None and n > 0 and yv.shape == (n,)
    if compiled:                              # the compiled path's operands, as gradient makes them
        Xc, yc, kind, offsets = carray(X), carray(yv), spec[0], spec[1]
        kink = 0.5 * (1.0 + alpha) if at_kink is None else float(at_kink)
        log_count, normalized = _log_count(n, reduction), bool(normalized)

    def grad(W: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        W = np.asarray(W, dtype=float)
        a = np.asarray(a, dtype=float)
        if W.ndim not in (2, 3) or a.shape != W.shape[:-1] or W.shape[-1] != d:
            raise UsageError(f"W must be (m, d) or (B, m, d) with d = {d} and a of shape W.shape[:-1]; got "
                             f"{W.shape}, {a.shape}")
        if compiled and _jit.ENABLED and W.size > 0:
            dW, da = _gradient_compiled(W, a, Xc, yc, alpha, kink, kind, offsets, log_count, normalized)
            return (-dW, -da) if negate else (dW, da)
        Z = W @ XfT
        A = activation(Z, alpha)
        q = yv * _contract_neurons(a, A)
        c = loss_weights(q, lf, normalized=normalized, reduction=reduction) * yv
        return _gradient_from_weights(a, Xf, c, Z, alpha, at_kink, A=A, negate=negate)

    return grad


# ----------------------------------------------------------------------------------------------------------
# Clarke subdifferential
# ----------------------------------------------------------------------------------------------------------

def _ambiguous_decomposition(W, a, X, y, alpha, loss, kink_tol, normalized, reduction):
    """Gradient with h = 0 on ambiguous pairs (g0) and the column of each ambiguous pair's h (A).

    Pair (k, i) is ambiguous iff |<w_k, x_i>| <= kink_tol ||w_k|| ||x_i||.  The gradient is affine in the
    ambiguous derivatives h: grad = g0 + A h, where column (k, i) of A is -a_k c_i x_i in the w_k block.
    (phi itself is continuous, so q, c and dL/da do not depend on h.)
    """
    X = np.asarray(X, dtype=float)
    c, Z = _signed_weights(W, a, X, y, alpha, loss, normalized, reduction)
    m, d = W.shape
    scale = np.linalg.norm(W, axis=1)[:, None] * np.linalg.norm(X, axis=1)[None, :]
    amb = np.abs(Z) <= kink_tol * scale
    H = np.where(amb, 0.0, np.where(Z > 0, 1.0, alpha))
    dW0 = -a[:, None] * ((H * c[None, :]) @ X)
    da = -(activation(Z, alpha) @ c)
    g0 = np.concatenate([dW0.ravel(), da])
    pairs = np.argwhere(amb)
    A = np.zeros((m * d + m, len(pairs)))
    for col, (k, i) in enumerate(pairs):
        A[k * d:(k + 1) * d, col] = -a[k] * c[i] * X[i]
    return g0, A, pairs


def clarke_extreme_gradients(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float = 0.0,
                             loss: str | Loss = "logistic", kink_tol: float = 1e-12, max_extremes: int = 4096,
                             *, normalized: bool = False, reduction: str = "mean",
                             rng: np.random.Generator | int | None = 0) -> tuple[np.ndarray, dict]:
    """Gradients (flattened theta) at every choice h in {alpha, 1}^K on the K ambiguous pairs.

    Returns ``(G, info)``: ``G`` has shape (E, m d + m), one row per choice; ``info`` holds ``pairs`` (K x 2
    array of (neuron, point)), ``choices`` (E x K array of h values), ``sampled`` (True when 2^K >
    ``max_extremes`` and E = ``max_extremes`` choices were drawn uniformly with ``rng`` instead of all).
    Their convex hull is the pairwise outer approximation of the Clarke subdifferential (see
    :func:`min_norm_subgradient`).  Batched input returns a list of such pairs (one per batch element; the
    sizes differ, so this loops over the batch).
    """
    W, a = _check_net(W, a, X)
    if W.ndim == 3:
        return [clarke_extreme_gradients(W[b], a[b], X, y, alpha, loss, kink_tol, max_extremes,
                                         normalized=normalized, reduction=reduction, rng=rng)
                for b in range(W.shape[0])]
    g0, A, pairs = _ambiguous_decomposition(W, a, X, y, alpha, loss, kink_tol, normalized, reduction)
    K = len(pairs)
    sampled = K >= 63 or 2 ** K > max_extremes
    if sampled:
        gen = np.random.default_rng(rng)
        bits = gen.integers(0, 2, size=(max_extremes, K)).astype(bool)
    else:
        bits = np.array(list(itertools.product([False, True], repeat=K)), dtype=bool).reshape(2 ** K, K)
    choices = np.where(bits, 1.0, alpha)
    G = g0[None, :] + choices @ A.T
    return G, {"pairs": pairs, "choices": choices, "sampled": bool(sampled), "n_ambiguous": K}


def min_norm_subgradient(W: np.ndarray, a: np.ndarray, X: np.ndarray, y: np.ndarray, alpha: float = 0.0,
                         loss: str | Loss = "logistic", kink_tol: float = 1e-12, *, normalized: bool = False,
                         reduction: str = "mean") -> tuple[np.ndarray, np.ndarray, dict]:
    """Minimum-norm element of {g0 + A h : h in [alpha, 1]^K} (box-constrained least squares, lsq_linear).

    This set treats each ambiguous pair's derivative h_ki independently; it contains the Clarke
    subdifferential of L (chain rule inclusion) and equals it whenever the ambiguous pairs can be switched
    independently (e.g. a single ambiguous pair, or pairs on distinct neurons with distinct points).
    ``info``: ``h`` (the minimiser), ``pairs``, ``norm`` (recomputed ||g0 + A h||), ``status``/``message`` of
    lsq_linear, ``optimality`` (recomputed projected-gradient residual of the box QP: max over coordinates
    of |h - clip(h - A^T r, alpha, 1)|, 0 at the exact minimiser).  Batched input returns a list.
    """
    W, a = _check_net(W, a, X)
    if W.ndim == 3:
        return [min_norm_subgradient(W[b], a[b], X, y, alpha, loss, kink_tol, normalized=normalized,
                                     reduction=reduction) for b in range(W.shape[0])]
    m, d = W.shape
    g0, A, pairs = _ambiguous_decomposition(W, a, X, y, alpha, loss, kink_tol, normalized, reduction)
    K = len(pairs)
    info: dict = {"pairs": pairs, "n_ambiguous": K}
    if K == 0 or alpha >= 1.0:
        h = np.full(K, float(alpha))
        info.update(status=0, message="no ambiguous pairs" if K == 0 else "alpha = 1: phi is linear")
    else:
        res = lsq_linear(A, -g0, bounds=(alpha, 1.0), method="bvls", tol=1e-15)
        h = np.clip(res.x, alpha, 1.0)
        info.update(status=int(res.status), message=str(res.message))
    g = g0 + A @ h
    grad_h = A.T @ g
    info.update(h=h, norm=float(np.linalg.norm(g)),
                optimality=float(np.max(np.abs(h - np.clip(h - grad_h, alpha, 1.0)), initial=0.0)))
    dW, da = unflatten_params(g, m, d)
    return dW, da, info
