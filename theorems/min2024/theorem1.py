"""Theorem 1 of Min, Mallada & Vidal (2024), checked at the theorem's own initialisation scale.

``eps = min(eps1, eps2)`` of (28) is far below double precision (log eps ~ -1e3); the flow is simulated
in polar / log-norm coordinates (:func:`verify.numerics.flow.simulate_log_scale`), so the alignment
phase runs in the exact ``eps -> 0`` limit and the fitting phase starts when ``e^{2 rho}`` stops
underflowing. Parts (ids): thm1.a = part 1 (S+/S-/S_dead by t1), thm1.b = part 1 (activated neurons reach
S+/S-), thm1.c = part 2 trapping, thm1.d = part 2 O(1/t) loss with t2 bounds, thm1.e = part 2 low rank,
thm1.f = part 2 ||W|| -> infinity.
"""

from __future__ import annotations

import numpy as np

from fixtures.min2024 import clusters, orth_blocks, wellsep
from verify import Evidence, adversarial, claim, negative, not_checkable, random

from .common import (
    A1,
    DEAD,
    MINUS,
    PLUS,
    THEOREM_HYPS,
    VTILDE,
    phases,
    total_loss,
)

BASE = dict(n_pos=3, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5))
SMALL = dict(n_pos=2, n_neg=2, D=3, mu=0.7, h=6, xnorm=(1.0, 1.5))
LARGE_INIT = dict(n_pos=5, n_neg=5, D=8, mu=0.3, h=10, xnorm=(1.0, 1.5), eps_rule="fixed", log_eps=0.0)

PART1_FIXTURES = [
    random(wellsep, **BASE),
    random(wellsep, label="min.wellsep.random_signs", **{**SMALL, "signs": "random"}),
    adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True, "crafted": "dead"}),
    adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
    adversarial(wellsep, label="min.wellsep.hyperplane", **{**BASE, "crafted": "hyperplane"}),
    adversarial(wellsep, label="min.wellsep.near_a2", **{**BASE, "crafted": "near_a2", "delta": 1e-8}),
    adversarial(wellsep, label="min.wellsep.small_mu", **{**SMALL, "mu": 0.2}),
    adversarial(wellsep, label="min.wellsep.imbalanced", n_pos=1, n_neg=5, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5)),
    adversarial(wellsep, label="min.wellsep.eps_shift", **{**BASE, "eps_shift": -1000.0}),
    adversarial(wellsep, label="min.wellsep.n20", n_pos=10, n_neg=10, D=6, mu=0.6, h=10, xnorm=(1.0, 1.5)),
]


def _aligned(p) -> np.ndarray:
    """Per saved time: every V+ neuron in S+ or S_dead and every V- neuron in S- or S_dead."""
    s = p.run.s.astype(int)
    return np.all((p.mem == s[None, :]) | (p.mem == DEAD), axis=1)


def _t_align(p) -> float:
    ok = _aligned(p)
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return 0.0
    if bad[-1] + 1 >= len(p.run.t):
        return float("inf")
    return float(p.run.t[bad[-1] + 1])


not_checkable(
    "min2024.thm1", kind="theorem", title="Theorem 1 (early alignment, then O(1/t) loss and low rank)",
    statement=r"Under Assumptions 1-2, init (3) with $\epsilon\le\min\{\epsilon_1,\epsilon_2\}$ and any regular "
    r"solution: by $t_1=O(\log n/\sqrt\mu)$ every $w_j\in S_{\mathrm{sign}(v_j)}\cup S_{dead}$; afterwards the "
    r"neurons are trapped, $L(t)\le L(t_2)/(L(t_2)\alpha(t-t_2)+1)$, $\|W\|_F^2\le 2\|W\|_2^2+O(\epsilon)$, "
    r"$\|W\|\to\infty$.",
    reason="checked through its parts thm1.a-f (each a separate claim)",
    uses=["min2024.thm1.a", "min2024.thm1.b", "min2024.thm1.c", "min2024.thm1.d", "min2024.thm1.e",
          "min2024.thm1.f"])


