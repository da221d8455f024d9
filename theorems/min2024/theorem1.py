"""Theorem 1 of Min, Mallada & Vidal (2024), checked at the theorem's own initialisation scale.

``eps = min(eps1, eps2)`` of (28) is far below double precision (log eps ~ -1e3); the flow is simulated
in polar / log-norm coordinates (:func:`verify.numerics.flow.simulate_log_scale`), so the alignment
phase runs in the exact ``eps -> 0`` limit and the fitting phase starts when ``e^{2 rho}`` stops
underflowing. Parts (ids): thm1.a = part 1 (S+/S-/S_dead by t1), thm1.b = part 1 (activated neurons reach
S+/S-), thm1.c = part 2 trapping, thm1.d = part 2 O(1/t) loss with t2 bounds, thm1.e = part 2 low rank,
thm1.f = part 2 ||W|| -> infinity; thm1 combines them on one fixture. The order of t2 (thm1.t2_order) is
refuted as printed (E24) and carries its erratum.

The printed bounds are loose (t_align / t1 ~ 1e-3, t2 / (39) ~ 1/20) and keep the mark; each has a companion
rate check (a fitted exponent that can fail): t_align against mu and n in the eps -> 0 limit (thm1.a), the
late-phase exponent of the loss (thm1.d), the growth of ||W|| along log-horizons (thm1.f), t2 against
log(1/eps) (thm1.t2_order.amended).
"""

from __future__ import annotations

import numpy as np

from fixtures.min2024 import clusters, orth_blocks, wellsep
from verify import Evidence, adversarial, claim, erratum, judge_slope, judge_trend, negative, random

from .common import (
    A1,
    DEAD,
    LATE_DECADES,
    MINUS,
    OTHER,
    PLUS,
    THEOREM_HYPS,
    VTILDE,
    fit_horizon,
    limit_series,
    phases,
    total_loss,
)

BASE = dict(n_pos=3, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5))
SMALL = dict(n_pos=2, n_neg=2, D=3, mu=0.7, h=6, xnorm=(1.0, 1.5))
LARGE_INIT = dict(n_pos=5, n_neg=5, D=8, mu=0.3, h=10, xnorm=(1.0, 1.5), eps_rule="fixed", log_eps=0.0)
STD = ("standard", "thorough")
# large init (eps = 1) on data with t1 < ALIGN_CAP (mu = 0.9, n = 4), pinned to a seed on which a neuron is outside
# S_sign(v_j) u S_dead at every saved t in [t1, 1.2 t1] (seeds 2 and 3 of 0-3): the small-eps hypothesis (28) broken
NEG_A1 = negative(clusters, label="min.clusters.mu_negative", noise=1.5, profiles=STD)
# the same family pinned to seed 0 in every profile (1.1 s): a seed on which the trajectory claims' printed
# conclusions fail off Assumption 1 (checked claim by claim: thm1.b, claim.act, claim.decomp, claim.exist,
# claim.classified, claim.filippov, lem12.amended)
NEG_A1_PROBE = negative(clusters, label="min.clusters.mu_negative.seed0", noise=1.5, seed=0)
LARGE_INIT_PROBE = negative(wellsep, label="min.wellsep.large_init_mu09", n_pos=2, n_neg=2, D=4, mu=0.9, h=10,
                            xnorm=(1.0, 1.5), eps_rule="fixed", log_eps=0.0, seed=2)

NO_PHASE = "aligned already at t = 0 (no alignment phase)"
# a powered control on the constant: t1 is loose by ~300x (t_align/t1 = 1/326 .. 1/444 on the quick fixtures), so
# the check can only be shown to catch a constant smaller than that; 1000x (16 -> 0.016) is the closest round
# factor beyond the measured room (t1/100 would pass)
T1_THOUSANDTH = "t1 with 16 replaced by 0.016 (1000x smaller)"
T2_EXPONENT = "O(1/t^2) loss decay (exponent off by one)"
NORM_BOUNDED = "norm bounded by its value at t2"

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
PART1_EXTREMES = ("class extremes: data with S_dead interior (tilt), inits inside S- for V+ neurons, on data "
                  "hyperplanes and 1e-8 from violating Assumption 2; mu = 0.2; one positive point; eps 1000 "
                  "e-folds below (28); n = 20")


def _aligned(p) -> np.ndarray:
    """Per saved time: every V+ neuron in S+ or S_dead and every V- neuron in S- or S_dead."""
    s = p.run.s.astype(int)
    return np.all((p.mem == s[None, :]) | (p.mem == DEAD), axis=1)


