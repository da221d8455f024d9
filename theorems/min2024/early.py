"""Early-phase and algebraic claims of Min, Mallada & Vidal (2024): Lemmas 1-4, 10, 15, balancedness
(C-BAL), the sign identity (46), the growth bound (50), and Remark 4. Lemmas 1, 3 and C-BAL run the flow
in the direct (W, v) coordinates at moderate eps (so balancedness is not enforced by construction);
Lemmas 4, 10, (46), (50), 15 are instantaneous statements checked on random states.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from fixtures.min2024 import loss_only, states, wellsep
from verify import Evidence, adversarial, claim, hypothesis, judge_slope, negative, not_checkable, random
from verify.numerics.flow import integrate_flow
from verify.numerics.nets import forward, unflatten_params

from .common import (
    A1,
    EPS_LEM,
    INIT,
    fixture_constants,
    flow_field,
    log_eps_of,
    margin_loss,
    mu_of,
    neg_loss_derivative,
    total_loss,
)

LEM_BASE = dict(n_pos=3, n_neg=3, D=4, mu=0.6, h=8, eps_rule="lemma")
LEM_FIXTURES = [
    random(wellsep, **{**LEM_BASE, "eps_shift": -3.0}),
    random(wellsep, label="min.wellsep.leaky", **{**LEM_BASE, "eps_shift": -6.0, "leak": 0.5}),
    adversarial(wellsep, label="min.wellsep.at_eps_lemma", **{**LEM_BASE, "eps_shift": 0.0}),
    adversarial(wellsep, label="min.wellsep.leak1", **{**LEM_BASE, "eps_shift": -3.0, "leak": 1.0}),
    adversarial(wellsep, label="min.wellsep.tiny_eps", **{**LEM_BASE, "eps_shift": -15.0}),
    adversarial(wellsep, label="min.wellsep.all_vplus", **{**LEM_BASE, "eps_shift": -3.0, "signs": "random"}),
]
LEM_EXTREMES = ("class extremes: eps at the lemma's edge and 15 e-folds below it, leak 0 (ReLU), 1/2 and 1 "
                "(linear), random output signs")
# eps >= 1/sqrt(h): T <= 0, the printed domain [0, T] is empty (the probe judges nothing: undecided)
LARGE_INIT = negative(wellsep, label="min.wellsep.large_init", **{**LEM_BASE, "eps_rule": "fixed", "log_eps": 0.5})
# eps halfway (in log) between the lemmas' edge 1/(4 sqrt(h) X_max W_max^2) and 1/sqrt(h): the hypothesis is broken
# while T > 0, so the printed conclusions are judged on a non-empty [0, T]
GAP_INIT = negative(wellsep, label="min.wellsep.eps_gap", **{**LEM_BASE, "eps_rule": "lemma_gap", "eps_shift": 0.5})
# a fixture where the neurons grow fast over [0, T] (one class dominates, aligned equal-norm data): the exponent
# of the error in eps is then furthest below 2 (2 - r/(4 n X_max) with r the growth rate of ||w||^2)
GROWING = {**LEM_BASE, "n_pos": 5, "n_neg": 1, "mu": 0.9, "xnorm": (1.0, 1.0), "eps_shift": -3.0}
EPS_SERIES = (-1.0, -2.5, -4.0, -5.5, -7.0)   # log eps - log(1/(4 sqrt(h) X_max W_max^2)) along the rate series


def _direct_run(fx, log_eps: float | None = None, rtol: float = 1e-12, t_end: float | None = None):
    """(t, W[k], v[k], T, eps, ok) of the direct flow from W(0) = eps W0, v(0) = s ||w(0)|| up to T (or 1 if T <= 0:
    the lemmas' domain [0, T] is then empty and their checks judge nothing on it); ``log_eps`` overrides the
    fixture's, ``t_end`` the horizon."""
    c = fixture_constants(fx)
    le = log_eps_of(fx) if log_eps is None else log_eps
    eps = float(np.exp(le))
    W0 = eps * fx["W0"]
    v0 = fx.get("imbalance", 1.0) * fx["s"] * np.linalg.norm(W0, axis=1)
    T = c.T(le)
    if t_end is None:
        t_end = T if T > 0 else 1.0
    res = integrate_flow(W0, v0, fx["X"], fx["y"], alpha=fx["leak"], loss=margin_loss(fx["loss"]), reduction="sum",
                         t_end=t_end, t_eval=np.linspace(0, t_end, 201), rtol=rtol, atol=1e-15 * eps,
                         error_estimate=False)
    W, v = unflatten_params(res.history["theta"], *W0.shape)
    return res.history["t"], W, v, T, eps, res.success


def _empty_domain(ev: Evidence, T: float, what: str) -> Evidence:
    """The lemmas' conclusions quantify over t in [0, T]: with T <= 0 (eps >= 1/sqrt(h)) that set is empty, so
    nothing is judged (vacuous; a probe there is undecided, not a failure)."""
    ev.forall(f"for every t in [0, T]: {what}", np.array([], dtype=bool), relation="true",
              detail=f"T = {T:.3g} <= 0: the printed domain [0, T] is empty")
    ev.record(T=T)
    return ev


def _x_a(X, y, W, leak, Z=None):
    """Leaky ``x_a(w_j) = sum_{active} y_i x_i + leak sum_{inactive} y_i x_i`` per neuron (rows); ``Z`` the
    inner products ``W X^T`` when the caller has them (the activation pattern is then the caller's)."""
    d = np.where((W @ X.T if Z is None else Z) > 0, 1.0, leak)
    return d @ (y[:, None] * X)


def _direction_error(X, y, W, v, s, loss, leak):
    """Per neuron ``|| d/dt (w_j/||w_j||) - s_j P_{w_j} x_a(w_j) ||`` (Lemmas 1, 4), exact from the field.

    The field ``dw_j/dt = v_j sum_i g_i sigma'(<w_j, x_i>) x_i`` (sum loss, ``sigma'(0) = leak``, i.e. ``1[z > 0]``
    for ReLU) and ``x_a(w_j)`` are read from one activation pattern, ``Z = W X^T`` computed once. Where a neuron
    sits on an activation boundary (a neuron that entered S_dead stays on the plane it crossed, ``<w_j, x_i>``
    ~ 1e-26 below the rounding of the product), two separately rounded products (the compiled gradient and a
    BLAS ``W X^T``) can put ``x_i`` on opposite sides, and the error would then compare the field of one region
    with the ``x_a`` of the other; the paper's statement compares the two at the same point."""
    Z = W @ X.T
    H = np.where(Z > 0, 1.0, leak)
    g = neg_loss_derivative(loss, y, forward(W, v, X, leak))
    dW = v[:, None] * ((H * g[None, :]) @ X)
    nrm = np.linalg.norm(W, axis=1, keepdims=True)
    u = W / nrm
    diff = dW / nrm - s[:, None] * _x_a(X, y, W, leak, Z)
    diff -= np.einsum("jd,jd->j", diff, u)[:, None] * u
    return np.linalg.norm(diff, axis=1)


def _boundary_cosine(X, W) -> float:
    """min over neurons and points of |cos(w_j, x_i)|: 0 when a neuron lies on an activation boundary."""
    nw = np.linalg.norm(W, axis=1, keepdims=True)
    nx = np.linalg.norm(X, axis=1)[None, :]
    return float(np.min(np.abs(W @ X.T) / np.maximum(nw * nx, 1e-300)))


def _balance_floor(X, y, W, v, s, leak):
    """The part of the measured direction error due to the integrator's balance drift (the flow keeps v_j = s_j
    ||w_j|| exactly): ``max_j |v_j / (s_j ||w_j||) - 1| ||x_a(w_j)||`` (a numerical floor)."""
    drift = np.abs(v / (s * np.linalg.norm(W, axis=1)) - 1.0)
    return float((drift * np.linalg.norm(_x_a(X, y, W, leak), axis=1)).max())


# The series reaches eps 7 e-folds below the lemma's edge, where the direction error (~1e-9 at eps 1e-5) comes
# within two decades of the balance drift DOP853 leaves at rtol 1e-12 (~3e-11, measured): one decade tighter keeps
# the floor below 1% of the error (thorough seed min.wellsep.at_eps_lemma [2.2]: floor/error 0.016 at rtol 1e-12,
# 0.0014 at 1e-13, with the errors equal to 5 digits).
RTOL_SERIES = 1e-13


def _lemma_series(fx):
    """The lemmas' quantities at ``log eps = log eps_lemma + EPS_SERIES`` on the fixture's data: (eps, max_{j,t<=T}
    direction error, max_{j,t} ||w_j||^2, max_{i,t} |f(x_i)|, max balance floor / error, all runs ok)."""
    c = fixture_constants(fx)
    X, y, s = fx["X"], fx["y"], fx["s"]
    rows, ok = [], True
    for shift in EPS_SERIES:
        t, W, v, T, eps, good = _direct_run(fx, c.log_eps_lemma() + shift, rtol=RTOL_SERIES)
        err = max(float(_direction_error(X, y, W[k], v[k], s, fx["loss"], fx["leak"]).max()) for k in range(len(t)))
        floor = max(_balance_floor(X, y, W[k], v[k], s, fx["leak"]) for k in range(len(t)))
        fmax = max(float(np.abs(forward(W[k], v[k], X, fx["leak"])).max()) for k in range(len(t)))
        rows.append((eps, err, float((W ** 2).sum(2).max()), fmax, floor / err if err > 0 else np.inf))
        ok = ok and good
    return np.array(rows), ok


# The control: the printed constant 1e4 times smaller, refuted on min.wellsep.growing (the family nearest the bound:
# room 1.3e3-3.5e3 at quick, standard and thorough). Two rate controls failed first once judge_slope read eps -> 0
# from the small end: O(eps^2) (the local slope rises toward 2 as eps shrinks, 1.70 -> 1.80, and below
# eps_lemma e^-7 the integrator's balance floor exceeds 1% of the error, so the series cannot go further), then
# O(eps^3), an order the error cannot have (at t = 0 it is already of order eps^2), whose fit on thorough task 8.1
# still drifts 1.50 -> 1.84 across the window: the regime rule cannot tell a drift that stops at 2 from one that
# goes on, so no rate control is decidable on this series.
NAIVE_ORDER = "the bound's constant 4 read as 4e-4 (1e4 times smaller)"


@claim("min2024.lem1", kind="lemma", title="Lemma 1 (formal, App. B.1): directional dynamics before T",
       statement=r"If $\epsilon\le\frac1{4\sqrt hX_{\max}W_{\max}^2}$, then for $t\le T=\frac1{4nX_{\max}}"
       r"\log\frac1{\sqrt h\epsilon}$: $\max_j\|\frac{d}{dt}\frac{w_j}{\|w_j\|}-\mathrm{sign}(v_j(0))P_{w_j}x_a(w_j)\|"
       r"\le4\epsilon n\sqrt hX_{\max}^2W_{\max}^2$ (leaky ReLU allowed).",
       hypotheses=[INIT, EPS_LEM], uses=["min2024.lem3", "min2024.lem4"], fidelity="faithful",
       cannot_fail="the bound is ~2.4e4x loose at the hypothesis' edge; breaking the hypothesis with T > 0 (probe "
       "min.wellsep.eps_gap, eps halfway in log between the edge and 1/sqrt(h), judged on [0, T]) the conclusion "
       "held (room 1.6e3 in quick: T shrinks to 0 as eps -> 1/sqrt(h) while the bound grows with eps); at "
       "eps >= 1/sqrt(h) (large-init control) [0, T] is empty and nothing is judged; the bound with its constant 1e4 times smaller is "
       "refuted",
       fixtures=LEM_FIXTURES + [LARGE_INIT, GAP_INIT,
                                negative(wellsep, label="min.wellsep.growing", mutation=NAIVE_ORDER, **GROWING)],
       judged_by="direct (W, v) flow (integrate_flow: DOP853 region by region, rtol 1e-12; 1e-13 along the eps "
       "series), error from the exact field at 201 times in [0, T], the field and x_a(w_j) read from one activation "
       "pattern (x_a with the paper's strict '> 0', (5): a neuron that entered S_dead on a plane has zero velocity "
       "and zero x_a); the bound is loose and keeps the mark (smallest room 2.4e4 in quick, growing as eps -> 0: the "
       "error is O(eps^{2 - r/(4 n X_max)}), r the growth rate of ||w||^2, while the bound is O(eps)); a rate check "
       "is shown beside it (it pins nothing: its exponent ~1.85 is not the printed 1): along log eps = "
       "log eps_lemma - 1 ... -7 the fitted exponent of the error in eps is >= 1 (the printed O(eps)); the "
       "integrator's balance-drift floor stays below 1% of the error (validity); " + LEM_EXTREMES)
def lem1(fx):
    ev = Evidence()
    c = fixture_constants(fx)
    t, W, v, T, eps, ok = _direct_run(fx)
    if T <= 0:
        return _empty_domain(ev, T, "max_{j, t<=T} direction error <= the bound")
    X, y, s = fx["X"], fx["y"], fx["s"]
    bound = (4e-4 if fx.mutated(NAIVE_ORDER) else 4) * eps * c.n * np.sqrt(c.h) * c.x_max ** 2 * c.w_max ** 2
    err = max(float(_direction_error(X, y, W[k], v[k], s, fx["loss"], fx["leak"]).max()) for k in range(len(t)))
    # A neuron that enters S_dead stays on the plane it crossed (the Caratheodory solution with sigma'(0) = 0,
    # App. E.2; no sliding under Assumption 1, (46)): there d/dt (w_j/||w_j||) = 0 = x_a(w_j) (strict '> 0', (5)).
    # The error reads the field and x_a from one activation pattern (see _direction_error).
    cos = np.array([_boundary_cosine(X, W[k]) for k in range(len(t))])
    ev.show(min_boundary_cosine=float(cos.min()))
    ev.le("max_{j, t<=T} direction error", err, bound, rtol=1e-9)
    ev.record(T=T, eps=eps, error=err, bound=bound, error_over_bound=err / bound)
    if not ok:
        ev.inconclusive("integrator failed")
    if fx.kind == "negative" and not fx.mutation:
        return ev
    rows, ok_series = _lemma_series(fx)
    ev.accuracy("balance-drift floor / measured error along the series", float(rows[:, 4].max()), 0.01)
    if not ok_series:
        ev.inconclusive("integrator failed along the eps series")
    judge_slope("direction error against eps", rows[:, 0], rows[:, 1], relation=">=", atol=0.1,
                predicted=1.0, evidence=ev, xlabel="eps", ylabel="error", toward="zero")
    return ev


not_checkable("min2024.lem1.informal", kind="lemma", title="Lemma 1 (informal, Sec. 3.3)",
              statement=r"If $\epsilon=O(1/\sqrt h)$ there is $T=\Theta(\frac1n\log\frac1{\sqrt h\epsilon})$ with "
              r"$\max_j\|\frac{d}{dt}\frac{w_j}{\|w_j\|}-\mathrm{sign}(v_j(0))P_{w_j}x_a(w_j)\|=O(\epsilon n\sqrt h)$ "
              r"for $t\le T$.",
              reason="asymptotic restatement of the formal Lemma 1 (App. B.1), which is checked with its explicit "
              "constants", uses=["min2024.lem1"])


NO_GROWTH = "norms stay at their initial value before T (no growth during the alignment phase)"


@claim("min2024.lem3", kind="lemma", title="Lemma 3 (norms and outputs stay O(eps) before T)",
       statement=r"For $t\le T$: $\max_j\|w_j\|^2\le\frac{2\epsilon W_{\max}^2}{\sqrt h}$ and "
       r"$\max_i|f(x_i)|\le2\epsilon\sqrt hX_{\max}W_{\max}^2$; Gronwall step (15): $\|w_j(t)\|^2\le "
       r"e^{2n(X_{\max}+4\epsilon\sqrt hX_{\max}^2W_{\max}^2)t}\|w_j(0)\|^2$.",
       hypotheses=[INIT, EPS_LEM], fidelity="faithful",
       cannot_fail="breaking the hypothesis with T > 0 (probe min.wellsep.eps_gap, eps halfway in log between "
       "1/(4 sqrt(h) X_max W_max^2) and 1/sqrt(h), judged on [0, T]) the three bounds held (rooms 5.5, 32 and 14 in "
       "quick): at t = 0 ||w_j||^2 / (2 eps W_max^2/sqrt(h)) <= eps sqrt(h)/2 < 1/2 for every eps < 1/sqrt(h) and T "
       "shrinks to 0 as eps -> 1/sqrt(h), so the hypothesis is sufficient with room, not necessary; at "
       "eps >= 1/sqrt(h) (large-init control) [0, T] is empty and nothing is judged; the no-growth mutation is "
       "refuted",
       fixtures=LEM_FIXTURES + [LARGE_INIT, GAP_INIT, negative(wellsep, mutation=NO_GROWTH, **{**LEM_BASE, "eps_shift": -3.0})],
       judged_by="direct (W, v) flow at 201 times in [0, T]; the Gronwall step as a rate: max_{j, t > 0} "
       "log(||w_j(t)||^2/||w_j(0)||^2)/t against 2n(X_max + 4 eps sqrt(h) X_max^2 W_max^2) (room = the factor by "
       "which the growth rate is overestimated); the O(eps) bounds are loose and keep the mark (smallest rooms 216 "
       "and 1313 in quick, growing as eps -> 0); a rate check is shown beside them (it pins nothing: exponents "
       "~1.8, not the printed 1): along log eps = log eps_lemma - 1 ... -7 the fitted exponents of max ||w||^2 and "
       "max |f| in eps are >= 1 (the printed O(eps)); " + LEM_EXTREMES)
def lem3(fx):
    ev = Evidence()
    c = fixture_constants(fx)
    t, W, v, T, eps, ok = _direct_run(fx)
    if T <= 0:
        return _empty_domain(ev, T, "max_{j,t} ||w_j||^2, max_{i,t} |f(x_i)| and the Gronwall step within their bounds")
    X = fx["X"]
    nw = (W ** 2).sum(2)
    f = np.array([np.abs(forward(W[k], v[k], X, fx["leak"])).max() for k in range(len(t))])
    b_w = 2 * eps * c.w_max ** 2 / np.sqrt(c.h)
    b_f = 2 * eps * np.sqrt(c.h) * c.x_max * c.w_max ** 2
    ev.le("max_{j,t} ||w_j||^2", float(nw.max()), b_w)
    ev.le("max_{i,t} |f(x_i)|", float(f.max()), b_f)
    rate = 2 * c.n * (c.x_max + 4 * eps * np.sqrt(c.h) * c.x_max ** 2 * c.w_max ** 2)
    growth = np.log(nw[1:] / nw[0][None, :]) / t[1:, None]
    ev.le("max_{j, t>0} log(||w_j(t)||^2/||w_j(0)||^2)/t vs the Gronwall rate (15)", float(growth.max()), rate)
    if fx.mutated(NO_GROWTH):
        ev.le("max_{j,t} ||w_j(t)||^2 / ||w_j(0)||^2", float((nw / nw[0][None, :]).max()), 1.0, rtol=1e-9)
    ev.record(norm_over_bound=float(nw.max()) / b_w, output_over_bound=float(f.max()) / b_f,
              growth_rate_over_gronwall=float(growth.max()) / rate)
    if not ok:
        ev.inconclusive("integrator failed")
    if fx.kind == "negative" and not fx.mutation:
        return ev
    rows, ok_series = _lemma_series(fx)
    if not ok_series:
        ev.inconclusive("integrator failed along the eps series")
    judge_slope("max ||w||^2 against eps", rows[:, 0], rows[:, 2], relation=">=", atol=0.1, predicted=1.0,
                evidence=ev, xlabel="eps", ylabel="max ||w_j||^2", toward="zero")
    judge_slope("max |f| against eps", rows[:, 0], rows[:, 3], relation=">=", atol=0.1, predicted=1.0,
                evidence=ev, xlabel="eps", ylabel="max |f|", toward="zero")
    return ev


SUM_CONSERVED = "v_j^2 + ||w_j||^2 conserved (sum in place of difference)"
# The theorem-scale simulator enforces balance by construction, so Theorem 1's verdicts rely on this claim through
# the fitting phase, not only on [0, T] (T ~ 0.13-0.21 here): the direct flow runs to t = 200, where the loss has
# fallen by orders of magnitude (the fitting phase is covered; a validity condition checks it).
BAL_HORIZON = 200.0


@claim("min2024.claim.bal", kind="claim", title="Balancedness and sign preservation (Sec. 2.1)",
       statement=r"Under balanced init, $v_j(t)^2-\|w_j(t)\|^2\equiv0$ and $\mathrm{sign}(v_j(t))=\mathrm{sign}(v_j(0))$.",
       hypotheses=[INIT], fidelity="definitional",
       fidelity_note="d/dt (v_j^2 - ||w_j||^2) = 0 is an algebraic identity of the gradient field (2 v_j dv_j/dt = "
       "2 <w_j, dw_j/dt>), so the check measures how well the integrator preserves it; the sign part cannot fail once "
       "balance holds (v_j = 0 would need w_j = 0, a fixed point)",
       no_room="an invariant judged at the integrator's tolerance and a sign: no printed constant",
       fixtures=LEM_FIXTURES + [
           negative(wellsep, label="min.wellsep.unbalanced", **{**LEM_BASE, "eps_shift": -3.0, "imbalance": 0.5}),
           negative(wellsep, mutation=SUM_CONSERVED, **{**LEM_BASE, "eps_shift": -3.0})],
       judged_by="direct (W, v) flow to t = 200, through the fitting phase (validity: the loss at t = 200 is below "
       "1/2 of its start; the lemmas' T is ~0.13-0.21, the theorem-scale simulator enforces balance by construction "
       "and relies on this claim beyond T): max_t |v_j^2 - ||w_j||^2| / max_j ||w_j||^2 <= 1e-8 at 201 times "
       "(integrate_flow, DOP853 rtol 1e-12: the tolerance is the integrator's, no room); broken hypothesis: "
       "v_j(0) = s_j ||w_j(0)||/2 (unbalanced: the difference is conserved, not 0); " + LEM_EXTREMES)
def bal(fx):
    ev = Evidence()
    t, W, v, T, eps, ok = _direct_run(fx, t_end=BAL_HORIZON)
    nw = (W ** 2).sum(2)
    if fx.mutated(SUM_CONSERVED):
        q = v ** 2 + nw
        dev = float((np.abs(q - q[0][None, :]) / nw.max(1, keepdims=True)).max())
        ev.le("relative drift of v_j^2 + ||w_j||^2", dev, 1e-8, rtol=0.0, room=None)
    else:
        # the printed conclusion is v_j^2 - ||w_j||^2 = 0 at every t (not only conserved)
        dev = float((np.abs(v ** 2 - nw) / nw.max(1, keepdims=True)).max())
        ev.le("max_t |v_j^2 - ||w_j||^2| / max_j ||w_j||^2", dev, 1e-8, rtol=0.0, room=None)
    ev.forall("sign(v_j(t)) = s_j for every neuron", np.all(np.sign(v) == fx["s"][None, :], axis=0), relation="true")
    X, y = fx["X"], fx["y"]
    L0, L1 = (total_loss(fx["loss"], y, forward(W[k], v[k], X, fx["leak"])) for k in (0, -1))
    ev.valid("the horizon reaches the fitting phase: L(200) <= L(0)/2", L1 <= 0.5 * L0,
             detail=f"L(0) = {L0:.4g}, L(200) = {L1:.4g}")
    ev.record(deviation=dev, balance_at_init=float(np.abs(v[0] ** 2 - nw[0]).max() / nw[0].max()), T=T,
              horizon=float(t[-1]), loss_ratio_at_horizon=L1 / L0, norm_growth=float(nw.max() / nw[0].max()))
    if not ok:
        ev.inconclusive("integrator failed")
    return ev


# ---------------------------------------------------------------------------------------------
# Lemma 2 and Remark 4


def _yhat_points(grid: str) -> np.ndarray:
    """The ``yhat`` points of Lemma 2 / Remark 4: the uniform 2e5-point grid on [-1, 1]; with ``grid = "edges"``
    also +-1e-300 ... +-1 (log-spaced, toward the cancellation at 0) and 1 - 1e-16 ... 1 - 1e-1 (toward the
    edge |yhat| = 1) with their negatives."""
    yh = np.linspace(-1, 1, 200001)
    if grid == "edges":
        small = np.logspace(-300, 0, 3001)
        edge = 1.0 - np.logspace(-16, -1, 1501)
        yh = np.concatenate([yh, small, -small, edge, -edge, [0.0]])
    return yh


def _search_excess(excess, yv: float) -> float:
    """Bounded scalar search (scipy ``minimize_scalar``) for ``max excess(yv, yhat)`` on [-1, 0] and [0, 1]
    separately (the excess has a kink at 0): an adversarial search toward a violation."""
    from scipy.optimize import minimize_scalar

    best = -np.inf
    for lo, hi in ((-1.0, 0.0), (0.0, 1.0)):
        r = minimize_scalar(lambda q: -float(excess(yv, np.array([q]))[0]), bounds=(lo, hi), method="bounded",
                            options={"xatol": 1e-14})
        best = max(best, -float(r.fun))
    return best


def _lemma2_excess(loss: str, grid: str = "uniform", c: float = 2.0) -> tuple[float, float]:
    """``max_{|yhat|<=1, y=+-1} (|g - y| - c|yhat|)`` on the points of :func:`_yhat_points` (and, for
    ``grid = "edges"``, a bounded search), and the sympy cross-check error of ``g = -dl/dyhat``."""
    yh = _yhat_points(grid)
    worst, sym_err = -np.inf, 0.0
    Y, F = sp.symbols("y f")
    forms = {"exp": sp.exp(-Y * F), "logistic": sp.log(1 + sp.exp(-Y * F)),
             "logistic2": 2 * sp.log(1 + sp.exp(-Y * F))}
    g_sym = sp.lambdify((Y, F), -sp.diff(forms[loss], F), "numpy")

    def excess(yv, q):
        return np.abs(neg_loss_derivative(loss, np.full_like(q, yv), q) - yv) - c * np.abs(q)

    for yv in (1.0, -1.0):
        g = neg_loss_derivative(loss, np.full_like(yh, yv), yh)
        worst = max(worst, float(excess(yv, yh).max()))
        sym_err = max(sym_err, float(np.abs(g - g_sym(yv, yh)).max()))
        if grid == "edges":
            worst = max(worst, _search_excess(excess, yv))
    return worst, sym_err


LEMMA2_HALF = "bound |yhat| (constant 2 -> 1)"
LOSS_CLASS = hypothesis("the appendix's losses: exponential or 2 log(1 + e^{-q})",
                        lambda fx: (fx["loss"] in ("exp", "logistic2"), None, f"loss {fx['loss']}"),
                        description="App. B's loss class (the main text's log(1 + e^{-q}) is half the second)")


@claim("min2024.lem2", kind="lemma", title="Lemma 2 (loss derivative near 0)",
       statement=r"$|-\frac{\partial\ell}{\partial\hat y}(y,\hat y)-y|\le2|\hat y|$ for $y\in\{\pm1\}$, $|\hat y|\le1$ "
       r"(exponential loss and the appendix's $2\log(1+e^{-y\hat y})$).", hypotheses=[LOSS_CLASS],
       fidelity="faithful", no_room="the excess max(|g - y| - 2|yhat|) is 0 at yhat = 0 (equality), so there is no "
       "ratio room; the constant's power is the mutated constant 1, refuted",
       fixtures=[random(loss_only, loss="exp"), random(loss_only, label="min.loss.logistic2", loss="logistic2"),
                 adversarial(loss_only, label="min.loss.exp.edges", loss="exp", grid="edges"),
                 adversarial(loss_only, label="min.loss.logistic2.edges", loss="logistic2", grid="edges"),
                 negative(loss_only, label="min.loss.logistic_x1", loss="logistic"),
                 negative(loss_only, mutation=LEMMA2_HALF, loss="exp")],
       judged_by="2e5-point grid, the loss derivative cross-checked with sympy (the computation's validity); "
       "adversarial: log-spaced points toward yhat = 0 (1e-300) and |yhat| = 1 plus a bounded search for the "
       "maximal excess; the class of losses: the exponential and the appendix's 2 log(1 + e^{-q}); the main "
       "text's log(1+e^{-y yhat}) is the negative control (spec E3: fails at yhat = 0)")
def lem2(fx):
    ev = Evidence()
    c = 1.0 if fx.mutated(LEMMA2_HALF) else 2.0
    worst, sym = _lemma2_excess(fx["loss"], fx.get("grid", "uniform"), c)
    ev.accuracy("sympy cross-check of -dl/dyhat", sym, 1e-12)
    ev.le(f"max (|g - y| - {c:g}|yhat|)", worst, 0.0, atol=1e-15)
    ev.record(max_excess=worst)
    return ev


def _square_neg_derivative(y: float, yhat: np.ndarray) -> np.ndarray:
    """``-dl_2/dyhat = y - yhat`` for ``l_2 = (y - yhat)^2 / 2`` (Remark 4; not a log-domain margin loss, so not in
    :mod:`verify.numerics.nets`)."""
    return y - yhat


@claim("min2024.rmk4", kind="remark", title="Remark 4 (Lemma 2 for the square loss)",
       statement=r"Lemma 2 also holds for $\ell_2=\frac12(y-\hat y)^2$: $|-\ell_2'-y|=|\hat y|\le2|\hat y|$.",
       uses=["min2024.lem2"], fidelity="definitional",
       no_room="|-l_2' - y| = |yhat| exactly: an identity, 2|yhat| bounds it by construction",
       fixtures=[random(loss_only, label="min.loss.square", loss="square"),
                 adversarial(loss_only, label="min.loss.square.edges", loss="square", grid="edges"),
                 negative(loss_only, mutation="bound |yhat|/2", loss="square")],
       judged_by="2e5-point grid; adversarial: log-spaced points toward yhat = 0 and |yhat| = 1 plus a bounded "
       "search for the maximal excess")
def rmk4(fx):
    ev = Evidence()
    grid = fx.get("grid", "uniform")
    yh = _yhat_points(grid)
    c = 0.5 if fx.mutated() else 2.0

    def excess(yv, q):
        return np.abs(_square_neg_derivative(yv, q) - yv) - c * np.abs(q)

    worst = max(float(excess(yv, yh).max()) for yv in (1.0, -1.0))
    if grid == "edges":
        worst = max(worst, max(_search_excess(excess, yv) for yv in (1.0, -1.0)))
    ev.le("max (|g - y| - c|yhat|)", worst, 0.0, atol=1e-15)
    ev.record(max_excess=worst)
    return ev


# ---------------------------------------------------------------------------------------------
# Random states: Lemmas 4, 10, (46), (50), 15


def _scaled_states(fx, fmax_target: bool = True):
    """Yield ``(W, v, s, max|f|)`` for the fixture's states; with ``fmax_target`` scaled so that
    ``max|f|`` is log-uniform in ``[1e-6, fmax]`` (balanced ``v = s ||w||``, so ``f`` scales as ``c^2``)."""
    X, leak = fx["X"], fx["leak"]
    rng = fx.rng
    for Wr, s, sc in zip(fx["Ws"], fx["S"], fx["scale"]):
        W = Wr * sc
        v = s * np.linalg.norm(W, axis=1)
        f = np.abs(forward(W, v, X, leak)).max()
        if fmax_target and f > 0:
            target = np.exp(rng.uniform(np.log(1e-6), np.log(fx["fmax"])))
            W = W * np.sqrt(target / f)
            v = s * np.linalg.norm(W, axis=1)
        yield W, v, s, float(np.abs(forward(W, v, X, leak)).max())


QUADRATIC = "second order: bound 2 n X_max max|f|^2"
STATE_HYP = hypothesis("balanced states with max|f| <= 1", lambda fx: (fx["fmax"] <= 1.0, 1.0 - fx["fmax"]))


@claim("min2024.lem4", kind="lemma", title="Lemma 4 (instantaneous direction error)",
       statement=r"If $\max_i|f(x_i)|\le1$: $\|\frac{d}{dt}\frac{w_j}{\|w_j\|}-\mathrm{sign}(v_j)P_{w_j}x_a(w_j)\|\le"
       r"2nX_{\max}\max_i|f(x_i)|$ (leaky ReLU allowed).", hypotheses=[STATE_HYP], uses=["min2024.lem2"],
       fidelity="faithful",
       fixtures=[random(states), random(states, label="min.states.leaky", leak=0.3),
                 adversarial(states, label="min.states.fmax1", fmax=1.0, k=400),
                 negative(states, label="min.states.fmax10", fmax=10.0), negative(states, mutation=QUADRATIC)],
       judged_by="exact field on 200 random balanced states (max|f| log-uniform in [1e-6, 1]), every state; "
       "extremes: max|f| = 1 (the hypothesis' edge), leak 0 and 0.3")
def lem4(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    xmax = float(np.linalg.norm(X, axis=1).max())
    power = 2.0 if fx.mutated(QUADRATIC) else 1.0
    ratios = [float(_direction_error(X, y, W, v, s, fx["loss"], fx["leak"]).max() / (2 * len(y) * xmax * fm ** power))
              for W, v, s, fm in _scaled_states(fx)]
    ev.forall(f"error / (2 n X_max max|f|^{power:g}) on every state", ratios, 1.0, relation="<=", rtol=1e-9)
    ev.record(max_ratio=max(ratios))
    return ev


@claim("min2024.lem10", kind="lemma", title="Lemma 10 (reference-direction cosines)",
       statement=r"With $\psi_{rj}=\langle x_r,\frac{w_j}{\|w_j\|}\rangle$ etc.: if $\max_i|f|\le1$, "
       r"$|\frac{d\psi_{rj}}{dt}-\mathrm{sign}(v_j)(\psi_{ra}-\psi_{rj}\psi_{aj})\|x_a\||\le2nX_{\max}\max_i|f(x_i)|$.",
       hypotheses=[STATE_HYP], uses=["min2024.lem4"], fidelity="faithful",
       fixtures=[random(states), adversarial(states, label="min.states.fmax1", fmax=1.0, k=400),
                 negative(states, label="min.states.fmax10", fmax=10.0), negative(states, mutation=QUADRATIC)],
       judged_by="exact field on 200 random states (max|f| log-uniform in [1e-6, 1]) x 20 random unit references, "
       "every state; extreme: max|f| = 1")
def lem10(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    xmax = float(np.linalg.norm(X, axis=1).max())
    R = fx.rng.normal(size=(20, X.shape[1]))
    R /= np.linalg.norm(R, axis=1, keepdims=True)
    ratios = []
    power = 2.0 if fx.mutated(QUADRATIC) else 1.0
    for W, v, s, fm in _scaled_states(fx):
        dW, _ = flow_field(W, v, X, y, fx["loss"], fx["leak"])
        nrm = np.linalg.norm(W, axis=1, keepdims=True)
        u = W / nrm
        du = dW / nrm
        du -= np.einsum("jd,jd->j", du, u)[:, None] * u
        xa = _x_a(X, y, W, fx["leak"])
        pxa = xa - np.einsum("jd,jd->j", xa, u)[:, None] * u
        e = np.abs(R @ (du - s[:, None] * pxa).T).max()
        ratios.append(float(e / (2 * len(y) * xmax * fm ** power)))
    ev.forall(f"|dpsi/dt - s (psi_ra - psi_rj psi_aj)||x_a||| / (2 n X_max max|f|^{power:g}) on every state",
              ratios, 1.0, relation="<=", rtol=1e-9)
    ev.record(max_ratio=max(ratios))
    return ev


@claim("min2024.claim.eq46", kind="claim", title="Sign identity (46) of App. E",
       statement=r"Whenever $w_j\notin S_{dead}$: $y_i\,\mathrm{sign}(v_j)\langle x_i,\dot w_j\rangle\ge\mu\|x_i\||v_j|"
       r"\sum_{k\ \mathrm{active}}|g_k|\|x_k\|>0$ for all $i$ (any scale; $\dot w=-\nabla_wL$).", hypotheses=[A1],
       fidelity="faithful", no_room="the cone constant mu is attained (a single active point of the minimising pair "
       "gives equality): relative slack 0, no room; the positivity is a sign",
       fixtures=[random(states), adversarial(states, label="min.states.mu_small", mu=0.02),
                 negative(states, label="min.states.mu_negative", negative_mu=True),
                 negative(states, mutation="mu replaced by 1")],
       judged_by="exact field on 200 random states of any scale (1e-6 to 1), every (i, j) with w_j alive")
def eq46(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    mu = 1.0 if fx.mutated() else mu_of(X, y)
    xn = np.linalg.norm(X, axis=1)
    rel, pos = [], []
    for W, v, s, _ in _scaled_states(fx, fmax_target=False):
        dW, _ = flow_field(W, v, X, y, fx["loss"])
        g = neg_loss_derivative(fx["loss"], y, forward(W, v, X))
        act = W @ X.T > 0
        alive = act.any(1)
        lhs = (s[:, None] * y[None, :] * (dW @ X.T))[alive]
        scale = xn[None, :] * (np.abs(v)[:, None] * ((np.abs(g) * xn)[None, :] * act).sum(1, keepdims=True))[alive]
        rhs = mu * scale
        rel.append(((lhs - rhs) / np.maximum(np.abs(rhs), 1e-300)).ravel())
        pos.append((lhs / np.maximum(scale, 1e-300)).ravel())
    ev.forall("relative (lhs - rhs) for every state, alive neuron j and point i", np.concatenate(rel), 0.0,
              relation=">=", atol=1e-12)
    # the printed '> 0': the normal component normalised by ||x_i|| |v_j| sum_active |g_k| ||x_k|| (>= mu under A1)
    ev.forall("y_i s_j <x_i, dw_j/dt> / (||x_i|| |v_j| sum_k |g_k| ||x_k||) > 0 for every alive (i, j)",
              np.concatenate(pos), 0.0, relation=">=", atol=-1e-12)
    return ev


@claim("min2024.claim.eq50", kind="claim", title="Linear growth of the field (50)",
       statement=r"$\|F(\theta)\|_F\le X_{\max}L(\theta)\|\theta\|_F$ (pointwise; the paper states it on "
       r"$\{L\le L(\theta_0)\}$ with $L(\theta_0)$, exponential loss).", fidelity="faithful",
       cannot_fail="a Cauchy-Schwarz bound valid for every data set, state and loss with |l'| <= l (the exponential, "
       "and both logistic scalings); the statement has no hypothesis to break; the constant X_max / 2 is refuted",
       fixtures=[random(states), random(states, label="min.states.logistic2", loss="logistic2"),
                 adversarial(states, label="min.states.logistic", loss="logistic"),
                 negative(states, mutation="X_max / 2 (constant off by 2)")],
       judged_by="exact field on 200 random states of any scale; slack ratio")
def eq50(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    xmax = float(np.linalg.norm(X, axis=1).max()) / (2 if fx.mutated() else 1)
    ratios = []
    for W, v, _s, _ in _scaled_states(fx, fmax_target=False):
        for c in (1.0, 3.0):
            Wc, vc = W * c, v * c
            dW, dv = flow_field(Wc, vc, X, y, fx["loss"])
            L = total_loss(fx["loss"], y, forward(Wc, vc, X))
            lhs = np.sqrt((dW ** 2).sum() + (dv ** 2).sum())
            rhs = xmax * L * np.sqrt((Wc ** 2).sum() + (vc ** 2).sum())
            if rhs > 0 and np.isfinite(rhs):
                ratios.append(float(lhs / rhs))
    ev.forall("||F|| / (X_max L ||theta||) on every state (and 3x it)", ratios, 1.0, relation="<=", rtol=1e-12)
    ev.record(max_ratio=max(ratios, default=None))
    return ev


CONST_INVERTED = "constant 1/4 -> 4 (inverted)"


@claim("min2024.lem15", kind="lemma", title="Lemma 15 (loss decay of a linear network on separable data)",
       statement=r"If $y_i\langle z,x_i\rangle\ge\gamma>0$ for a unit $z$ and $y_iv^\top W^\top x_i\ge0$, then under "
       r"GF $\dot L_{lin}\le-\frac14\|v\|^2L^2\gamma^2$.", hypotheses=[A1], fidelity="faithful",
       fixtures=[random(states), random(states, label="min.states.logistic2", loss="logistic2"),
                 adversarial(states, label="min.states.mu_small", mu=0.05, loss="logistic2"),
                 negative(states, label="min.states.mu_negative", negative_mu=True),
                 negative(states, mutation=CONST_INVERTED)],
       judged_by="exact L_dot = -||grad||^2 on 200 random states w_j = a v_j z + noise (rejecting y f < 0), every "
       "state; the lemma tested at its strongest: gamma = the data's max margin (any unit z may be used), and "
       "D.2's gamma = mu X_min checked to be a margin of z = y_1 x_1/||x_1||; extremes: mu = 0.05, both losses")
def lem15(fx):
    from verify.numerics.margin import svm_origin

    ev = Evidence()
    X, y = fx["X"], fx["y"]
    xn = np.linalg.norm(X, axis=1)
    z = y[0] * X[0] / xn[0]
    gamma_paper = mu_of(X, y) * xn.min()
    ev.ge("D.2's gamma = mu X_min is a margin of z = y_1 x_1/||x_1||: min_i y_i <z, x_i> >= gamma",
          float((y * (X @ z)).min()), gamma_paper, rtol=1e-12)
    # the strongest instance of the lemma: the largest margin of any unit z (hard-margin SVM through 0)
    svm = svm_origin(X, y)
    ev.valid("max-margin SVM certified by its KKT residuals", bool(svm.success), detail=svm.message)
    gamma = float(svm.gamma)
    const = 4.0 if fx.mutated(CONST_INVERTED) else 0.25
    rng = fx.rng
    ratios = []
    for Wr, s, sc in zip(fx["Ws"], fx["S"], fx["scale"]):
        v = s * rng.uniform(0.1, 2.0, size=len(s))
        W = rng.uniform(0.0, 3.0) * np.outer(v, z) + sc * Wr * 0.3
        f = (X @ W.T) @ v
        if (y * f < 0).any():
            continue
        g = neg_loss_derivative(fx["loss"], y, f)
        gW = np.outer(v, g @ X)
        gv = W @ (X.T @ g)
        Ldot = -((gW ** 2).sum() + (gv ** 2).sum())
        L = total_loss(fx["loss"], y, f)
        ratios.append(float(-Ldot / (const * (v @ v) * L ** 2 * gamma ** 2)))
    ev.forall(f"-L_dot / ({const:g} ||v||^2 L^2 gamma*^2) on every state with y_i f_i >= 0 (gamma* the max margin)",
              ratios, 1.0, relation=">=", rtol=1e-12)
    ev.record(states_used=len(ratios), max_margin=gamma, gamma_paper=gamma_paper,
              min_ratio=min(ratios) if ratios else None)
    return ev