@claim("min2024.thm1.a", kind="theorem", title="Theorem 1, part 1: directional convergence by t1",
       statement=r"With $t_1=16\log n/(\min\{\zeta,\xi\}\sqrt\mu X_{\min})$: $\forall j\in V_+$, "
       r"$w_j(t_1)\in S_+\cup S_{dead}$; $\forall j\in V_-$, $w_j(t_1)\in S_-\cup S_{dead}$.",
       hypotheses=THEOREM_HYPS,
       uses=["min2024.lem1", "min2024.lem8", "min2024.lem9", "min2024.lem11", "min2024.lem12.ii",
             "min2024.lem12.i.amended", "min2024.asm1", "min2024.asm2",
             "min2024.claim.act", "min2024.claim.dwell", "min2024.claim.cap", "min2024.claim.path"],
       fixtures=PART1_FIXTURES + [
           negative(wellsep, label="min.wellsep.large_init", **LARGE_INIT),
           negative(wellsep, mutation="t1 / 1e4", **BASE)],
       judged_by="membership of every neuron at every saved t in [t1, 1.2 t1] on the polar flow at the "
       "theorem's eps (when t1 > 200: simulated to 200, later times certified by Lemma 12); slack ratio t_align / t1")
def thm1_a(fx):
    ev = Evidence()
    p = phases(fx, "align")
    t1 = p.run.c.t1 / (1e4 if fx.mutated() else 1.0)
    ok = _aligned(p)
    ta = _t_align(p)
    t_last = float(p.run.t[-1])
    # beyond the simulated horizon (t1 > ALIGN_CAP) the configuration is certified by Lemma 12 (trapping)
    after = p.run.t >= min(t1 * (1 - 1e-12), t_last)
    ev.true("every neuron in S_sign(v_j) or S_dead at every saved t >= min(t1, horizon)", bool(ok[after].all()),
            detail=f"{int((~ok[after]).sum())} of {int(after.sum())} saved times violate; horizon {t_last:.4g}"
            + (" (t >= horizon certified by Lemma 12)" if t_last < t1 else ""))
    ev.le("t_align (last entry into the aligned configuration)", ta, t1, rtol=0.0)
    if t_last < t1 and not ok[-1]:
        ev.inconclusive(f"not aligned by the simulated horizon {t_last:.4g} < t1 = {t1:.4g}")
    ev.record(t_align=ta, t1=t1, slack_ratio=ta / t1, log_eps=p.run.log_eps, integrator=p.run.message,
              members_final=p.mem[-1], n_dead=int((p.mem[-1] == DEAD).sum()))
    if not p.run.ok:
        ev.inconclusive("integrator failed: " + p.run.message)
    k = p.run.t <= min(5.0, p.run.t[-1])
    counts = {name: (p.mem[k] == code).sum(1) for name, code in
              (("in S+", PLUS), ("in S-", MINUS), ("dead", DEAD))}
    ev.add_series("neuron memberships during alignment", p.run.t[k], counts, xlabel="t", ylabel="neurons")
    return ev


@claim("min2024.thm1.b", kind="theorem", title="Theorem 1, part 1: initially active neurons reach S+ / S-",
       statement=r"If $\max_{i\in I_+}\langle w_j(0),x_i\rangle>0$ and $j\in V_+$ then $w_j(t_1)\in S_+$ "
       r"(symmetrically for $V_-$, $I_-$, $S_-$).",
       hypotheses=THEOREM_HYPS, uses=["min2024.thm1.a", "min2024.claim.act"],
       fixtures=PART1_FIXTURES + [
           negative(wellsep, mutation="premise dropped: every V+ neuron in S+",
                    **{**BASE, "tilt": True, "crafted": "dead"}),
           negative(wellsep, label="min.wellsep.large_init", **LARGE_INIT)],
       judged_by="membership at every saved t in [t1, 1.2 t1] of the neurons meeting the premise")
def thm1_b(fx):
    ev = Evidence()
    p = phases(fx, "align")
    X, y, s = fx["X"], fx["y"], p.run.s
    pre0 = fx["W0"] @ X.T
    premise = np.where(s > 0, (pre0[:, y > 0] > 0).any(1), (pre0[:, y < 0] > 0).any(1))
    if fx.mutated():
        premise = np.ones_like(premise)
    after = p.after  # k1 is clamped to the last saved state when t1 > ALIGN_CAP (Lemma 12 beyond)
    target = np.where(s > 0, PLUS, MINUS)
    good = (p.mem[np.ix_(after, np.flatnonzero(premise))] == target[premise][None, :])
    ev.true("premise neurons in S_sign(v_j) at every saved t >= t1", bool(good.all()),
            detail=f"{int(premise.sum())} premise neurons; {int((~good).sum())} violations")
    ev.record(premise_neurons=int(premise.sum()), final_members=p.mem[-1])
    if not p.run.ok:
        ev.inconclusive("integrator failed: " + p.run.message)
    return ev