def slope_error(x: np.ndarray, y: np.ndarray) -> float:
    """Standard error of the least-squares slope of log y against log x (0 with fewer than 3 points)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if lx.size < 3 or np.ptp(lx) == 0:
        return 0.0
    coef = np.polyfit(lx, ly, 1)
    resid = ly - np.polyval(coef, lx)
    return float(np.sqrt(resid @ resid / (lx.size - 2) / ((lx - lx.mean()) ** 2).sum()))


def _t_align(p) -> float:
    ok = _aligned(p)
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return 0.0
    if bad[-1] + 1 >= len(p.run.t):
        return float("inf")
    return float(p.run.t[bad[-1] + 1])


MU_SERIES = (0.6, 0.2, 0.05, 0.02)
T1_EXPONENT_SE = 0.5    # t1's own fitted exponent along a series is compared only when its standard error is below this
N_FACTORS = (1, 2, 4)


def _t_align_rates(fx, ev: Evidence) -> None:
    """Companion rate checks of thm1.a in the eps -> 0 limit: the fitted exponent of t_align against mu (data
    rebuilt from the fixture's seed at each mu) and against n (class sizes x1, x2, x4) compared with the
    exponents of the explicit t1 = 16 log n/(min{zeta, xi} sqrt(mu) X_min) on the same data: t_align <= t1
    needs t_align to grow no faster than t1 (slope vs mu >= t1's, slope vs n <= t1's). t_align is noisy (the
    last neuron to align may start near a hyperplane): the tolerance is 0.1 plus twice the fit's standard
    error, so a scattered 3-point fit cannot refute."""
    for key, values in (("mu", MU_SERIES), ("n", N_FACTORS)):
        xs, runs, consts = limit_series(fx, values, key)
        ta = np.array([r.t_align for r in runs])
        t1 = np.array([c.t1 for c in consts])
        ev.record(**{f"t_align along {key}": ta, f"t1 along {key}": t1, f"{key} values": xs})
        if not all(r.ok for r in runs):
            ev.inconclusive(f"eps -> 0 alignment run failed along {key}: " + "; ".join(r.message for r in runs))
            continue
        if not np.all(np.isfinite(ta)):
            ev.inconclusive(f"not aligned within the horizon along {key} (t_align {ta})")
            continue
        keep = ta > 0
        b = float(np.polyfit(np.log(xs), np.log(t1), 1)[0])
        se_t1 = slope_error(xs, t1)
        ev.record(**{f"t1 exponent in {key}": b, f"t1 exponent in {key}, standard error": se_t1})
        name = f"t_align vs {key} (eps -> 0 limit)"
        if se_t1 > T1_EXPONENT_SE:
            # t1 is rebuilt from each member's data (min{zeta, xi}, X_min): where it is no power law along the series
            # (e.g. 1998, 92, 178 at n = 5, 10, 20) it has no exponent to compare with; the bound t_align <= t1 itself
            # is judged on every member above
            ev.note(f"{name}: not judged, t1 along {key} is no power law (its fitted exponent {b:.3g} has standard "
                    f"error {se_t1:.3g} > {T1_EXPONENT_SE:g})")
            continue
        se = slope_error(xs[keep], ta[keep])
        # pins nothing: t_align <= t1 is loose by its constant 16 log n/min{zeta, mu^2} (and t_align does not attain
        # t1's mu-exponent ~ -2.5); an n-exponent that happens to match t1's would pin the n-dependence alone
        judge_slope(name, xs[keep], ta[keep], predicted=b, relation=">=" if key == "mu" else "<=",
                    atol=0.1 + 2 * se, evidence=ev, xlabel=key, ylabel="t_align", pins=[],
                    toward="zero" if key == "mu" else "infinity")


@claim("min2024.thm1.a", kind="theorem", title="Theorem 1, part 1: directional convergence by t1",
       statement=r"With $t_1=16\log n/(\min\{\zeta,\xi\}\sqrt\mu X_{\min})$: $\forall j\in V_+$, "
       r"$w_j(t_1)\in S_+\cup S_{dead}$; $\forall j\in V_-$, $w_j(t_1)\in S_-\cup S_{dead}$.",
       hypotheses=THEOREM_HYPS, fidelity="faithful",
       uses=["min2024.lem1", "min2024.lem8", "min2024.lem9", "min2024.lem11",
             "min2024.lem12.amended", "min2024.asm1", "min2024.asm2",
             "min2024.claim.act", "min2024.claim.dwell", "min2024.claim.cap", "min2024.claim.path"],
       fixtures=PART1_FIXTURES + [
           negative(wellsep, label="min.wellsep.large_init", **LARGE_INIT), LARGE_INIT_PROBE,
           negative(wellsep, mutation=NO_PHASE, **BASE), negative(wellsep, mutation=T1_THOUSANDTH, **BASE)],
       judged_by="membership of every neuron at every saved t in [t1, 1.2 t1] on the polar flow at the "
       "theorem's eps (when t1 > 200: simulated to 200, later times certified by Lemma 12); t_align / t1 "
       "recorded (the bound is loose and keeps the mark: smallest room 326 in quick; t1 carries min{zeta, mu^2} <= "
       "mu^2, so no data set of the family brings it within 10x); companion rate checks, shown beside it (they pin "
       "nothing: t_align's exponents are not t1's), in the eps -> 0 limit: fitted exponents of "
       "t_align against mu (0.6 ... 0.02) and n (x1, x2, x4) against those of t1 on the same data; controls: t1 -> 0 "
       "and t1/1000 (the closest round factor beyond the measured room; t1/100 would pass: the check has no power "
       "nearer the printed constant on this family); " + PART1_EXTREMES)
def thm1_a(fx):
    ev = Evidence()
    p = phases(fx, "align")
    t1 = 0.0 if fx.mutated(NO_PHASE) else p.run.c.t1 / 1000 if fx.mutated(T1_THOUSANDTH) else p.run.c.t1
    ok = _aligned(p)
    ta = _t_align(p)
    t_last = float(p.run.t[-1])
    # beyond the simulated horizon (t1 > ALIGN_CAP) the configuration is certified by Lemma 12 (trapping)
    after = p.run.t >= min(t1 * (1 - 1e-12), t_last)
    ev.forall("every neuron in S_sign(v_j) or S_dead at every saved t >= min(t1, horizon)", ok[after],
              relation="true", detail=f"{int((~ok[after]).sum())} of {int(after.sum())} saved times violate; "
              f"horizon {t_last:.4g}" + (" (t >= horizon certified by Lemma 12)" if t_last < t1 else ""))
    # not aligned at the end of a horizon past t1: the last entry is later than the horizon (a finite lower estimate)
    late = not np.isfinite(ta) and t_last >= t1
    ev.le("t_align (last entry into the aligned configuration)", t_last if late else ta, t1, rtol=0.0,
          detail=f"not aligned by the horizon {t_last:.4g}: t_align > horizon" if late else "")
    if t_last < t1 and not ok[-1]:
        ev.inconclusive(f"not aligned by the simulated horizon {t_last:.4g} < t1 = {t1:.4g}")
    ev.record(t_align=ta, t1=t1, t_align_over_t1=ta / t1 if t1 > 0 else None, log_eps=p.run.log_eps,
              integrator=p.run.message, members_final=p.mem[-1], n_dead=int((p.mem[-1] == DEAD).sum()))
    if not p.run.ok:
        ev.inconclusive("integrator failed: " + p.run.message)
    if fx.kind != "negative" or fx.mutation:
        _t_align_rates(fx, ev)
    k = p.run.t <= min(5.0, p.run.t[-1])
    counts = {name: (p.mem[k] == code).sum(1) for name, code in
              (("in S+", PLUS), ("in S-", MINUS), ("dead", DEAD))}
    ev.add_series("neuron memberships during alignment", p.run.t[k], counts, xlabel="t", ylabel="neurons")
    return ev


PREMISE_DROPPED = "premise dropped: every V+ neuron in S+"


@claim("min2024.thm1.b", kind="theorem", title="Theorem 1, part 1: initially active neurons reach S+ / S-",
       statement=r"If $\max_{i\in I_+}\langle w_j(0),x_i\rangle>0$ and $j\in V_+$ then $w_j(t_1)\in S_+$ "
       r"(symmetrically for $V_-$, $I_-$, $S_-$).",
       hypotheses=THEOREM_HYPS, uses=["min2024.thm1.a", "min2024.claim.act"], fidelity="faithful",
       no_room="memberships: a yes/no conclusion",
       fixtures=[u if u.name != "min.wellsep.in_sminus" else
                 adversarial(wellsep, label="min.wellsep.in_sminus", expect=("pass", "vacuous"),
                             **{**BASE, "crafted": "in_sminus"}) for u in PART1_FIXTURES] + [
           negative(wellsep, mutation=PREMISE_DROPPED, **{**BASE, "tilt": True, "crafted": "dead"}),
           negative(wellsep, label="min.wellsep.large_init", **LARGE_INIT), NEG_A1_PROBE],
       judged_by="membership at every saved t in [t1, 1.2 t1] of every neuron meeting the premise (a quantifier: "
       "vacuous when no neuron does, which the inits crafted inside S-+ may cause); on the data breaking Assumption 1 "
       "t1 is infinite and the probe reads the last simulated time (t = 12); " + PART1_EXTREMES)
def thm1_b(fx):
    ev = Evidence()
    p = phases(fx, "align")
    X, y, s = fx["X"], fx["y"], p.run.s
    pre0 = fx["W0"] @ X.T
    premise = np.where(s > 0, (pre0[:, y > 0] > 0).any(1), (pre0[:, y < 0] > 0).any(1))
    if fx.mutated(PREMISE_DROPPED):
        premise = np.ones_like(premise)
    after = p.after  # k1 is clamped to the last saved state when t1 > ALIGN_CAP (Lemma 12 beyond)
    target = np.where(s > 0, PLUS, MINUS)
    good = (p.mem[np.ix_(after, np.flatnonzero(premise))] == target[premise][None, :]).all(0)
    ev.forall("premise neurons in S_sign(v_j) at every saved t >= t1", good, relation="true",
              detail=f"{int(premise.sum())} premise neurons; {int((~good).sum())} outside at some t >= t1")
    ev.record(premise_neurons=int(premise.sum()), final_members=p.mem[-1])
    if not p.run.ok:
        ev.inconclusive("integrator failed: " + p.run.message)
    return ev


FIT_FIXTURES = [
    random(wellsep, **BASE),
    random(wellsep, label="min.wellsep.logistic2", profiles=STD, **{**SMALL, "h": 10, "loss": "logistic2"}),
    adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True}),
    adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
    adversarial(wellsep, label="min.wellsep.imbalanced", n_pos=1, n_neg=5, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5),
                loss="logistic2"),
    adversarial(wellsep, label="min.wellsep.small_mu", **{**SMALL, "mu": 0.3}),
]
FIT_EXTREMES = ("losses: exponential and the appendix's 2 log(1 + e^{-q}) (the class of Lemma 2); data with "
                "S_dead interior, one positive point, mu = 0.3; inits inside S- for V+ neurons")
TRAP_FROM_0 = "trapping from t = 0"


@claim("min2024.thm1.c", kind="theorem", title="Theorem 1, part 2: neurons stay in their cone after t1",
       statement=r"For all $t\ge t_1$ and all $j$: $w_j(t)$ stays in $S_+$ ($S_-$, $S_{dead}$) if "
       r"$w_j(t_1)\in S_+$ ($S_-$, $S_{dead}$).",
       hypotheses=THEOREM_HYPS, uses=["min2024.lem12.amended"], fidelity="faithful",
       no_room="memberships: a yes/no conclusion",
       fixtures=FIT_FIXTURES + [NEG_A1, LARGE_INIT_PROBE, negative(wellsep, mutation=TRAP_FROM_0, **BASE)],
       judged_by="membership equality at every saved t in [t1, t_end], t_end 12 decades past the fitting "
       "onset, of every neuron in S+, S- or S_dead at t1 (the printed quantifier); " + FIT_EXTREMES)
def thm1_c(fx):
    ev = Evidence()
    p = phases(fx)
    k0 = 0 if fx.mutated(TRAP_FROM_0) else p.k1
    same = (p.mem[k0:] == p.mem[k0][None, :]).all(0)[p.mem[k0] != OTHER]
    ev.forall("every neuron in S+, S- or S_dead at t1: membership at t equals membership at t1, for all saved "
              "t >= t1", same, relation="true", detail=f"{int((~same).sum())} of {same.size} neurons change over "
              f"{len(p.run.t) - k0} saved times")
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
        vals = np.abs(r.outputs_all(mask)[:, cls]).max(axis=1)
        hit = np.flatnonzero(vals > 0.25)
        out.append(float(r.t[hit[0]]) if hit.size else float("inf"))
        out.append(int(hit[0]) - 1 if hit.size else len(r.t) - 1)
    return out[0], out[2], np.array([out[1], out[3]])


def _losses(r) -> np.ndarray:
    return np.array([r.loss_at(k) for k in range(len(r.t))])


@claim("min2024.thm1.d", kind="theorem",
       fidelity="faithful",
       cannot_fail="the O(1/t) bound and T <= t2 <= (39) are defined where t1 and t2 exist: off Assumptions 1-2 t1 is "
       "infinite and t2 is not reached (the min.clusters control is undecided), and at large eps the late-phase fit "
       "is not certified (undecided); the mutated O(1/t^2) rate is refuted",
       title="Theorem 1, part 2: O(1/t) loss after t2",
       statement=r"If $\tilde V_+,\tilde V_-\ne\emptyset$: with $\alpha=(\mu X_{\min})^2/(32X_{\max})$ and "
       r"$t_1\le T\le t_2\le$ (39), $L(t)\le \frac{L(t_2)}{L(t_2)\alpha(t-t_2)+1}$ for all $t\ge t_2$.",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.lem3", "min2024.lem13", "min2024.lem14",
                                                  "min2024.lem15", "min2024.claim.decomp",
                                                  "min2024.claim.refine"],
       fixtures=FIT_FIXTURES + [NEG_A1, negative(wellsep, mutation=T2_EXPONENT, **BASE)],
       judged_by="t2+- from the first saved time max|f+-| > 1/4; the O(1/t) bound at every saved t > t2 up to "
       "12 decades past the fitting onset (room = min bound/L); companion rate check: the fitted exponent of "
       "L against t - t2 over the late phase (t >= 10 t2) is <= -1 (the bound's rate; the flow gives "
       "~ -1 - 1/log t); " + FIT_EXTREMES)
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
    alpha = c.rate_alpha
    k2 = int(np.searchsorted(r.t, t2))
    L = _losses(r)
    tt = r.t[k2:]
    bound = L[k2] / (L[k2] * alpha * (tt - tt[0]) + 1)
    # at t = t2 itself the bound is L(t2): an identity, not a comparison
    ratio = L[k2 + 1:] / bound[1:]
    ev.forall("L(t) / bound(t) at every saved t > t2", ratio, 1.0, relation="<=", rtol=1e-9)
    late = r.t >= 10 * t2
    judge_slope("late-phase loss decay: L against t - t2", r.t[late] - t2, L[late],
                predicted=-2.0 if fx.mutated(T2_EXPONENT) else -1.0, relation="<=", atol=0.1, evidence=ev,
                xlabel="t - t2", ylabel="L", pins=["L(t) / bound(t) at every saved t > t2"])
    ev.record(t2_plus=t2p, t2_minus=t2m, T=T, t1=c.t1, bound39_plus=b_plus, bound39_minus=b_minus,
              rate_alpha=c.rate_alpha, L_t2=float(L[k2]), L_end=float(L[-1]), bound_end=float(bound[-1]),
              max_L_over_bound=float(ratio.max()) if ratio.size else None, t2_over_bound39=max(t2p / b_plus,
                                                                                              t2m / b_minus))
    ev.add_series("loss after t2 vs the O(1/t) bound", tt - tt[0] + 1.0, {"L(t)": L[k2:], "bound": bound},
                  xlabel="t - t2 + 1", ylabel="loss", logx=True, logy=True)
    if not r.ok:
        ev.inconclusive("integrator failed: " + r.message)
    return ev


def _gram_log(U: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(||W||_F^2, ||W||_2^2)`` of ``W = diag(e^{rho}) U`` scaled by ``e^{-2 max rho}``, and the shift, for a
    stack of states ``U`` (K, h, D), ``rho`` (K, h)."""
    shift = rho.max(-1)
    Wt = np.exp(rho - shift[..., None])[..., None] * U
    sv = np.linalg.svd(Wt, compute_uv=False)
    return (sv ** 2).sum(-1), sv[..., 0] ** 2, shift


RANK_ONE = "rank one: ||W||_F^2 <= ||W||_2^2"


@claim("min2024.thm1.e", kind="theorem", title="Theorem 1, part 2: low-rank first layer",
       statement=r"If $\tilde V_\pm\ne\emptyset$: for all $t\ge t_1$, $\|W(t)\|_F^2\le 2\|W(t)\|_2^2+"
       r"4\sqrt h\,\epsilon W_{\max}^2$; hence $\limsup \|W\|_F^2/\|W\|_2^2\le 2$.",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.thm1.c", "min2024.claim.lowrank_blocks"],
       fidelity="faithful",
       fixtures=FIT_FIXTURES + [negative(orth_blocks, label="min.orth_blocks"),
                                negative(wellsep, mutation=RANK_ONE, **BASE)],
       judged_by="inequality in log-shifted form at every saved t >= t1 (12 decades past the fitting onset), as the "
       "ratio (2 ||W||_2^2 + 4 sqrt(h) eps W_max^2)/||W||_F^2 >= 1, whose room is the factor by which the bound "
       "exceeds ||W||_F^2 (~2/stable rank: ~1.9 at stable rank ~1.06 in quick); the mutated factor 1 (rank one) is "
       "refuted; final stable rank; " + FIT_EXTREMES)
def thm1_e(fx):
    ev = Evidence()
    p = phases(fx)
    r, c = p.run, p.run.c
    factor = 1.0 if fx.mutated(RANK_ONE) else 2.0
    k_from = p.k1 if np.isfinite(c.t1) else 0
    F, S2, shift = _gram_log(r.U[k_from:], r.rho[k_from:])
    with np.errstate(over="ignore"):
        slack_term = 4 * np.sqrt(c.h) * c.w_max ** 2 * np.exp(r.log_eps - 2 * shift)
    worst = float(np.min((factor * S2 + slack_term) / np.maximum(F, 1e-300)))
    ev.ge(f"min_t ({factor:g} ||W||_2^2 + 4 sqrt(h) eps W_max^2)/||W||_F^2 (the bound over ||W||_F^2)", worst, 1.0,
          rtol=1e-9)
    srs = F / S2
    ev.record(stable_rank_final=float(srs[-1]), stable_rank_max_after_t1=float(srs.max()))
    ev.add_series("stable rank ||W||_F^2/||W||_2^2 after t1", r.t[k_from:], {"stable rank": srs}, xlabel="t",
                  reference=2.0)
    if not r.ok:
        ev.inconclusive("integrator failed: " + r.message)
    return ev


NORM_TOL = 0.02   # 1/(X_max ||W||_F^2) at the last horizon: margins y_i f_i up to 50


@claim("min2024.thm1.f", kind="theorem",
       no_room="a limit judged as a trend against a tolerance; the proof route's inequalities are signs",
       fidelity="proxy",
       fidelity_note="||W|| -> infinity judged as a trend: 1/(X_max ||W(t)||_F^2) at the horizons t_fit 10^k, k = "
       "0..12, falls below 0.02 (margins up to 50), with the proof route (non-decreasing live norm, X_max ||W||_F^2 "
       ">= min_i y_i f_i) at every saved t; no limit is taken",
       cannot_fail="the norm grows whenever the loss goes to 0, which the flow also reaches at large eps (held on "
       "min.wellsep.large_init_mu09), and off Assumption 1 t1 is infinite (undecided); the mutated bounded-norm "
       "statement is refuted",
       title="Theorem 1, part 2: ||W(t)|| -> infinity",
       statement=r"If $\tilde V_\pm\ne\emptyset$, $\|W(t)\|_F\to\infty$ (proof route: $L\to0$ and "
       r"$|f(x_i)|\le\|W\|_F^2X_{\max}$).",
       hypotheses=THEOREM_HYPS + [VTILDE], uses=["min2024.thm1.d", "min2024.lem14"],
       fixtures=FIT_FIXTURES + [NEG_A1, negative(wellsep, mutation=NORM_BOUNDED, **BASE)],
       judged_by="a limit judged as a trend: 1/(X_max ||W(t)||_F^2) at the horizons t_fit 10^k, k = 0..12 "
       "(t_fit past the fitting onset), against log t (the norm grows like log t: margins grow like log t while "
       "L ~ 1/t), tolerance 0.02; with the proof route checked at every saved t >= t1: the live norm is "
       "non-decreasing and X_max ||W||_F^2 >= min_i y_i f_i; " + FIT_EXTREMES)
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
    ev.ge("min increment of log sum_{live} ||w_j||^2 after t1", float(np.diff(lognorm).min()), 0.0, atol=1e-8)
    F2 = np.exp(lognorm)
    margins = (r.y * r.outputs_all(start=p.k1)).min(axis=1)
    ev.ge("min_t X_max ||W||_F^2 - min_i y_i f_i", float((c.x_max * F2 - margins).min()), 0.0, atol=1e-9)
    t_fit = fit_horizon(c, r.log_eps, r.X, r.y)
    horizons = t_fit * 10.0 ** np.arange(LATE_DECADES + 1)
    k = np.minimum(np.searchsorted(r.t, horizons * (1 - 1e-12)), len(r.t) - 1)
    F2_all = np.exp(np.log(np.exp(2 * (r.rho[k] - r.rho[k].max(1, keepdims=True))).sum(1)) + 2 * r.rho[k].max(1))
    if fx.mutated(NORM_BOUNDED):
        kt = p.k1 + int(np.argmax(np.array([total_loss(r.loss, r.y, r.outputs(kk))
                                            for kk in range(p.k1, len(r.t))]) < len(r.y) * 0.5))
        ev.le("||W(t_end)||_F^2 <= ||W(t2)||_F^2", float(F2[-1]), float(F2[kt - p.k1]), rtol=1e-9)
    judge_trend("1/(X_max ||W||_F^2)", np.log(r.t[k]), 1.0 / (c.x_max * F2_all), NORM_TOL, evidence=ev,
                scale_label="log t")
    ev.record(norm2_final=float(F2[-1]), log_norm2_t1=float(lognorm[0]))
    ev.add_series("log ||W||_F^2 (live neurons) after t1", r.t[p.k1:], {"log ||W||_F^2": lognorm}, xlabel="t",
                  logx=True)
    if not r.ok:
        ev.inconclusive("integrator failed: " + r.message)
    return ev


@claim("min2024.thm1", kind="theorem",
       fidelity="faithful",
       cannot_fail="the parts' own probes show the hypotheses necessary (thm1.a and thm1.c fail at large eps, thm1.b "
       "and thm1.e off Assumption 1); on one combined fixture a broken hypothesis leaves part d's late-phase fit "
       "uncertified, so the combination is undecided there",
       timeout_s=1200,
       title="Theorem 1 (early alignment, then O(1/t) loss and low rank)",
       statement=r"Under Assumptions 1-2, init (3) with $\epsilon\le\min\{\epsilon_1,\epsilon_2\}$ and any regular "
       r"solution: by $t_1$ every $w_j\in S_{\mathrm{sign}(v_j)}\cup S_{dead}$ (initially active neurons in "
       r"$S_{\mathrm{sign}(v_j)}$); afterwards the neurons are trapped, and when $\tilde V_\pm\ne\emptyset$: "
       r"$L(t)\le L(t_2)/(L(t_2)\alpha(t-t_2)+1)$ for $t\ge t_2\ge t_1$, $\|W\|_F^2\le 2\|W\|_2^2+O(\epsilon)$, "
       r"$\|W\|\to\infty$. (The order $t_2=\Theta(\frac1n\log\frac1{\sqrt h\epsilon})$ is the claim "
       r"thm1.t2_order, refuted as printed; $t_1=O(\log n/\sqrt\mu)$ is claim.t1order.)",
       hypotheses=THEOREM_HYPS + [VTILDE],
       uses=["min2024.thm1.a", "min2024.thm1.b", "min2024.thm1.c", "min2024.thm1.d", "min2024.thm1.e",
             "min2024.thm1.f", "min2024.thm1.t2_order.amended", "min2024.claim.t1order"],
       fixtures=[random(wellsep, **BASE),
                 random(wellsep, label="min.wellsep.logistic2", profiles=STD, **{**SMALL, "h": 10, "loss": "logistic2"}),
                 adversarial(wellsep, label="min.wellsep.in_sminus", **{**BASE, "crafted": "in_sminus"}),
                 NEG_A1, negative(wellsep, mutation=T2_EXPONENT, **BASE)],
       judged_by="the checks of parts a-f on one fixture, combined: every part's conclusions, validity and rate "
       "checks (part a's rate series included) must hold together")
def thm1(fx):
    ev = Evidence()
    for part, check in (("a", thm1_a), ("b", thm1_b), ("c", thm1_c), ("d", thm1_d), ("e", thm1_e), ("f", thm1_f)):
        ev.merge(check(fx), prefix=f"part {part}: ")
    return ev


# ---------------------------------------------------------------------------------------------
# The order of t2 (Theorem 1, part 2): E24

T2_KEYS = ("D", "mu", "h", "xnorm", "loss")
T2_OPPOSITE = "t2 <= t1 (the opposite inequality)"
EPS_FACTORS = (1.0, 2.0, 4.0)


def _t2_fixture(fx, n_neg: int, seed: int, eps_factor: float = 1.0):
    """The n+ = 1, n- = n_neg fixture at ``eps_factor`` times the theorem's log eps, with the fixture's D, mu, h,
    norm range and loss (the series of the t2-order claims)."""
    from verify.claims import build_fixture

    from .common import fixture_constants

    kw = {k: fx.params[k] for k in T2_KEYS if k in fx.params}
    params = {**dict(D=4, mu=0.6, h=8, xnorm=(1.0, 1.5)), **kw, "n_pos": 1, "n_neg": n_neg}
    base = build_fixture(random(wellsep, **params), seed, "standard")
    if eps_factor == 1.0:
        return base
    le = eps_factor * fixture_constants(base).log_eps_theorem
    return build_fixture(random(wellsep, **params, eps_rule="fixed", log_eps=le), seed, "standard")


def _t2_lower_bound(c, log_eps: float) -> float:
    """An analytic lower bound on t2+ (no simulation): by Lemmas 2-3, |g_i| <= 3/2 while |f| <= 1/4, so
    d rho_j/dt <= (3/2) n X_max before t1 (T >= t1 under (28)) and <= (3/2) n+ X_max after it (a V~+ neuron
    activates only I+); f+ > 1/4 needs h X_max e^{2 max rho_j} > 1/4, with rho_j(0) <= log eps + log W_max."""
    need = np.log(1.0 / (4 * c.h * c.x_max)) - 2 * (log_eps + np.log(c.w_max))
    early = 3 * c.n * c.x_max * c.t1
    if need <= early:
        return need / (3 * c.n * c.x_max)
    return c.t1 + (need - early) / (3 * c.n_pos * c.x_max)


@claim("min2024.thm1.t2_order", kind="claim",
       fidelity="faithful", cannot_fail="(amended) T <= t2 <= (39) and t2's linear growth in log(1/eps) are judged "
       "where t2 exists: off Assumption 1 there is no t2 (the min.clusters control is undecided); the mutated "
       "opposite inequality t2 <= t1 is refuted (the printed Theta(1/n) fails on the positive fixtures)",
       timeout_s=1200,
       title="t2 = Theta((1/n) log(1/(sqrt(h) eps))) (Thm 1)",
       statement=r"$t_1\le t_2=\Theta(\frac1n\log\frac1{\sqrt h\epsilon})$: $n\,t_2/\log\frac1{\sqrt h\epsilon}$ is "
       r"bounded above and below independently of $n$.", hypotheses=[A1], uses=["min2024.thm1.d"],
       erratum=erratum(
           kind="false statement", location="Theorem 1, part 2, first bullet (Sec. 3.1); also Sec. 3.1 'Final "
           "convergence' remark",
           printed=r"$\exists \alpha > 0$ and $\exists t_2$ with $t_1 \leq t_2 = \Theta(\frac{1}{n} \log "
           r"\frac{1}{\sqrt{h\epsilon}})$",
           reading="Theta(1/n) with constants depending on the data only through mu, X_min, X_max (the paper's "
           "O-notation hides data constants, Sec. 3.1): n t2 / log(1/(sqrt(h) eps)) stays bounded as n grows at "
           "fixed mu and norm range. With one positive point (n+ = 1) the fitting of I+ runs at rate <= "
           "(3/2) ||x_1||, independent of n",
           second_method="an analytic lower bound on t2 from Lemmas 2-3 and the data constants alone (no "
           "simulation): t2+ >= t1 + (log(1/(4 h X_max)) - 2 log(eps W_max) - 3 n X_max t1)/(3 n+ X_max); its "
           "ratio R_lb(13)/R_lb(4) is computed in the check and exceeds 2",
           independence="closed form",
           summary="t2 is not Theta((1/n) log(1/eps)) with one positive point: n t2/log(1/(sqrt h eps)) grows "
           "~3.7x from n = 4 to 13; the proof's (39) gives O(log(1/eps)/(sqrt(mu) min(n+, n-) X_min))",
           amended=r"$T\le t_2\le$ (39), i.e. $t_2=O(\frac{\log(1/\epsilon)}{\sqrt\mu\min(n_+,n_-)X_{\min}})$ and "
           r"$t_2\ge T=\frac1{4nX_{\max}}\log\frac1{\sqrt h\epsilon}$; $t_2$ grows linearly in $\log(1/\epsilon)$.",
           difference="1/min(n+, n-) in place of 1/n in the upper order (Theta(1/n) only for class-balanced data)",
           amended_title="t2 between T and (39), linear in log(1/eps) (amended)"),
       fixtures=[random(wellsep, n_pos=1, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5),
                        seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adversarial(wellsep, label="min.wellsep.t2_small_mu", n_pos=1, n_neg=3, D=4, mu=0.3, h=8,
                             xnorm=(1.0, 1.5), seeds={"standard": 1, "thorough": 2}),
                 NEG_A1,
                 negative(wellsep, mutation=T2_OPPOSITE, n_pos=1, n_neg=3, D=4, mu=0.6, h=8, xnorm=(1.0, 1.5))],
       judged_by="measured t2 at the theorem's eps on n+ = 1 data with n- = 3 and 12 (same generator seed). "
       "Printed: refuted when R(n) = n t2 / log(1/(sqrt(h) eps)) grows by more than 2x from n = 4 to 13 (1/n "
       "scaling keeps it flat). Amended: T <= t2 <= max (39) at both n, and the rate companion: t2 at 1, 2 and 4 "
       "times the theorem's log eps (n- = 3) has fitted exponent 1 (+-0.1) in log(1/(sqrt h eps))")
def thm1_t2_order(fx):
    ev = Evidence()
    if fx.family != "min.wellsep":
        ev.note("not run on data violating Assumption 1")
        return ev.inconclusive("Assumption 1 fails: no t2 to measure")
    seed = int(fx.rng.integers(2 ** 31))
    rows = {}
    for k in (3,) if fx.mutated(T2_OPPOSITE) else (3, 12):
        p = phases(_t2_fixture(fx, k, seed))
        c, le = p.run.c, p.run.log_eps
        t2p, t2m, _ = _t2(p)
        t2 = max(t2p, t2m)
        lg = -0.5 * np.log(c.h) - le
        rows[k] = dict(n=c.n, t2=t2, log_inv=lg, T=c.T(le), t1=c.t1, bound39=max(c.t2_bound(c.n_pos, le),
                                                                                c.t2_bound(c.n_neg, le)),
                       R=c.n * t2 / lg, R_lower_bound=c.n * _t2_lower_bound(c, le) / lg,
                       vtilde=bool(p.v_plus.any() and p.v_minus.any()))
        if not p.run.ok:
            ev.inconclusive(f"integrator failed (n- = {k}): " + p.run.message)
    ev.record(**{f"n_neg_{k}": v for k, v in rows.items()})
    # t2 is defined by Thm 1 part 2 only when V~+ and V~- are nonempty: a series member where a class keeps no live
    # neuron (h = 2 at n- = 12 left both empty on a hunted min.wellsep) has t2 = inf by construction, not a
    # measured t2 outside the bounds
    empty = [k for k, v in rows.items() if not v["vtilde"]]
    if empty:
        return ev.inconclusive(f"V~+ or V~- empty at n- = {', '.join(map(str, empty))}: t2 undefined there "
                               "(Thm 1 part 2 needs both nonempty)")
    if fx.mutated(T2_OPPOSITE):
        for k, v in rows.items():
            ev.le(f"t2 <= t1 (n- = {k})", v["t2"], v["t1"], rtol=0.0)
        return ev
    if not fx.amended:
        ev.le("R(13) / R(4), R(n) = n t2 / log(1/(sqrt(h) eps))", rows[12]["R"] / rows[3]["R"], 2.0, rtol=0.0)
        ev.record(R_lower_bound_ratio=rows[12]["R_lower_bound"] / rows[3]["R_lower_bound"])
        ev.certify(counterexample="n+ = 1, n- = 3 vs 12", R=[rows[3]["R"], rows[12]["R"]],
                   analytic_R_lower_bounds=[rows[3]["R_lower_bound"], rows[12]["R_lower_bound"]])
        return ev
    for k, v in rows.items():
        ev.ge(f"t2 >= T (n- = {k})", v["t2"], v["T"], rtol=0.0)
        ev.le(f"t2 <= max (39) (n- = {k})", v["t2"], v["bound39"], rtol=0.0)
    t2s, lgs = [rows[3]["t2"]], [rows[3]["log_inv"]]
    for f in EPS_FACTORS[1:]:
        p = phases(_t2_fixture(fx, 3, seed, eps_factor=f))
        if not (p.v_plus.any() and p.v_minus.any()):
            return ev.inconclusive(f"V~+ or V~- empty at log eps x {f}: t2 undefined there")
        t2p, t2m, _ = _t2(p)
        t2s.append(max(t2p, t2m))
        lgs.append(-0.5 * np.log(p.run.c.h) - p.run.log_eps)
        if not p.run.ok:
            ev.inconclusive(f"integrator failed (log eps x {f}): " + p.run.message)
    # T and (39) are linear in log(1/eps): the exponent pins the two n- = 3 bounds (not the n- = 12 ones)
    judge_slope("t2 against log(1/(sqrt(h) eps)) (n- = 3)", lgs, t2s, predicted=1.0, relation="==", atol=0.1,
                evidence=ev, xlabel="log(1/(sqrt h eps))", ylabel="t2",
                pins=["t2 >= T (n- = 3)", "t2 <= max (39) (n- = 3)"])
    return ev
