"""Trajectory claims of Min, Mallada & Vidal (2024) checked on simulated regular solutions: Lemmas 12-14,
the activation-pattern evolution (7)-(8) (C-ACT, X-46 along trajectories), dwell times and the cap
argument of App. C.2, and the post-alignment structure of App. D (classification, decomposition, the
linear-network invariant, block low rank, the refined alignment window), and S_dead emptiness.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from fixtures.min2024 import clusters, example_e34, wellsep
from verify import Evidence, adversarial, claim, hypothesis, negative, not_checkable, random

from .common import (
    A1,
    DEAD,
    INIT,
    MINUS,
    PLUS,
    THEOREM_HYPS,
    VTILDE,
    class_sums,
    cos,
    neg_loss_derivative,
    phases,
    polar_outputs,
    polar_velocity,
)
from .geometry import sdead_nonempty
from .theorem1 import BASE, SMALL, _t2

NEG_A1 = negative(clusters, label="min.clusters.mu_negative", noise=1.5)
LARGE = dict(BASE, eps_rule="fixed", log_eps=0.0, loss="logistic2")
TRAJ_FIXTURES = [
    random(wellsep, **BASE),
    random(wellsep, label="min.wellsep.eps1_logistic2", **LARGE),
    adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True, "crafted": "dead"}),
    adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
    adversarial(wellsep, label="min.wellsep.hyperplane", **{**BASE, "crafted": "hyperplane"}),
    adversarial(wellsep, label="min.wellsep.eps3", **{**LARGE, "log_eps": float(np.log(3.0))}),
]
ANY_EPS_HYPS = [A1, INIT]


# ---------------------------------------------------------------------------------------------
# Lemma 12 (trapping)

not_checkable("min2024.lem12", kind="lemma", title="Lemma 12 (S+, S-, S_dead are trapping)",
              statement=r"For any solution: (i) $S_{dead}$ is trapping; (ii) $j\in V_+$, $w_j(t_1)\in S_+\Rightarrow"
              r" w_j(t_1+\tau)\in S_+$; (iii) the same for $V_-$, $S_-$.",
              reason="checked through its parts lem12.i (as printed, refuted), lem12.i.amended and lem12.ii",
              uses=["min2024.lem12.i", "min2024.lem12.i.amended", "min2024.lem12.ii"])


def _glued_solution(fx, t0: float, t_end: float = 3.0, k: int = 3001):
    """App. E.4: constant until ``t0``, then the ODE (47) ``w' = y e^{-y v<x,w>} v x``, ``v' = y e^{-y v<x,w>}
    <x,w>`` (RK4 on a fine grid)."""
    x, y, w0, v0 = fx["x"], fx["y"], fx["w0"], fx["v0"]
    t = np.linspace(0, t_end, k)
    dt = t[1] - t[0]
    W, V = np.tile(w0, (k, 1)), np.full(k, v0)

    def f(w, v):
        g = y * np.exp(-y * v * max(w @ x, 0.0))
        return g * v * x, g * (w @ x)

    for n in range(1, k):
        w, v = W[n - 1], V[n - 1]
        if t[n] <= t0 + 1e-12:
            continue
        if t[n - 1] < t0:  # start (47) exactly at t0 (grid contains t0)
            w, v = w0, v0
        k1 = f(w, v)
        k2 = f(w + dt / 2 * k1[0], v + dt / 2 * k1[1])
        k3 = f(w + dt / 2 * k2[0], v + dt / 2 * k2[1])
        k4 = f(w + dt * k3[0], v + dt * k3[1])
        W[n] = w + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        V[n] = v + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return t, W, V


def _caratheodory_residual(fx, t, W, V) -> float:
    """``max_t ||theta(t) - theta_0 - int_0^t F(theta)||`` with the regular field (sigma'(0) = 0), trapezoid."""
    x, y = fx["x"], fx["y"]
    pre = W @ x
    g = y * np.exp(-y * V * np.maximum(pre, 0.0))
    act = (pre > 0).astype(float)
    # right limits at the left end of each step: a point where <x, w> = 0 and the next state is active
    # contributes the active field (single points do not change the integral)
    act_right = np.maximum(act[:-1], ((pre[:-1] == 0) & (pre[1:] > 0)).astype(float))
    Fw = (g * V * act)[:, None] * x[None, :]
    Fw_right = (g[:-1] * V[:-1] * act_right)[:, None] * x[None, :]
    Fv = g * np.maximum(pre, 0.0)
    dt = np.diff(t)
    intw = np.concatenate([np.zeros((1, 2)), np.cumsum(0.5 * dt[:, None] * (Fw[1:] + Fw_right), 0)])
    intv = np.concatenate([[0.0], np.cumsum(0.5 * dt * (Fv[1:] + Fv[:-1]))])
    return float(max(np.abs(W - W[0] - intw).max(), np.abs(V - V[0] - intv).max()))


@claim("min2024.lem12.i", kind="lemma", title="Lemma 12(i) as printed: S_dead traps ANY solution",
       statement=r"For any solution, $w_j(t_0)\in S_{dead}\Rightarrow w_j(t)\in S_{dead}$ for all $t\ge t_0$.",
       hypotheses=[A1], uses=["min2024.claim.nonunique"],
       expected="refuted", expected_reason="App. E.4's glued trajectory is a Caratheodory solution that starts "
       "on the boundary of S_dead and leaves it (spec E6): true only for regular solutions",
       fixtures=[random(example_e34), adversarial(example_e34, label="min.example_e4.tiny", scale=1e-3), NEG_A1],
       judged_by="the glued trajectory (t0 = 0.5) solves the integral equation (45) to 1e-6 and leaves S_dead "
       "(adversarial: init scale 1e-3, departure O(1e-6) near t0)")
def lem12_i(fx):
    ev = Evidence()
    if "x" not in fx:
        p = phases(fx)
        dead = p.mem == DEAD
        ev.true("dead stays dead", bool(np.all(dead[:-1] <= dead[1:])))
        return ev
    t, W, V = _glued_solution(fx, 0.5)
    res = _caratheodory_residual(fx, t, W, V)
    ev.le("integral-equation residual of the glued trajectory", res, 1e-6, rtol=0.0)
    ev.record(residual=res, relative_residual=res / abs(fx["v0"]))
    starts_dead = float(fx["w0"] @ fx["x"]) <= 0
    left = float((W @ fx["x"]).max())
    ev.true("w(t0) in S_dead and w(t) in S_dead for all t >= t0", starts_dead and left <= 0,
            detail=f"max_t <x, w(t)> = {left:.4g}")
    ev.certify(counterexample="x = [1,0], y = +1, w(0) = [0,1], v(0) = 1, leave at t0 = 0.5",
               w_end=W[-1], v_end=float(V[-1]))
    return ev


@claim("min2024.lem12.i.amended", kind="lemma", amends="min2024.lem12.i",
       title="Lemma 12(i) (amended): S_dead traps regular solutions",
       statement=r"For a regular solution (Def. 1; here sigma'(0)=0), $w_j(t_0)\in S_{dead}\Rightarrow w_j(t)\in "
       r"S_{dead}$ for all $t\ge t_0$, at any init scale.", hypotheses=ANY_EPS_HYPS,
       fixtures=TRAJ_FIXTURES + [NEG_A1, negative(example_e34, mutation="irregular (glued) solution")],
       judged_by="membership along the simulated regular solution at every saved time")
def lem12_i_amended(fx):
    ev = Evidence()
    if "x" in fx:
        t, W, V = _glued_solution(fx, 0.5 if fx.mutated() else 1e9)
        dead = (W @ fx["x"]) <= 0
        entered = dead
    else:
        p = phases(fx)
        dead = p.mem == DEAD
        # premise exact (all <x_i, u_j> <= 0: zero field under sigma'(0) = 0), conclusion within the band tau
        entered = (np.einsum("kjd,id->kji", p.run.U, p.run.X) <= 0).all(2)
    seen = np.maximum.accumulate(entered, axis=0)
    exits = seen & ~dead
    ev.true("once in S_dead, in S_dead at every later saved time", not exits.any(),
            detail=f"{int(exits.any(0).sum())} neurons leave")
    return ev


@claim("min2024.lem12.ii", kind="lemma", title="Lemma 12(ii)-(iii): S+ traps V+ neurons, S- traps V- neurons",
       statement=r"$j\in V_+$ and $w_j(t_0)\in S_+\Rightarrow w_j(t)\in S_+$ for $t\ge t_0$; the same for $V_-$, $S_-$ "
       r"(no small init needed).", hypotheses=ANY_EPS_HYPS, uses=["min2024.claim.act"],
       fixtures=TRAJ_FIXTURES + [NEG_A1, negative(wellsep, mutation="V- neurons trapped in S+",
                                                  **{**SMALL, "crafted": "in_sminus"})],
       judged_by="membership along the trajectory at every saved time (any eps, incl. eps = 1, 3)")
def lem12_ii(fx):
    ev = Evidence()
    p = phases(fx)
    s = p.run.s
    target = np.where(s > 0, PLUS, MINUS)
    if fx.mutated():
        target = np.full_like(target, PLUS)
        chosen = s < 0
    else:
        chosen = np.ones_like(s, bool)
    inside = p.mem == target[None, :]
    exits = (inside[:-1] & ~inside[1:])[:, chosen]
    entered = inside[:, chosen].any(0)
    ev.true("no exit from S_sign after entry", not exits.any(), detail=f"{int(exits.sum())} exits; "
            f"{int(entered.sum())} neurons entered")
    if fx.mutated():
        ev.true("some chosen neuron entered (non-vacuous)", bool(entered.any()))
    return ev


# ---------------------------------------------------------------------------------------------
# Lemmas 13, 14


@claim("min2024.lem13", kind="lemma", title="Lemma 13 (norms shrink at most exponentially before t1)",
       statement=r"$\sum_{j\in\tilde V_\pm}\|w_j(t_1)\|^2\ge e^{-4nX_{\max}t_1}\sum_{j\in\tilde V_\pm}\|w_j(0)\|^2$; "
       r"per neuron $\|w_j(t)\|^2\ge e^{-4nX_{\max}t}\|w_j(0)\|^2$ while $\max|f|\le1/2$.",
       hypotheses=THEOREM_HYPS,
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.in_sminus",
                                                       **{**BASE, "crafted": "in_sminus"}),
                 adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True, "crafted": "dead"}),
                 NEG_A1, negative(wellsep, mutation="norms never shrink", **{**SMALL, "crafted": "in_sminus"})],
       judged_by="log-norm form rho_j(t) - rho_j(0) >= -2 n X_max t at every saved t <= min(t1, T)")