FIT_FIXTURES = [
    random(wellsep, **BASE),
    random(wellsep, label="min.wellsep.logistic2", **{**SMALL, "h": 10, "loss": "logistic2"}),
    adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True}),
    adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
    adversarial(wellsep, label="min.wellsep.imbalanced", n_pos=1, n_neg=5, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5),
                loss="logistic2"),
    adversarial(wellsep, label="min.wellsep.small_mu", **{**SMALL, "mu": 0.3}),
]
NEG_A1 = negative(clusters, label="min.clusters.mu_negative", noise=1.5)


@claim("min2024.thm1.c", kind="theorem", title="Theorem 1, part 2: neurons stay in their cone after t1",
       statement=r"For all $t\ge t_1$ and all $j$: $w_j(t)$ stays in $S_+$ ($S_-$, $S_{dead}$) if "
       r"$w_j(t_1)\in S_+$ ($S_-$, $S_{dead}$).",
       hypotheses=THEOREM_HYPS, uses=["min2024.lem12"],
       fixtures=FIT_FIXTURES + [NEG_A1, negative(wellsep, mutation="trapping from t = 0", **BASE)],
       judged_by="membership equality at every saved t in [t1, t_end] (t_end past the fitting phase)")
def thm1_c(fx):
    ev = Evidence()
    p = phases(fx)
    k0 = 0 if fx.mutated() else p.k1
    same = p.mem[k0:] == p.mem[k0][None, :]
    ev.true("membership at t equals membership at t1, for all saved t >= t1", bool(same.all()),
            detail=f"{int((~same).sum())} (time, neuron) changes over {same.shape[0]} saved times")
    ev.record(t_end=float(p.run.t[-1]), t1=float(p.run.t[p.k1]))
    if not p.run.ok:
        ev.inconclusive("integrator failed: " + p.run.message)
    return ev


def _t2(p) -> tuple[float, float, np.ndarray]:
    """First saved times with ``max_{I+}|f_+(x_i)| > 1/4`` and ``max_{I-}|f_-(x_i)| > 1/4`` (App. D.2)."""
    r = p.run
    y = r.y
    out = []
    for mask, cls in ((p.v_plus, y > 0), (p.v_minus, y < 0)):
        vals = np.array([np.abs(r.outputs(k, mask)[cls]).max() for k in range(len(r.t))])
        hit = np.flatnonzero(vals > 0.25)
        out.append(float(r.t[hit[0]]) if hit.size else float("inf"))
        out.append(int(hit[0]) - 1 if hit.size else len(r.t) - 1)
    return out[0], out[2], np.array([out[1], out[3]])


@claim("min2024.thm1.d", kind="theorem", title="Theorem 1, part 2: O(1/t) loss after t2",
       statement=r"If $\tilde V_+,\tilde V_-\ne\emptyset$: with $\alpha=(\mu X_{\min})^2/(32X_{\max})$ and "
       r"$t_1\le T\le t_2\le$ (39), $L(t)\le \frac{L(t_2)}{L(t_2)\alpha(t-t_2)+1}$ for all $t\ge t_2$.",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.lem3", "min2024.lem13", "min2024.lem14",
                                                  "min2024.lem15", "min2024.claim.decomp",
                                                  "min2024.claim.refine"],
       fixtures=FIT_FIXTURES + [NEG_A1, negative(wellsep, mutation="alpha x 1e6", **BASE)],
       judged_by="t2+- from the first saved time max|f+-| > 1/4; inequalities at every saved t >= t2; "
       "slack ratio max_t L(t)/bound(t)")
