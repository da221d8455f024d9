"""Shared pieces for Min, Mallada & Vidal (2024): the paper's sets, explicit constants (App. C, D),
hypothesis predicates (Assumptions 1-2, init (3), the eps condition (28)), the paper's losses and field on
top of :mod:`verify.numerics.nets`, and the cached simulation at the theorem's own initialisation scale
(polar / log-norm state, :func:`verify.numerics.flow.simulate_log_scale`).

Conventions (spec §0): descent flow, **sum** loss, ``s_j = sign(v_j(0))``, ``X`` rows are points,
``W0`` rows are neuron shapes, ``W(0) = eps W0``, ``X_max/X_min`` = max/min data norm and
``W_max/W_min`` = max/min row norm of ``W0``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from verify import hypothesis
from verify.numerics.flow import simulate_log_scale
from verify.numerics.nets import (
    Loss,
    activation_derivative,
    forward,
    get_loss,
    gradient,
    loss_value,
    loss_weights,
    scaled_loss,
)

DELTA = 1e-6        # zeta = (1 - DELTA) * best zeta (spec §1.8)
MEMBER_TOL = 1e-9   # activation band tau = MEMBER_TOL * X_max (spec §3.0)

PLUS, MINUS, DEAD, OTHER = 1, -1, 0, 2

# ---------------------------------------------------------------------------------------------
# Losses and the flow field (sum loss, sigma'(0) = leak: the regular solution, Def. 1)

LOSSES = {"exp": get_loss("exponential"), "logistic": get_loss("logistic"),
          "logistic2": scaled_loss("logistic", 2.0)}
"""The fixtures' margin losses: ``e^{-q}``, ``log(1 + e^{-q})`` and App. B's ``2 log(1 + e^{-q})``."""


def margin_loss(name: str) -> Loss:
    """The :class:`~verify.numerics.nets.Loss` named ``name`` in :data:`LOSSES`."""
    return LOSSES[name]


def neg_loss_derivative(loss: str, y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``g_i = -dl/dyhat (y_i, f_i) = y_i (-l'(y_i f_i))`` (the paper's ``g_i``)."""
    return y * loss_weights(y * f, margin_loss(loss), reduction="sum")


def total_loss(loss: str, y: np.ndarray, f: np.ndarray) -> float:
    """``L = sum_i l(y_i f_i)`` (the paper's summed loss, in log domain)."""
    return float(loss_value(y * f, margin_loss(loss), reduction="sum"))