def lem13(fx):
    ev = Evidence()
    p = phases(fx, "align")
    r, c = p.run, p.run.c
    k = r.t <= min(c.t1, c.T(r.log_eps))
    t = r.t[k]
    drho = r.rho[k] - r.rho[0]
    rate = 0.0 if fx.mutated() else 2 * c.n * c.x_max
    worst = float((drho + rate * t[:, None]).min())
    ev.ge("min_{j,t} rho_j(t) - rho_j(0) + 2 n X_max t", worst, 0.0, atol=1e-9)
    for name, mask in (("V~+", p.v_plus), ("V~-", p.v_minus)):
        if mask.any():
            lhs = logsumexp(2 * r.rho[p.k1, mask])
            rhs = logsumexp(2 * r.rho[0, mask]) - 2 * rate * c.t1
            ev.ge(f"log sum_{name} ||w_j(t1)||^2 - log(e^(-4nX t1) sum ||w_j(0)||^2)", float(lhs - rhs), 0.0,
                  atol=1e-9)
    shrink = -(drho[1:] / t[1:, None]).min() if len(t) > 1 else 0.0
    ev.record(max_shrink_rate=float(shrink), bound_rate=2 * c.n * c.x_max,
              slack_ratio=float(max(shrink, 0.0) / (2 * c.n * c.x_max)))
    return ev