def thm1_d(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    t2p, t2m, kprev = _t2(p)
    t2 = max(t2p, t2m)
    if not np.isfinite(t2):
        return ev.inconclusive("t2 not reached within the horizon")
    # the crossing lies in (t[kprev], t2): the grid point before bounds t2 from below
    t2_lo = float(r.t[max(kprev.max(), 0)])
    T = c.T(r.log_eps)
    ev.ge("t2 >= t1 (lower estimate of t2)", t2_lo, c.t1, rtol=0.0)
    ev.ge("t2 >= T (lower estimate of t2)", t2_lo, T, rtol=0.0)
    b_plus, b_minus = c.t2_bound(c.n_pos, r.log_eps), c.t2_bound(c.n_neg, r.log_eps)
    ev.le("t2+ <= bound (39)+", t2p, b_plus, rtol=0.0)
    ev.le("t2- <= bound (39)-", t2m, b_minus, rtol=0.0)
    alpha = c.rate_alpha * (1e6 if fx.mutated() else 1.0)
    k2 = int(np.searchsorted(r.t, t2))
    L = np.array([r.loss_at(k) for k in range(len(r.t))])
    tt = r.t[k2:]
    bound = L[k2] / (L[k2] * alpha * (tt - tt[0]) + 1)
    ratio = L[k2:] / bound
    ev.le("max_{t >= t2} L(t) / bound(t)", float(ratio.max()), 1.0, rtol=1e-9)
    ev.record(t2_plus=t2p, t2_minus=t2m, T=T, t1=c.t1, bound39_plus=b_plus, bound39_minus=b_minus,
              rate_alpha=c.rate_alpha, L_t2=float(L[k2]), L_end=float(L[-1]), bound_end=float(bound[-1]),
              slack_ratio=float(ratio[1:].max()) if ratio.size > 1 else 1.0, slack_ratio_end=float(ratio[-1]),
              t2_slack_ratio=max(t2p / b_plus, t2m / b_minus))
    ev.add_series("loss after t2 vs the O(1/t) bound", tt - tt[0] + 1.0, {"L(t)": L[k2:], "bound": bound},
                  xlabel="t - t2 + 1", ylabel="loss", logx=True, logy=True)
    if not r.ok:
        ev.inconclusive("integrator failed: " + r.message)
    return ev


def _gram_log(U: np.ndarray, rho: np.ndarray) -> tuple[float, float, float]:
    """``(||W||_F^2, ||W||_2^2)`` of ``W = diag(e^{rho}) U`` scaled by ``e^{-2 max rho}``, and the shift."""
    shift = float(rho.max())
    Wt = np.exp(rho - shift)[:, None] * U
    sv = np.linalg.svd(Wt, compute_uv=False)
    return float((sv ** 2).sum()), float(sv[0] ** 2), shift


@claim("min2024.thm1.e", kind="theorem", title="Theorem 1, part 2: low-rank first layer",
       statement=r"If $\tilde V_\pm\ne\emptyset$: for all $t\ge t_1$, $\|W(t)\|_F^2\le 2\|W(t)\|_2^2+"
       r"4\sqrt h\,\epsilon W_{\max}^2$; hence $\limsup \|W\|_F^2/\|W\|_2^2\le 2$.",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.thm1.c", "min2024.claim.lowrank_blocks"],
       fixtures=FIT_FIXTURES + [negative(orth_blocks, label="min.orth_blocks"),
                                negative(wellsep, mutation="rank one: ||W||_F^2 <= ||W||_2^2", **BASE)],
       judged_by="inequality in log-shifted form at every saved t >= t1; final stable rank")
def thm1_e(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    factor = 1.0 if fx.mutated() else 2.0
    worst, srs, ts = np.inf, [], []
    k_from = p.k1 if np.isfinite(c.t1) else 0
    for k in range(k_from, len(r.t)):
        F, S2, shift = _gram_log(r.U[k], r.rho[k])
        slack_term = 4 * np.sqrt(c.h) * c.w_max ** 2 * np.exp(r.log_eps - 2 * shift)
        worst = min(worst, (factor * S2 + slack_term - F) / max(F, 1e-300))
        srs.append(F / S2)
        ts.append(r.t[k])
    ev.ge("min_t (factor ||W||_2^2 + 4 sqrt(h) eps W_max^2 - ||W||_F^2)/||W||_F^2", worst, 0.0, atol=1e-9)
    ev.record(stable_rank_final=srs[-1], stable_rank_max_after_t1=max(srs),
              slack_ratio=srs[-1] / 2.0)
    ev.add_series("stable rank ||W||_F^2/||W||_2^2 after t1", ts, {"stable rank": srs}, xlabel="t",
                  reference=2.0)
    return ev


@claim("min2024.thm1.f", kind="theorem", title="Theorem 1, part 2: ||W(t)|| -> infinity",
       statement=r"If $\tilde V_\pm\ne\emptyset$, $\|W(t)\|_F\to\infty$ (proof route: $L\to0$ and "
       r"$|f(x_i)|\le\|W\|_F^2X_{\max}$).",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.thm1.d", "min2024.lem14"],
       fixtures=FIT_FIXTURES + [NEG_A1, negative(wellsep, mutation="norm bounded by its value at t2", **BASE)],
       judged_by="finite-horizon surrogate: live norm non-decreasing after t1, X_max ||W||_F^2 >= "
       "min_i y_i f_i >= l^{-1}(L) at every saved t, and ||W||_F^2 grows past 1 after the fit")
def thm1_f(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    live = ~p.v_dead
    rho = r.rho[p.k1:, live]
    if rho.shape[0] < 2 or rho.shape[1] == 0:
        # e.g. data violating Assumption 1: t1 is infinite and the saved run ends before it
        return ev.inconclusive(f"norm growth undefined: {rho.shape[0]} saved times from t1 = {c.t1:.4g}, "
                               f"{rho.shape[1]} live neurons")
    lognorm = np.log(np.exp(2 * (rho - rho.max(1, keepdims=True))).sum(1)) + 2 * rho.max(1)
    drops = np.diff(lognorm)
    ev.ge("min increment of log sum_{live} ||w_j||^2 after t1", float(drops.min()), 0.0, atol=1e-8)
    F2 = np.exp(lognorm)
    margins = np.array([(r.y * r.outputs(k)).min() for k in range(p.k1, len(r.t))])
    ev.ge("min_t X_max ||W||_F^2 - min_i y_i f_i", float((c.x_max * F2 - margins).min()), 0.0, atol=1e-9)
    final = float(F2[-1])
    if fx.mutated():
        k2 = int(np.argmax(np.array([total_loss(r.loss, r.y, r.outputs(k))
                                     for k in range(p.k1, len(r.t))]) < len(r.y) * 0.5))
        ev.le("||W(t_end)||_F^2 <= ||W(t2)||_F^2", final, float(F2[k2]), rtol=1e-9)
    else:
        ev.ge("||W(t_end)||_F^2 >= 1 (grown from O(eps))", final, 1.0, rtol=0.0)
    ev.record(norm2_final=final, log_norm2_t1=float(lognorm[0]))
    ev.add_series("log ||W||_F^2 (live neurons) after t1", r.t[p.k1:], {"log ||W||_F^2": lognorm}, xlabel="t")
    return ev



STD = ("standard", "thorough")


T2_KEYS = ("D", "mu", "h", "xnorm", "loss")


def _t2_phases(fx, n_neg: int, seed: int):
    """The phases of the n+ = 1, n- = n_neg run at the theorem's eps, with the fixture's D, mu, h, norm range and
    loss (the series of the t2-order claims)."""
    from verify.claims import build_fixture

    kw = {k: fx.params[k] for k in T2_KEYS if k in fx.params}
    use = random(wellsep, **{**dict(D=4, mu=0.6, h=8, xnorm=(1.0, 1.5)), **kw, "n_pos": 1, "n_neg": n_neg})
    return phases(build_fixture(use, seed, "standard"))


def _t2_measured(fx, n_neg: int, seed: int) -> tuple[float, float, int]:
    """(t2, log(1/(sqrt(h) eps)), n) on n+ = 1, n- = n_neg data at the theorem's eps."""
    p = _t2_phases(fx, n_neg, seed)
    t2p, t2m, _ = _t2(p)
    c = p.run.c
    return max(t2p, t2m), -0.5 * np.log(c.h) - p.run.log_eps, c.n


@claim("min2024.thm1.t2_order", kind="claim", title="t2 = Theta((1/n) log(1/(sqrt(h) eps))) (Thm 1) as printed",
       statement=r"$t_2=\Theta(\frac1n\log\frac1{\sqrt h\epsilon})$: $n\,t_2/\log\frac1{\sqrt h\epsilon}$ is bounded "
       r"above and below independently of $n$.", hypotheses=[A1], uses=["min2024.thm1.d"],
       expected="refuted", expected_reason="with one positive point, t2 ~ log(1/eps)/||x_+|| does not shrink with n: "
       "the proof's bound (39) is O(log(1/eps)/(sqrt(mu) min(n+,n-) X_min)) (spec E24); Theta(1/n) needs balanced classes",
       fixtures=[random(wellsep, n_pos=1, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5), seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adversarial(wellsep, label="min.wellsep.t2_small_mu", n_pos=1, n_neg=3, D=4, mu=0.3, h=8,
                             xnorm=(1.0, 1.5), seeds={"standard": 1, "thorough": 2}),
                 negative(clusters, label="min.clusters.mu_negative", noise=1.5)],
       judged_by="measured t2 at the theorem's eps on n+ = 1 data with n- = 3 and 12 (same generator seed): refuted "
       "when n t2 / log(1/(sqrt(h) eps)) grows by more than 2x from n = 4 to n = 13 (1/n scaling keeps it flat)")
def thm1_t2_order(fx):
    ev = Evidence()
    if fx.family != "min.wellsep":
        ev.true("not run on data violating Assumption 1", True)
        return ev
    seed = int(fx.rng.integers(2 ** 31))
    rows = [_t2_measured(fx, k, seed) for k in (3, 12)]
    R = [n * t2 / lg for t2, lg, n in rows]
    ev.le("R(13) / R(4), R(n) = n t2 / log(1/(sqrt(h) eps))", R[1] / R[0], 2.0, rtol=0.0)
    ev.record(t2=[r[0] for r in rows], log_inv_eps=[r[1] for r in rows], n=[r[2] for r in rows], R=R,
              t2_times_xplus_over_log=[r[0] / r[1] for r in rows])
    ev.certify(counterexample="n+ = 1, n- = 3 vs 12", R=R)
    return ev


@claim("min2024.thm1.t2_order.amended", kind="claim", amends="min2024.thm1.t2_order",
       title="t2 = O(log(1/eps) / (sqrt(mu) min(n+, n-) X_min)) (amended, from (39))",
       statement=r"$T\le t_2\le$ (39), i.e. $t_2=O(\frac{\log(1/\epsilon)}{\sqrt\mu\min(n_+,n_-)X_{\min}})$ and "
       r"$t_2\ge\frac1{4nX_{\max}}\log\frac1{\sqrt h\epsilon}$.", hypotheses=[A1], uses=["min2024.thm1.d"],
       fixtures=[random(wellsep, n_pos=1, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5),
                        seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adversarial(wellsep, label="min.wellsep.t2_small_mu", n_pos=1, n_neg=3, D=4, mu=0.3, h=8,
                             xnorm=(1.0, 1.5), seeds={"standard": 1, "thorough": 2}),
                 negative(clusters, label="min.clusters.mu_negative", noise=1.5)],
       judged_by="measured t2 on n+ = 1 data with n- = 3 and 12 between T and the larger of the (39) bounds "
       "(the fixture's D, mu, h, norm range and loss; adversarial: mu = 0.3)")
def thm1_t2_order_amended(fx):
    ev = Evidence()
    if fx.family != "min.wellsep":
        ev.true("not run on data violating Assumption 1", True)
        return ev
    seed = int(fx.rng.integers(2 ** 31))
    rec = {}
    for k in (3, 12):
        p = _t2_phases(fx, k, seed)
        c, le = p.run.c, p.run.log_eps
        t2p, t2m, _ = _t2(p)
        t2, b39 = max(t2p, t2m), max(c.t2_bound(c.n_pos, le), c.t2_bound(c.n_neg, le))
        ev.ge(f"t2 >= T (n- = {k})", t2, c.T(le), rtol=0.0)
        ev.le(f"t2 <= max (39) (n- = {k})", t2, b39, rtol=0.0)
        rec[f"n_neg_{k}"] = dict(t2=t2, T=c.T(le), bound39=b39, log_eps=le, t2_over_T=t2 / c.T(le),
                                 t2_over_bound39=t2 / b39)
        if not p.run.ok:
            ev.inconclusive(f"integrator failed (n- = {k}): " + p.run.message)
    ev.record(**rec)
    return ev