def flow_field(W: np.ndarray, v: np.ndarray, X: np.ndarray, y: np.ndarray, loss: str = "exp",
               leak: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(dW/dt, dv/dt) = -grad L`` of the sum loss with ``sigma'(0) = leak`` (``1[z > 0]`` for ReLU)."""
    dW, dv = gradient(W, v, X, y, alpha=leak, loss=margin_loss(loss), at_kink=leak, reduction="sum")
    return -dW, -dv


def polar_outputs(X: np.ndarray, U: np.ndarray, rho: np.ndarray, s: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """``e^{-2 shift} f(x_i) = sum_j s_j e^{2 (rho_j - shift)} relu(<u_j, x_i>)`` (balanced polar state)."""
    return forward(U, s * np.exp(2.0 * (rho - shift)), X)


def polar_velocity(U: np.ndarray, rho: np.ndarray, s: np.ndarray, X: np.ndarray, y: np.ndarray,
                   loss: str = "exp") -> tuple[np.ndarray, np.ndarray]:
    """The balanced flow in polar form at unit directions ``U``: ``(du_j/dt, d rho_j/dt) = (s_j (I - u_j u_j^T)
    z_j, s_j <u_j, z_j>)`` with ``z_j = sum_i g_i 1[<x_i, u_j> > 0] x_i`` (finite however small ``e^{rho}``)."""
    g = neg_loss_derivative(loss, y, polar_outputs(X, U, rho, s))
    Z = (activation_derivative(U @ X.T, 0.0, at_kink=0.0) * g[None, :]) @ X
    uz = np.sum(U * Z, axis=1)
    return s[:, None] * (Z - uz[:, None] * U), s * uz


# ---------------------------------------------------------------------------------------------
# Data quantities


def signed_units(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``u_i = y_i x_i / ||x_i||`` (rows)."""
    return y[:, None] * X / np.linalg.norm(X, axis=1, keepdims=True)


def mu_of(X: np.ndarray, y: np.ndarray) -> float:
    """Assumption 1: ``mu = min_{i != j} <u_i, u_j>`` (1 when n = 1)."""
    U = signed_units(X, y)
    G = U @ U.T
    if len(y) < 2:
        return 1.0
    return float(G[~np.eye(len(y), dtype=bool)].min())


def lemma9_witness(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 9's constructive pair: x1 = u_k (in K) and x2 = normalise(u_k - (mu + 1e-7) u_i) (outside S+ u S-)
    for the least-correlated signed pair (i, k), mu = <u_i, u_k>; 1 - cos^2(x1, x2) bounds any admissible xi of
    (27) from above."""
    U = signed_units(X, y)
    G = U @ U.T
    np.fill_diagonal(G, np.inf)
    i, k = np.unravel_index(np.argmin(G), G.shape)
    x2 = U[k] - (G[i, k] + 1e-7) * U[i]
    return U[k], x2 / np.linalg.norm(x2)


def class_sums(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unnormalised ``x_+ = sum_{I+} x_i`` and ``x_- = sum_{I-} x_i``."""
    return X[y > 0].sum(0), X[y < 0].sum(0)


def cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine between the rows of ``a`` (or a vector) and the vector ``b``."""
    a = np.atleast_2d(a)
    return (a @ b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b))


def membership(X: np.ndarray, y: np.ndarray, U: np.ndarray, tau: float) -> np.ndarray:
    """Per neuron (rows of ``U``, any leading axes): PLUS (in S+), MINUS (in S-), DEAD (in S_dead) or OTHER,
    with activation ``<x_i,u> > tau``.

    ``S+ = {z: <x_i,z> > 0 on I+, <= 0 on I-}``, ``S-`` symmetric, ``S_dead = {z: <x_i,z> <= 0 all i}``
    (the paper's displayed S_dead is a copy of S-; spec E5).
    """
    act = (U @ X.T) > tau
    pos, neg = y > 0, y < 0
    out = np.full(U.shape[:-1], OTHER)
    out[act[..., pos].all(-1) & ~act[..., neg].any(-1)] = PLUS
    out[act[..., neg].all(-1) & ~act[..., pos].any(-1)] = MINUS
    out[~act.any(-1)] = DEAD
    return out


# ---------------------------------------------------------------------------------------------
# Explicit constants (spec §1.8)


@dataclass(frozen=True)
class Constants:
    n: int
    n_pos: int
    n_neg: int
    h: int
    mu: float
    x_max: float
    x_min: float
    w_max: float
    w_min: float
    zeta1: float       # best cap constant of Lemma 8 (times 1 - DELTA)
    zeta2: float       # best init-exclusion constant of (26) (times 1 - DELTA)
    zeta: float        # min(zeta1, zeta2) (the paper prints max; spec E10)
    xi: float          # Lemma 9: mu^2 exactly
    m: float           # min(zeta, xi)
    log_eps1: float    # (28)
    log_eps2: float    # (28)
    t1: float          # 16 log n / (m sqrt(mu) X_min)
    rate_alpha: float  # (mu X_min)^2 / (32 X_max)

    @property
    def log_eps_theorem(self) -> float:
        return min(self.log_eps1, self.log_eps2)

    def T(self, log_eps: float) -> float:
        """Length of the alignment phase (Lemmas 1, 3): ``log(1/(sqrt(h) eps)) / (4 n X_max)``."""
        return (-0.5 * np.log(self.h) - log_eps) / (4 * self.n * self.x_max)

    def log_eps_lemma(self) -> float:
        """Hypothesis of Lemmas 1, 3: ``eps <= 1/(4 sqrt(h) X_max W_max^2)``."""
        return -np.log(4 * np.sqrt(self.h) * self.x_max * self.w_max ** 2)

    def t2_bound(self, n_cls: int, log_eps: float) -> float:
        """(36)/(39): ``t1 + 6/(sqrt(mu) n X_min) + 4/(sqrt(mu) n X_min) (log(2/(eps^2 sqrt(mu) X_min
        W_min^2)) + 4 n X_max t1)`` with ``n = n_+`` or ``n_-``."""
        a = np.sqrt(self.mu) * n_cls * self.x_min
        lg = np.log(2.0) - 2 * log_eps - np.log(np.sqrt(self.mu) * self.x_min * self.w_min ** 2)
        return self.t1 + 6 / a + 4 / a * (lg + 4 * self.n * self.x_max * self.t1)


def zeta1_star(X: np.ndarray, y: np.ndarray) -> float:
    """Best Lemma-8 constant: ``min_i min(cos^2(x_+, u_i), cos^2(-x_-, u_i))`` (spec §1.8)."""
    xp, xm = class_sums(X, y)
    U = signed_units(X, y)
    return float(min((cos(U, xp) ** 2).min(), (cos(U, -xm) ** 2).min()))


def one_minus_cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1 - cos between the rows of ``a`` and the vector ``b`` without cancellation near cos = 1:
    ||a/|a| - b/|b|||^2 / 2."""
    a = np.atleast_2d(a)
    d = a / np.linalg.norm(a, axis=1, keepdims=True) - b / np.linalg.norm(b)
    return 0.5 * np.sum(d * d, axis=1)


def zeta2_star(X: np.ndarray, y: np.ndarray, W0: np.ndarray, s: np.ndarray) -> float:
    """Best (26) constant: ``1 - c^2``, ``c = max(0, max_{V+} cos(w_j, x_-), max_{V-} cos(w_j, x_+))``, as
    (1 - c)(1 + c) with 1 - c from :func:`one_minus_cos` (``1 - c*c`` loses all but a few digits when an initial
    neuron is nearly parallel to the other class's sum: at c = 1 - 1e-10 it is off by ~1e-6 relative)."""
    xp, xm = class_sums(X, y)
    c, omc = 0.0, 1.0
    for sel, ref in ((s > 0, xm), (s < 0, xp)):
        if sel.any():
            k = int(np.argmax(cos(W0[sel], ref)))
            ck = float(cos(W0[sel], ref)[k])
            if ck > c:
                c, omc = ck, float(one_minus_cos(W0[sel][k], ref)[0])
    return omc * (1.0 + c)


def constants(X: np.ndarray, y: np.ndarray, W0: np.ndarray, s: np.ndarray) -> Constants:
    n, h = len(y), W0.shape[0]
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    mu = mu_of(X, y)
    xn, wn = np.linalg.norm(X, axis=1), np.linalg.norm(W0, axis=1)
    x_max, x_min, w_max, w_min = float(xn.max()), float(xn.min()), float(wn.max()), float(wn.min())
    z1 = (1 - DELTA) * zeta1_star(X, y)
    z2 = (1 - DELTA) * zeta2_star(X, y, W0, s)
    zeta, xi = min(z1, z2), mu * mu
    m = min(zeta, xi)
    smu = np.sqrt(max(mu, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_eps1 = float(np.log(min(mu, zeta, xi) * smu * x_min / (4 * np.sqrt(h) * n * x_max ** 2 * w_max ** 2)))
        log_eps2 = float(-0.5 * np.log(h) - 64 * n * x_max * np.log(n) / (m * smu * x_min))
        t1 = float(16 * np.log(n) / (m * smu * x_min))
    return Constants(n, n_pos, n_neg, h, mu, x_max, x_min, w_max, w_min, z1, z2, zeta, xi, m, log_eps1,
                     log_eps2, t1, (mu * x_min) ** 2 / (32 * x_max))


def fixture_constants(fx) -> Constants:
    return constants(fx["X"], fx["y"], fx["W0"], fx["s"])


def log_eps_of(fx) -> float:
    """The fixture's ``log eps`` (see :mod:`fixtures.min2024`)."""
    if fx["eps_rule"] == "theorem":
        return fixture_constants(fx).log_eps_theorem + fx["eps_shift"]
    if fx["eps_rule"] == "lemma":
        return fixture_constants(fx).log_eps_lemma() + fx["eps_shift"]
    if fx["eps_rule"] == "lemma_gap":
        # a fraction eps_shift of the way (in log) from the lemmas' edge to 1/sqrt(h), where T reaches 0
        c = fixture_constants(fx)
        return c.log_eps_lemma() + fx["eps_shift"] * (-0.5 * np.log(c.h) - c.log_eps_lemma())
    return float(fx["log_eps"])


# ---------------------------------------------------------------------------------------------
# Hypotheses (checked by the runner on every fixture)


def _a1(fx):
    if "X" not in fx:  # the one-point examples of App. E: mu = 1
        return True, 1.0, "single data point: mu = 1"
    X, y = fx["X"], fx["y"]
    mu = mu_of(X, y)
    return mu > 0, mu, f"mu = {mu:.6g}"


def _a2(fx):
    X, y, W0, s = fx["X"], fx["y"], fx["W0"], fx["s"]
    if not ((y > 0).any() and (y < 0).any()):
        return False, None, "a class is empty: x_+ or x_- = 0"
    z2 = zeta2_star(X, y, W0, s)
    return z2 > 0, z2, f"zeta2* = 1 - c^2 = {z2:.6g}"


def _init(fx):
    if "W0" not in fx:  # the one-neuron examples of App. E
        ok = abs(abs(fx["v0"]) - float(np.linalg.norm(fx["w0"]))) == 0
        return ok, None, "one neuron, v(0) = ||w(0)||"
    W0, s = fx["W0"], fx["s"]
    nz = float(np.linalg.norm(W0, axis=1).min())
    balanced = fx.get("imbalance", 1.0) == 1.0
    ok = nz > 0 and set(np.unique(s)) <= {-1.0, 1.0} and balanced
    return ok, nz, ("balanced by construction v_j(0) = s_j ||w_j(0)||" if balanced else
                    f"unbalanced: v_j(0) = {fx['imbalance']:g} s_j ||w_j(0)||") + "; min column norm of W0"


def _eps_theorem(fx):
    c = fixture_constants(fx)
    le = log_eps_of(fx)
    return le <= c.log_eps_theorem, c.log_eps_theorem - le, (
        f"log eps = {le:.6g}, log eps1 = {c.log_eps1:.6g}, log eps2 = {c.log_eps2:.6g}")


def _eps_lemma(fx):
    c = fixture_constants(fx)
    le = log_eps_of(fx)
    return le <= c.log_eps_lemma(), c.log_eps_lemma() - le, f"log eps = {le:.4g} vs {c.log_eps_lemma():.4g}"


A1 = hypothesis("Assumption 1 (well-separated data, mu > 0)", _a1,
                description="mu = min_{i,j} <x_i y_i, x_j y_j>/(|x_i||x_j|) > 0")
A2 = hypothesis("Assumption 2 (no V+ neuron along x_-, no V- neuron along x_+)", _a2,
                description="max_{V+} cos(w_j(0), x_-) < 1 and max_{V-} cos(w_j(0), x_+) < 1")
INIT = hypothesis("init (3): W(0) = eps W0, columns nonzero, balanced v_j(0) = +-||w_j(0)||", _init)
EPS_THM = hypothesis("eps <= min(eps1, eps2) (eq. 28)", _eps_theorem)
EPS_LEM = hypothesis("eps <= 1/(4 sqrt(h) X_max W_max^2) (Lemmas 1, 3)", _eps_lemma)
THEOREM_HYPS = [A1, A2, INIT, EPS_THM]


# ---------------------------------------------------------------------------------------------
# The theorem's simulation at its own eps (polar state), cached per fixture


@dataclass
class Run:
    """A polar trajectory with its fixture data and constants: unit directions ``U[k]`` (h, D) and log-norms
    ``rho[k]`` (h,) at the saved times ``t[k]``; ``ok``, ``message``, ``nsteps`` report the integrator."""

    X: np.ndarray
    y: np.ndarray
    s: np.ndarray
    c: Constants
    log_eps: float
    loss: str
    t: np.ndarray
    U: np.ndarray
    rho: np.ndarray
    ok: bool
    message: str
    nsteps: int
    events: tuple = ()   # the event-driven integrator's (t, kind, neuron, point): "cross", "slide", "exit"

    @property
    def tau(self) -> float:
        return MEMBER_TOL * self.c.x_max

    def members(self, k: int) -> np.ndarray:
        return membership(self.X, self.y, self.U[k], self.tau)

    def outputs(self, k: int, mask: np.ndarray | None = None) -> np.ndarray:
        """``f(x_i)`` at saved state ``k`` (0 where it underflows), restricted to neurons ``mask``."""
        U, rho, s = self.U[k], self.rho[k], self.s
        if mask is not None:
            U, rho, s = U[mask], rho[mask], s[mask]
        return polar_outputs(self.X, U, rho, s)

    def outputs_all(self, mask: np.ndarray | None = None, start: int = 0) -> np.ndarray:
        """``outputs(k, mask)`` for every saved state ``k >= start`` at once, shape (T - start, n): one batched
        polar_outputs call (its operations element for element, as the per-state calls)."""
        U, rho, s = self.U[start:], self.rho[start:], self.s
        if mask is not None:
            U, rho, s = U[:, mask], rho[:, mask], s[mask]
        return polar_outputs(self.X, U, rho, s)

    def loss_at(self, k: int) -> float:
        return total_loss(self.loss, self.y, self.outputs(k))


def time_grid(t_end: float, t_fit: float | None = None, t_fine: float = 5.0, n_fine: int = 501,
              n_log: int = 400, n_lin: int = 1500, per_decade: int = 20) -> np.ndarray:
    """A grid fine on [0, t_fine] (alignment), geometric and linear up to ``t_fit`` (the fitting phase;
    ``t_end`` when not given), and ``per_decade`` geometric points per decade from ``t_fit`` to ``t_end``
    (the late phase, where the loss decays like 1/t and the norm grows like log t)."""
    t_fit = t_end if t_fit is None else min(t_fit, t_end)
    fine = np.linspace(0.0, min(t_fine, t_fit), n_fine)
    parts = [fine]
    if t_fit > t_fine:
        parts += [np.geomspace(t_fine, t_fit, n_log), np.linspace(0, t_fit, n_lin)]
    if t_end > t_fit:
        parts.append(np.geomspace(t_fit, t_end, int(np.ceil(per_decade * np.log10(t_end / t_fit))) + 1))
    return np.unique(np.concatenate(parts))


NON_A1_HORIZON = 12.0   # simulated horizon on data violating Assumption 1 (negative controls)
EULER_STEP = 2e-3       # step of the Euler fallback there


def euler_polar(X: np.ndarray, y: np.ndarray, W0: np.ndarray, rho0: np.ndarray, s: np.ndarray, dt: float,
                steps: int, loss: str = "exp", record_every: int = 1
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool, str]:
    """Fixed-step explicit Euler on the polar field (GD with step ``dt`` up to O(dt^2) per step), directions
    renormalised after every step: the fallback where the event-driven flow stops at a Zeno point (data with
    ``mu <= 0``; :mod:`verify.numerics.flow` has no polar GD).  Returns ``(t, U[k], rho[k], ok, message)``;
    on a non-finite state the record stops there with ``ok = False``."""
    U = W0 / np.linalg.norm(W0, axis=1, keepdims=True)
    rho = np.array(rho0, float)
    ts, Us, rhos = [0.0], [U], [rho]
    for k in range(1, steps + 1):
        dU, drho = polar_velocity(U, rho, s, X, y, loss)
        U = U + dt * dU
        U = U / np.linalg.norm(U, axis=1, keepdims=True)
        rho = rho + dt * drho
        if not (np.all(np.isfinite(U)) and np.all(np.isfinite(rho))):
            return np.asarray(ts), np.asarray(Us), np.asarray(rhos), False, f"euler diverged at step {k}"
        if k % record_every == 0:
            ts.append(k * dt)
            Us.append(U)
            rhos.append(rho)
    return np.asarray(ts), np.asarray(Us), np.asarray(rhos), True, "euler"


@functools.lru_cache(maxsize=16)
def _run_cached(key: tuple, fx_holder: _Holder, t_end: float, extra_grid: tuple, t_fit: float | None) -> Run:
    fx = fx_holder.fx
    X, y, W0, s = fx["X"], fx["y"], fx["W0"], fx["s"]
    c = fixture_constants(fx)
    le = log_eps_of(fx)
    rho0 = le + np.log(np.linalg.norm(W0, axis=1))
    if mu_of(X, y) <= 0:  # Assumption 1 fails: t1 and the fit horizon are infinite, and sliding modes are frequent
        t_end = min(t_end, NON_A1_HORIZON)
    grid = np.unique(np.concatenate([time_grid(t_end, t_fit), np.asarray(extra_grid, float)]))
    grid = grid[grid <= t_end]
    # atol 1e-14: with 1e-12 one DOP853 step across the fitting transition let a 1.5e-4 error in rho through
    # (min.wellsep.imbalanced; 2e-7 with 1e-14 against an rtol-1e-12 reference, at 10% more cost)
    flow = simulate_log_scale(W0, rho0, s, X, y, loss=margin_loss(fx["loss"]), reduction="sum", t_end=t_end,
                              t_eval=grid, rtol=1e-10, atol=1e-14)
    h = flow.history
    if not flow.success and mu_of(X, y) <= 0:  # e.g. a Zeno point on orthogonal data (mu = 0)
        dt = EULER_STEP
        t, U, rho, ok, msg = euler_polar(X, y, W0, rho0, s, dt, int(t_end / dt), fx["loss"], record_every=5)
        return Run(X, y, s, c, le, fx["loss"], t, U, rho, ok, f"{msg} (after: {flow.message})", int(t_end / dt))
    return Run(X, y, s, c, le, fx["loss"], h["t"], h["directions"], h["log_norms"], bool(flow.success),
               flow.message, int(flow.nsteps), tuple(flow["events"]))


class _Holder:
    """Hashable by key only, so lru_cache keys on the fixture identity, not the arrays."""

    def __init__(self, fx, key):
        self.fx, self.key = fx, key

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Holder) and other.key == self.key


def theorem_run(fx, t_end: float, extra_grid: tuple = (), t_fit: float | None = None) -> Run:
    """The polar-flow trajectory of the fixture up to ``t_end`` (cached per fixture and horizon); the saved
    grid is fine up to ``t_fit`` and geometric after it (:func:`time_grid`)."""
    key = (fx.family, repr(sorted(fx.params.items())), fx.seed)
    return _run_cached(key, _Holder(fx, key), float(t_end), tuple(extra_grid),
                       None if t_fit is None else float(t_fit))


ALIGN_CAP = 200.0   # alignment runs stop here when t1 is larger; later times are certified by Lemma 12
LATE_DECADES = 12   # the "fit" runs go on for this many decades of time past the fitting onset (late phase)


def fit_horizon(c: Constants, log_eps: float, X: np.ndarray, y: np.ndarray, factor: float = 1.6) -> float:
    """A horizon past the fitting onset: ``factor * |log eps| / min(||x_+||, ||x_-||)`` (after alignment
    ``d rho_j/dt -> ||x_+-||`` while ``f`` underflows, so the fit starts near ``|log eps| / ||x_+-||``), and at
    least ``1.2 t1``."""
    xp, xm = class_sums(X, y)
    rate = min(np.linalg.norm(xp), np.linalg.norm(xm))
    return max(factor * abs(log_eps) / rate, 1.2 * c.t1)


@dataclass
class Phases:
    """A run split at ``t1``: memberships over time and the post-alignment sets (App. D)."""

    run: Run
    mem: np.ndarray        # (K, h) membership codes
    k1: int                # first saved index with t >= t1
    v_plus: np.ndarray     # V~+ = {j: w_j(t1) in S+}
    v_minus: np.ndarray
    v_dead: np.ndarray

    @property
    def after(self) -> np.ndarray:
        return np.arange(self.k1, len(self.run.t))


def phases(fx, horizon: str = "fit") -> Phases:
    """The fixture's run to ``min(1.2 t1, ALIGN_CAP)`` (``horizon="align"``) or past the fitting onset and
    ``LATE_DECADES`` decades of the late phase beyond it (``"fit"``)."""
    c = fixture_constants(fx)
    le = log_eps_of(fx)
    t1 = c.t1 if np.isfinite(c.t1) else 50.0
    if horizon == "align":
        r = theorem_run(fx, min(1.2 * t1, ALIGN_CAP), extra_grid=(t1,))
    else:
        t_fit = fit_horizon(c, le, fx["X"], fx["y"])
        r = theorem_run(fx, t_fit * 10.0 ** LATE_DECADES, extra_grid=(t1,), t_fit=t_fit)
    mem = membership(r.X, r.y, r.U, r.tau)
    k1 = int(np.searchsorted(r.t, t1 * (1 - 1e-12)))
    k1 = min(k1, len(r.t) - 1)
    m1 = mem[k1]
    return Phases(r, mem, k1, m1 == PLUS, m1 == MINUS, m1 == DEAD)


def _vtilde(fx):
    if not (_a1(fx)[0] and _a2(fx)[0]):
        return False, None, "needs Assumptions 1-2 to define V~"
    p = phases(fx)
    return bool(p.v_plus.any() and p.v_minus.any()), float(min(p.v_plus.sum(), p.v_minus.sum())), (
        f"|V~+| = {p.v_plus.sum()}, |V~-| = {p.v_minus.sum()}, |V~dead| = {p.v_dead.sum()}")


VTILDE = hypothesis("V~+ and V~- nonempty (Thm 1 part 2)", _vtilde,
                    description="some neuron in S+ and some in S- at t1 (decided on the simulated trajectory)")


# ---------------------------------------------------------------------------------------------
# The alignment phase in the exact eps -> 0 limit, and series of it over mu and n (rate checks)

LIMIT_LOG_EPS = -1.0e4   # e^{2 rho} underflows to 0 over the whole run: f = 0 exactly, the eps -> 0 flow
LIMIT_DT = 0.01          # resolution of the saved grid (t_align is an upper estimate within it)


@dataclass
class LimitAlignment:
    """An alignment-phase run in the exact eps -> 0 limit (directions only; ``f = 0``).

    ``t_align``: the first saved time from which every V+ neuron is in S+ or S_dead and every V- neuron in
    S- or S_dead (inf when not reached within the horizon); ``dwell``: the longest constant-pattern interval
    of a neuron outside ``S_sign(v_j) u S_dead`` times its number of active points ``n_a`` (App. C.2 bounds
    it by ``4 / (min{zeta, xi} sqrt(mu) X_min)``), over the intervals that end within the horizon."""

    t: np.ndarray
    mem: np.ndarray
    t_align: float
    dwell: float
    intervals: int
    ok: bool
    message: str


def dwell_intervals(t: np.ndarray, on: np.ndarray, mem: np.ndarray, s: np.ndarray,
                    t_max: float = np.inf) -> list[tuple[float, int]]:
    """``(length, n_a)`` of every maximal constant-pattern interval of a neuron outside ``S_sign(v_j) u S_dead``
    on the saved grid (``on[k, j, i]`` = x_i activates w_j at ``t[k]``); the length is an upper estimate (from
    the saved time before the interval to its end); an interval still open at the horizon or ending after
    ``t_max`` is skipped."""
    out = []
    for j in range(on.shape[1]):
        good = PLUS if s[j] > 0 else MINUS
        pats = on[:, j, :]
        change = np.flatnonzero(np.any(pats[1:] != pats[:-1], axis=1)) + 1
        for a, b in zip(np.concatenate([[0], change]), np.concatenate([change, [len(t)]])):
            if b >= len(t) or t[b] > t_max or mem[a, j] in (good, DEAD):
                continue
            out.append((float(t[b] - t[max(a - 1, 0)]), int(pats[a].sum())))
    return out


def limit_alignment(X: np.ndarray, y: np.ndarray, W0: np.ndarray, s: np.ndarray, loss: str = "exp",
                    leak: float = 0.0, t_end: float = 10.0) -> LimitAlignment:
    """The balanced flow from ``W0`` in the exact eps -> 0 limit (log eps = ``LIMIT_LOG_EPS``), saved every
    ``LIMIT_DT``; the horizon is extended 4x once when the configuration is not aligned by ``t_end``."""
    rho0 = LIMIT_LOG_EPS + np.log(np.linalg.norm(W0, axis=1))
    tau = MEMBER_TOL * float(np.linalg.norm(X, axis=1).max())
    for horizon in (t_end, 4 * t_end):
        grid = np.linspace(0.0, horizon, int(round(horizon / LIMIT_DT)) + 1)
        r = simulate_log_scale(W0, rho0, s, X, y, alpha=leak, loss=margin_loss(loss), reduction="sum",
                               t_end=horizon, t_eval=grid, rtol=1e-10, atol=1e-12)
        t, U = r.history["t"], r.history["directions"]
        mem = membership(X, y, U, tau)
        aligned = np.all((mem == s.astype(int)[None, :]) | (mem == DEAD), axis=1)
        if aligned[-1] or not r.success:
            break
    bad = np.flatnonzero(~aligned)
    t_align = 0.0 if bad.size == 0 else float(t[bad[-1] + 1]) if bad[-1] + 1 < len(t) else float("inf")
    spans = dwell_intervals(t, (U @ X.T) > tau, mem, s)
    dwell = max((length * na for length, na in spans), default=0.0)
    return LimitAlignment(t, mem, t_align, float(dwell), len(spans), bool(r.success), r.message)


def rebuild(fx, **overrides) -> dict:
    """The fixture's family rebuilt from the fixture's own seed with some parameters changed (the same random
    draws, so that only the changed parameter varies along a series)."""
    return fx.use.family.build(np.random.default_rng(fx.seed), **{**fx.params, **overrides})


def scaled_sizes(fx, factor: int) -> dict:
    """Class sizes of the fixture times ``factor`` (the n-series keeps the class ratio)."""
    return {"n_pos": max(1, int(fx.params["n_pos"]) * factor), "n_neg": max(1, int(fx.params["n_neg"]) * factor)}


def limit_series(fx, values: tuple, key: str) -> tuple[np.ndarray, list[LimitAlignment], list[Constants]]:
    """eps -> 0 alignment runs on the fixture's data rebuilt along ``values`` of ``key`` (``"mu"``, or ``"n"``
    for class sizes scaled by each value), with the fixture's loss; returns the x-values (mu, or n), the
    runs and the data's constants."""
    xs, runs, consts = [], [], []
    for v in values:
        d = rebuild(fx, **({"mu": float(v)} if key == "mu" else scaled_sizes(fx, int(v))))
        runs.append(limit_alignment(d["X"], d["y"], d["W0"], d["s"], d.get("loss", "exp")))
        c = constants(d["X"], d["y"], d["W0"], d["s"])
        consts.append(c)
        xs.append(c.mu if key == "mu" else c.n)
    return np.array(xs, float), runs, consts