@claim("min2024.lem14", kind="lemma", title="Lemma 14 (norms of V~+- neurons non-decreasing after t1)",
       statement=r"For $t\ge t_1$, $\sum_{j\in\tilde V_\pm}\|w_j(t)\|^2$ is non-decreasing (each term too).",
       hypotheses=THEOREM_HYPS, uses=["min2024.thm1.c"],
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.in_sminus",
                                                       **{**BASE, "crafted": "in_sminus"}),
                 adversarial(wellsep, label="min.wellsep.logistic2", **{**SMALL, "loss": "logistic2"}),
                 NEG_A1, negative(wellsep, mutation="from t = 0 for all neurons", **{**SMALL, "crafted": "in_sminus"})],
       judged_by="increments of log-norms between saved times >= -1e-9 (RK error)")
def lem14(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    if fx.mutated():
        rho, mask = r.rho, np.ones(len(r.s), bool)
    else:
        rho, mask = r.rho[p.k1:], p.v_plus | p.v_minus
    inc = np.diff(rho[:, mask], axis=0)
    if inc.size == 0:
        # e.g. data violating Assumption 1: t1 is infinite and the saved run ends before it, or V~+- is empty
        return ev.inconclusive(f"no increment to test: {rho.shape[0]} saved times from t1, {int(mask.sum())} "
                               "neurons in V~+-")
    ev.ge("min increment of log ||w_j|| over j in V~+- and saved t >= t1", float(inc.min()), 0.0, atol=1e-9)
    return ev


# ---------------------------------------------------------------------------------------------
# Activation-pattern evolution (7)-(8), dwell time and caps (App. C)


@claim("min2024.claim.act", kind="claim", title="Activation-pattern evolution (7)-(8), exact form (from (46))",
       statement=r"While $w_j\notin S_{dead}$, $t\mapsto \mathrm{sign}(v_j)y_i\langle x_i,w_j(t)\rangle$ is "
       r"non-decreasing for every $i$: a $V_+$ neuron never loses a positive point nor regains a negative one "
       r"(symmetrically for $V_-$); each activation flips at most once.",
       hypotheses=ANY_EPS_HYPS, uses=["min2024.claim.eq46"],
       fixtures=TRAJ_FIXTURES + [NEG_A1, negative(wellsep, mutation="reverse direction", **BASE)],
       judged_by="signed-margin increments between saved states (>= -1e-9 relative) and per-(i,j) flip counts "
       "(paper: needs small eps; spec E2: holds at any eps)")
def act(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    X, y, s = r.X, r.y, r.s
    pre = np.einsum("kjd,id->kji", r.U, X)
    a = s[None, :, None] * y[None, None, :] * pre * (-1.0 if fx.mutated() else 1.0)
    # increment of s y <x_i, w_j> between saved states, divided by e^{rho_j(t_k)} (no overflow)
    grow = np.exp(np.diff(r.rho, axis=0))[:, :, None]
    inc = a[1:] * grow - a[:-1]
    scale = np.maximum(np.abs(a[1:] * grow), np.abs(a[:-1])).max(axis=2, keepdims=True)
    alive = p.mem[:-1] != DEAD
    rel = (inc / np.maximum(scale, 1e-300))[alive]
    ev.ge("min relative increment of s_j y_i <x_i, w_j> while alive", float(rel.min()) if rel.size else 0.0, 0.0,
          atol=1e-9)
    on = pre > r.tau
    flips = np.abs(np.diff(on.astype(int), axis=0)).sum(0)
    ev.le("max activation flips per (i, j)", int(flips.max()), 1, rtol=0.0)
    ev.record(max_flips=int(flips.max()), min_relative_increment=float(rel.min()) if rel.size else 0.0)
    return ev


@claim("min2024.claim.dwell", kind="claim", title="Dwell time in one activation pattern (Sec. 3.3, App. C.2)",
       statement=r"During $[0,T]$ a $V_+$ neuron outside $S_+\cup S_{dead}$ changes its activation pattern within "
       r"$\Delta t=4/(\min\{\zeta,\xi\}\sqrt\mu X_{\min}n_a)$ (symmetrically for $V_-$).",
       hypotheses=THEOREM_HYPS, uses=["min2024.lem9", "min2024.lem11", "min2024.claim.cap"],
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.in_sminus",
                                                       **{**BASE, "crafted": "in_sminus"}),
                 adversarial(wellsep, label="min.wellsep.near_a2", **{**BASE, "crafted": "near_a2", "delta": 1e-4}),
                 NEG_A1, negative(wellsep, mutation="Delta t / 1000", **{**SMALL, "crafted": "in_sminus"})],
       judged_by="maximal constant-pattern intervals on the saved grid (upper estimate of their length); the "
       "interval censored at the horizon is skipped; slack ratio max length / Delta t")
def dwell(fx):
    ev = Evidence()
    p = phases(fx, "align")
    r, c = p.run, p.run.c
    on = np.einsum("kjd,id->kji", r.U, r.X) > r.tau
    t = r.t
    worst, n_int = 0.0, 0
    for j in range(len(r.s)):
        good = PLUS if r.s[j] > 0 else MINUS
        pats = on[:, j, :]
        change = np.flatnonzero(np.any(pats[1:] != pats[:-1], axis=1)) + 1
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [len(t)]])
        for a, b in zip(starts, ends):
            if b >= len(t) or t[b] > c.T(r.log_eps) or p.mem[a, j] in (good, DEAD):
                continue
            length = t[b] - t[max(a - 1, 0)]
            na = int(pats[a].sum())
            dt = 4 / (c.m * np.sqrt(c.mu) * c.x_min * na) / (1000 if fx.mutated() else 1)
            worst = max(worst, length / dt)
            n_int += 1
    ev.le("max over intervals of length / Delta t(n_a)", worst, 1.0, rtol=0.0)
    ev.true("some interval was measured (non-vacuous)", n_int > 0 or not fx.mutated())
    ev.record(intervals=n_int, slack_ratio=worst)
    return ev


@claim("min2024.claim.cap", kind="claim", title="No V+ neuron enters the cap around x- during [0, T] (App. C.2)",
       statement=r"If $\cos(w_j(0),x_-)<\sqrt{1-\zeta}$ for $j\in V_+$ then $\cos(w_j(t),x_-)<\sqrt{1-\zeta}$ on "
       r"$[0,T]$ (symmetrically for $V_-$, $x_+$), with $\zeta=\min\{\zeta_1,\zeta_2\}$.",
       hypotheses=THEOREM_HYPS, uses=["min2024.lem8", "min2024.lem10"],
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.near_a2",
                                                       **{**BASE, "crafted": "near_a2", "delta": 1e-3}),
                 adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
                 NEG_A1, negative(wellsep, mutation="zeta = zeta1* (zeta2 ignored)", **{**BASE, "crafted": "in_sminus"})],
       judged_by="max over saved t <= min(T, t_end) of cos(w_j, x-+) against sqrt(1 - zeta); slack ratio")
def cap(fx):
    ev = Evidence()
    p = phases(fx, "align")
    r, c = p.run, p.run.c
    xp, xm = class_sums(r.X, r.y)
    lim = np.sqrt(1 - (c.zeta1 if fx.mutated() else c.zeta))
    k = r.t <= c.T(r.log_eps)
    worst = -np.inf
    for j in range(len(r.s)):
        ref = xm if r.s[j] > 0 else xp
        cs = cos(r.U[k, j], ref)
        if cs[0] < lim or fx.mutated():
            worst = max(worst, float(cs.max()))
    ev.le("max_{j,t<=T} cos(w_j, x_-sign)", worst, lim, rtol=0.0, atol=-1e-15)
    ev.record(sqrt_1_minus_zeta=lim, slack_ratio=worst / lim if lim > 0 else np.inf)
    return ev


# ---------------------------------------------------------------------------------------------
# After t1 (App. D)

FIT = [random(wellsep, **BASE),
       random(wellsep, label="min.wellsep.logistic2", **{**SMALL, "h": 10, "loss": "logistic2"}),
       adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True}),
       adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"})]
FIT_HYPS = THEOREM_HYPS + [VTILDE]


@claim("min2024.claim.classified", kind="claim", title="All data correctly classified from t1 on (l.133)",
       statement=r"If $\tilde V_\pm\ne\emptyset$, $y_if(x_i)>0$ for all $i$ and all $t\ge t_1$.",
       hypotheses=FIT_HYPS, uses=["min2024.thm1.a"],
       fixtures=FIT + [NEG_A1, negative(wellsep, mutation="classified from t = 0", **{**BASE, "crafted": "in_sminus"})],
       judged_by="sign of y_i f(x_i) = P_i - N_i (positive and negative parts compared in log space) at every "
       "saved t >= t1")
def classified(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    k0 = 0 if fx.mutated() else p.k1
    worst = np.inf
    for k in range(k0, len(r.t)):
        # y_i f(x_i) = P_i - N_i with P, N sums of positive terms; compared in log space (no underflow)
        a = np.maximum(r.X @ r.U[k].T, 0.0) * (r.y[:, None] * r.s[None, :])
        with np.errstate(divide="ignore"):
            lw = 2 * r.rho[k][None, :] + np.log(np.abs(a))
        logP = logsumexp(np.where(a > 0, lw, -np.inf), axis=1)
        logN = logsumexp(np.where(a < 0, lw, -np.inf), axis=1)
        worst = min(worst, float((logP - logN).min()))
    ev.true("min_{i, t} y_i f(x_i) > 0", worst > 0, detail=f"min over i, t of log(P_i / N_i) = {worst:.3g}")
    return ev


@claim("min2024.claim.decomp", kind="claim", title="Loss decomposition after t1 (D.2, (32))",
       statement=r"For $t\ge t_1$, $f(x_i)=f_+(x_i)$ on $I_+$ and $f(x_i)=f_-(x_i)$ on $I_-$, so $L=L_++L_-$ with "
       r"$L_\pm$ a linear-network loss of $(W_\pm,v_\pm)$ on $I_\pm$.",
       hypotheses=FIT_HYPS, uses=["min2024.thm1.c"],
       fixtures=FIT + [NEG_A1, negative(wellsep, mutation="every live neuron active on I+", **BASE)],
       judged_by="activation sets (band tau = 1e-9 X_max, as the memberships) at every saved t >= t1, and "
       "f = f+ + f- in log-shifted form")
def decomp(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    y = r.y
    bad, err = 0, 0.0
    for k in range(p.k1, len(r.t)):
        # the band tau of the memberships: a neuron that died on a hyperplane keeps a rounding-level <x_i, u_j>
        # (~1e-16) of either sign, which the event-driven integrator has already classified as inactive
        on = (r.U[k] @ r.X.T) > r.tau
        if fx.mutated():
            bad += int((~on[~p.v_dead][:, y > 0]).sum())
            continue
        bad += int(on[~p.v_plus][:, y > 0].sum() + on[~p.v_minus][:, y < 0].sum())
        sh = float(r.rho[k].max())
        f = polar_outputs(r.X, r.U[k], r.rho[k], r.s, shift=sh)
        fp = polar_outputs(r.X, r.U[k][p.v_plus], r.rho[k][p.v_plus], r.s[p.v_plus], shift=sh)
        fm = polar_outputs(r.X, r.U[k][p.v_minus], r.rho[k][p.v_minus], r.s[p.v_minus], shift=sh)
        lin = np.where(y > 0, fp, fm)
        err = max(err, float(np.abs(f - lin).max() / max(np.abs(f).max(), 1e-300)))
    ev.le("activations on I+ outside V~+ (and on I- outside V~-)", bad, 0, rtol=0.0)
    ev.le("relative |f - (f+ on I+, f- on I-)|", err, 1e-12, rtol=0.0)
    return ev


@claim("min2024.claim.inv", kind="claim", title="Linear-network invariant after t1 (D.3)",
       statement=r"For $t\ge t_1$, $W_+^\top W_+-v_+v_+^\top$ (and $W_-^\top W_--v_-v_-^\top$) is constant in time.",
       hypotheses=FIT_HYPS, uses=["min2024.claim.decomp"],
       fixtures=FIT + [NEG_A1, negative(wellsep, mutation="W+^T W+ constant (no v term)", **BASE)],
       judged_by="||G(t) - G(t1)||_2 / ||W_+(t)||_F^2 at every saved t >= t1, G_jk = e^{rho_j+rho_k}"
       "(<u_j,u_k> - s_j s_k); tolerance 1e-6 (RK rtol 1e-10 over a horizon of ~1e3)")
def inv(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    worst = 0.0
    for mask in (p.v_plus, p.v_minus):
        if mask.sum() < 1:
            continue
        ss = r.s[mask]
        sub = 0.0 if fx.mutated() else 1.0

        def G(k, mask=mask, ss=ss, sub=sub):
            U, rho = r.U[k][mask], r.rho[k][mask]
            return np.exp(rho[:, None] + rho[None, :]) * (U @ U.T - sub * np.outer(ss, ss))

        G1 = G(p.k1)
        for k in range(p.k1, len(r.t)):
            nrm = float(np.exp(2 * r.rho[k][mask]).sum())
            if nrm > 0:
                worst = max(worst, float(np.linalg.norm(G(k) - G1, 2)) / nrm)
    ev.le("max_t ||G(t) - G(t1)||_2 / ||W_block(t)||_F^2", worst, 1e-6, rtol=0.0)
    ev.record(invariant_drift=worst)
    return ev


@claim("min2024.claim.lowrank_blocks", kind="claim", title="Block low rank after t1 (D.3, (41)-(43))",
       statement=r"$\|W_\pm\|_F^2\le\|W_\pm\|_2^2+\frac{4\epsilon W_{\max}^2}{\sqrt h}|\tilde V_\pm|$ and "
       r"$\|W_{dead}\|_F^2\le\frac{4\epsilon W_{\max}^2}{\sqrt h}|\tilde V_{dead}|$ for $t\ge t_1$.",
       hypotheses=FIT_HYPS, uses=["min2024.claim.inv", "min2024.lem3"],
       fixtures=FIT + [NEG_A1, negative(wellsep, mutation="from t = 0", **BASE)],
       judged_by="log-shifted inequalities at every saved t >= t1")
def lowrank_blocks(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    k0 = 0 if fx.mutated() else p.k1
    worst = np.inf
    slack_unit = 4 * c.w_max ** 2 / np.sqrt(c.h)
    for k in range(k0, len(r.t)):
        for mask in (p.v_plus, p.v_minus):
            if not mask.any():
                continue
            rho, U = r.rho[k][mask], r.U[k][mask]
            sh = float(rho.max())
            sv = np.linalg.svd(np.exp(rho - sh)[:, None] * U, compute_uv=False)
            F, S2 = float((sv ** 2).sum()), float(sv[0] ** 2)
            extra = 0.0 if fx.mutated() else slack_unit * mask.sum() * np.exp(r.log_eps - 2 * sh)
            worst = min(worst, (S2 + extra - F) / F)
    ev.ge("min_t (||W_b||_2^2 + O(eps) - ||W_b||_F^2)/||W_b||_F^2", worst, 0.0, atol=1e-12)
    if p.v_dead.any():
        lhs = float(np.log(np.exp(2 * (r.rho[-1][p.v_dead] - r.log_eps)).sum()) + 2 * r.log_eps)
        rhs = float(np.log(slack_unit * p.v_dead.sum()) + r.log_eps)
        ev.le("log ||W_dead||_F^2 - log(4 eps W_max^2 |V~dead| / sqrt h)", lhs - rhs, 0.0, atol=1e-12)
        ev.record(log_slack_dead=lhs - rhs)
    return ev


@claim("min2024.claim.refine", kind="claim", title="Refined alignment on [t1, t2+] (D.2, (37)-(40))",
       statement=r"On $[t_1,t_2^+]$: $g_i\in[1/2,3/2]$ ($i\in I_+$), $\cos(x_+,\tilde x_a)\ge1/3$, "
       r"$\|\tilde x_a\|\ge\sqrt\mu n_+X_{\min}/2$; on $[t_1+6/(\sqrt\mu n_+X_{\min}),t_2^+]$: "
       r"$\cos(w_j,x_+)\ge1/4$ and $\frac{d}{dt}\|w_j\|^2\ge\frac{\sqrt\mu n_+X_{\min}}4\|w_j\|^2$ for $j\in\tilde V_+$.",
       hypotheses=FIT_HYPS, uses=["min2024.claim.decomp", "min2024.lem11"],
       fixtures=FIT + [NEG_A1, negative(wellsep, mutation="growth rate x 100", **BASE)],
       judged_by="every saved t in the windows; also records min cos(x+, x~_a) against the printed 1/2 (spec E22)")
def refine(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    t2p, _, _ = _t2(p)
    xp, _ = class_sums(r.X, r.y)
    pos = r.y > 0
    t_win = c.t1 + 6 / (np.sqrt(c.mu) * c.n_pos * c.x_min)
    gmin, gmax, cmin, nmin, cwin, rate = np.inf, -np.inf, np.inf, np.inf, np.inf, np.inf
    for k in range(p.k1, len(r.t)):
        if r.t[k] >= t2p:
            break
        f = r.outputs(k)
        g = neg_loss_derivative(r.loss, r.y, f)
        gi = g[pos] * r.y[pos]
        gmin, gmax = min(gmin, gi.min()), max(gmax, gi.max())
        xa = (g[pos, None] * r.X[pos]).sum(0)
        cmin = min(cmin, float(cos(xa, xp)[0]))
        nmin = min(nmin, float(np.linalg.norm(xa)))
        if r.t[k] >= t_win:
            U = r.U[k][p.v_plus]
            cwin = min(cwin, float(cos(U, xp).min()))
            _, drho = polar_velocity(r.U[k], r.rho[k], r.s, r.X, r.y, r.loss)
            rate = min(rate, float(drho[p.v_plus].min()))
    lo_rate = np.sqrt(c.mu) * c.n_pos * c.x_min / 8 * (100 if fx.mutated() else 1)
    ev.ge("min g_i on I+", gmin, 0.5, rtol=0.0)
    ev.le("max g_i on I+", gmax, 1.5, rtol=0.0)
    ev.ge("min cos(x+, x~_a)", cmin, 1 / 3, rtol=0.0)
    ev.ge("min ||x~_a|| / (sqrt(mu) n+ X_min / 2)", nmin / (np.sqrt(c.mu) * c.n_pos * c.x_min / 2), 1.0, rtol=0.0)
    if np.isfinite(cwin):
        ev.ge("min cos(w_j, x+) on the window", cwin, 0.25, rtol=0.0)
        ev.ge("min d/dt log ||w_j|| on the window (>= sqrt(mu) n+ X_min / 8)", rate, lo_rate, rtol=0.0)
    ev.record(t2_plus=t2p, window_start=t_win, min_cos_xa=cmin, printed_half_holds=bool(cmin >= 0.5),
              slack_ratio=lo_rate / rate if np.isfinite(rate) else None)
    return ev


def _sdead_empty(fx):
    nonempty, _ = sdead_nonempty(fx["X"])
    return not nonempty, None, "S_dead \\ {0} empty (LP)" if not nonempty else "S_dead nonempty"


SDEAD_EMPTY = hypothesis("S_dead = {0} (LP certificate)", _sdead_empty)


@claim("min2024.claim.deadempty", kind="claim", title="If S_dead is empty every neuron reaches S+ or S- (l.123)",
       statement=r"If $S_{dead}=\{0\}$, every $w_j(t_1)\in S_{\mathrm{sign}(v_j)}$.",
       hypotheses=THEOREM_HYPS + [SDEAD_EMPTY], uses=["min2024.thm1.a"],
       fixtures=[random(wellsep, n_pos=4, n_neg=4, D=2, mu=0.5, h=8, xnorm=(1.0, 1.5), seeds={"quick": 1,
                                                                                               "standard": 3}),
                 adversarial(wellsep, label="min.wellsep.D3", n_pos=8, n_neg=8, D=3, mu=0.5, h=8, xnorm=(1.0, 1.5)),
                 negative(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True, "crafted": "dead"})],
       judged_by="LP emptiness certificate, then membership at every saved t >= t1")
def deadempty(fx):
    ev = Evidence()
    p = phases(fx, "align")
    target = np.where(p.run.s > 0, PLUS, MINUS)
    ok = p.mem[p.after] == target[None, :]
    ev.true("every neuron in S_sign(v_j) at every saved t >= t1", bool(ok.all()),
            detail=f"{int((~ok).sum())} violations; dead at t_end: {int((p.mem[-1] == DEAD).sum())}")
    return ev


@claim("min2024.claim.exist", kind="claim", title="Existence of a regular solution without Zeno behaviour (App. E.2)",
       statement=r"Under Assumption 1 a global regular Caratheodory solution exists; each hyperplane "
       r"$\{\langle x_i,w_j\rangle=0\}$ is crossed at most once.", hypotheses=ANY_EPS_HYPS,
       uses=["min2024.claim.act", "min2024.claim.eq46"],
       fixtures=TRAJ_FIXTURES[:3] + [NEG_A1],
       judged_by="integrator reaches the horizon without step collapse; flip counts <= 1 per (i, j)")
def exist(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    ev.true("integrator reached the horizon", r.ok, detail=r.message)
    on = np.einsum("kjd,id->kji", r.U, r.X) > r.tau
    flips = np.abs(np.diff(on.astype(int), axis=0)).sum(0)
    ev.le("max hyperplane crossings per (i, j)", int(flips.max()), 1, rtol=0.0)
    ev.record(nfev=r.nsteps, max_flips=int(flips.max()))
    return ev

