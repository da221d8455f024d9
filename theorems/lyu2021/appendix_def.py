"""Appendices D, E, F of Lyu et al. (2021): the linearised Phase-I flow (D.1, D.2), the embedding and
Phase-II lemmas (E.2, E.7, E.10, E.11) and the width-2 KKT analysis of Phase III (F.1, F.2, F.3)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import expm

from fixtures.lyu2021 import gen_gauss, sym_broken, sym_collinear, sym_gauss, sym_n2, sym_tinygap
from verify import Evidence, claim, erratum, judge_binomial, judge_slope, judge_trend, negative, random
from verify import adversarial as adv
from verify.numerics.margin import two_layer_kkt_residual
from verify.numerics.nets import (
    activation,
    clarke_extreme_gradients,
    gradient,
    normalized_margin,
    parameter_norm_sq,
)

from . import catalogue as cat
from .appendix_b import on_kink, random_theta
from .common import (
    LAMBDA_MU_DISPLAY,
    bbar,
    d_init,
    embed,
    good_embedding,
    lambda0,
    lambda0_imprecision,
    linear_net,
    mu_tilde,
    norm_M,
    svm,
)
from .dynamics import flow_ode, gd_until_margin, inconclusive_on_stall, judge_floored_trend, ngd_horizons
from .hyps import separable, symmetric, unit_data

# ---------------------------------------------------------------------------------------------
# Appendix D: the linearised flow


def linear_flow(W0, a0, mt, t):
    """phi~(theta~0, t): per neuron d(w, a)/dt = M (w, a), M = [[0, mu~], [mu~^T, 0]] (gradient flow of L~)."""
    d = len(mt)
    M = np.zeros((d + 1, d + 1))
    M[:d, d] = mt
    M[d, :d] = mt
    E = expm(t * M)
    Z = np.concatenate([W0, a0[:, None]], axis=1) @ E.T
    return Z[:, :d], Z[:, d]


RATE_HALF = "rate lambda0/2"


@claim("lyu2021.lemD.1", **cat.declared("lemD.1"), **{**cat.item("lemD.1"), "statement": cat.statement("lemD.1") + (
           r" Here $\tilde\theta$ solves $\dot{\tilde w}_k = \tilde a_k\tilde\mu$, $\dot{\tilde a}_k = \langle\tilde w_k, "
           r"\tilde\mu\rangle$ and $\lambda_0 = \|\tilde\mu\|$: the bound holds for every vector $\tilde\mu$, and is checked "
           r"with the printed $\tilde\mu = \frac{1+\alpha}{2}\mu$ and with the corrected $\frac{1+\alpha}{4}\mu$ "
           r"(lyu2021.obs.sec5.1.mu_tilde); the printed statement holds.")},
       hypotheses=[symmetric],
       fixtures=[random(sym_gauss, m=4), random(sym_gauss, m=8, d=5), adv(sym_collinear, m=3, label="nearly collinear data"),
                 adv(sym_n2, m=1, label="n = 2, m = 1"), adv(sym_gauss, m=2, alpha=0.01, label="alpha -> 0"),
                 negative(sym_broken, m=4), negative(sym_gauss, m=4, mutation=RATE_HALF)],
       judged_by="the linear flow by the matrix exponential (expm): ||theta~(t)||_M <= e^{lambda0 t}||theta~0||_M on 50 "
                 "times in [0, 50/lambda0] from a random theta~0, for mu~ printed and corrected (relative 1e-12); the "
                 "bound is attained (equality to 1e-10) by a neuron on the top eigenvector (mubar, 1), which is what "
                 "refutes the halved rate. Extremes: n = 2 with m = 1, nearly collinear data, alpha = 0.01")
def lemD_1(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    W0, a0 = random_theta(fx.rng, X.shape[1], m, scale=1.0)
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    for name, literal in (("printed", True), ("corrected", False)):
        mt = mu_tilde(X, y, al, literal=literal)
        lam = float(np.linalg.norm(mt)) / (2 if fx.mutated(RATE_HALF) else 1)
        worst = -np.inf
        for t in np.linspace(0, 50 / lam, 50):
            Wt, at = linear_flow(W0, a0, mt, t)
            worst = max(worst, float(norm_M(Wt, at)) / (np.exp(lam * t) * float(norm_M(W0, a0))))
        ev.le(f"max_t ||theta~(t)||_M / (e^(lambda0 t) ||theta~0||_M), {name} mu~", worst, 1.0, rtol=1e-12, room=None)
        t = 10 / float(np.linalg.norm(mt))
        Wt, at = linear_flow(mubar[None], np.array([1.0]), mt, t)
        ev.le(f"top-eigenvector neuron: ||theta~(t)||_M / (e^(lambda0 t) ||theta~0||_M) at lambda0 t = 10, {name} mu~",
              float(norm_M(Wt, at)) / np.exp(lam * t), 1.0, rtol=1e-10)
    return ev


GROWTH_1 = "growth e^{lambda0 t} instead of e^{3 lambda0 t}"


@claim("lyu2021.lemD.2", **cat.declared("lemD.2"), **cat.item("lemD.2"), hypotheses=[symmetric, unit_data],
       fixtures=[random(sym_gauss, m=4), random(sym_gauss, m=2, d=5, alpha=0.2), adv(sym_gauss, m=16, label="wide (m = 16)"),
                 adv(sym_gauss, m=1, label="m = 1"), adv(sym_collinear, m=3, alpha=0.95, label="nearly collinear, alpha -> 1"),
                 adv(sym_tinygap, m=2, alpha=0.05, label="margin near 0, alpha -> 0"),
                 negative(gen_gauss, m=4), negative(sym_gauss, m=4, mutation=GROWTH_1),
                 negative(sym_gauss, m=4, mutation=LAMBDA_MU_DISPLAY)],
       expected="verified",
       erratum=erratum(**lambda0_imprecision(
           location="Lemma D.2, App. D (full text l. 2942)",
           printed=r"||theta(t) - phi~(theta0, t)||_M <= (4m||theta0||_M^3/lambda0) exp(3 lambda0 t) for all t <= "
                   r"(1/lambda0) ln(sqrt(lambda0/4)/(sqrt(m)||theta0||_M)), phi~ the flow of L~ := l(0) - sum_k a_k G(w_k), "
                   r"i.e. dw~_k/dt = a~_k mu~, da~_k/dt = <w~_k, mu~> with G(w) = <w, mu~>",
           depends="phi~ is the flow of L~ with the true G (App. D's definition, l. 2897-2905) and lambda0 = max |G| "
                   "in the bound and window; read through the display (phi~ and lambda0 both from mu~ = ((1+alpha)/2) "
                   "mu, the control '" + LAMBDA_MU_DISPLAY + "') the linear flow moves twice as fast as the true one, "
                   "the error is first order in ||theta0|| (fitted exponent ~1, not 3) and exceeds the bound by orders "
                   "of magnitude (the printed claim judged that way in baseline-quick at 558c112: error/bound 3.0e4 to "
                   "5.6e4, fitted exponent 1.00, on the three sym.gauss fixtures)")),
       judged_by="accurate flow (rtol 1e-11) vs the linear flow (expm) from sigma thetabar0, sigma in {1e-2, 1e-3, 1e-4}, "
                 "on 40 times in the window: the ratio to the bound must be <= 1 (the proof's constant 4m with |l''| <= 1 "
                 "is pessimistic: measured room is recorded); the order statement (error cubic in ||theta0||) is judged "
                 "by the fitted exponent of the error in sigma at a common time (judge_slope, 3 +- 0.2). Extremes: m = 1 "
                 "and m = 16, nearly collinear data with alpha = 0.95, margin near 0 with alpha = 0.05")
@inconclusive_on_stall
def lemD_2(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    display = fx.mutated(LAMBDA_MU_DISPLAY)
    lam = lambda0(X, y, al, literal=display)
    mt = mu_tilde(X, y, al, literal=display)
    Wb, ab = d_init(fx.rng, 1, m, X.shape[1], fx["c_a"])
    rate = 1.0 if fx.mutated(GROWTH_1) else 3.0
    sigmas = np.array([1e-2, 1e-3, 1e-4])
    nMs = sigmas * float(norm_M(Wb[0], ab[0]))
    tmaxs = np.log(lam / (4 * m * nMs ** 2)) / (2 * lam)
    if tmaxs[0] <= 0:
        return ev.inconclusive("empty time window for sigma = 1e-2")
    t_common = tmaxs[0]                              # inside every window (they grow as sigma shrinks)
    worst, err_common = -np.inf, []
    for s, nM, tmax in zip(sigmas, nMs, tmaxs):
        W0, a0 = s * Wb[0], s * ab[0]
        ts = np.unique(np.concatenate([np.linspace(tmax / 40, tmax, 40), [t_common]]))
        Ws, As = flow_ode(W0, a0, X, y, al, ts, rtol=1e-11, atol=1e-18)
        for k, t in enumerate(ts):
            bound = 4 * m * nM ** 3 / lam * np.exp(rate * lam * t)
            Wl, al_ = linear_flow(W0, a0, mt, t)
            err = float(norm_M(Ws[k] - Wl, As[k] - al_))
            worst = max(worst, err / bound)
            if t == t_common:
                err_common.append(err)
    ev.le("max over sigma, t of error / bound", worst, 1.0, rtol=1e-9)
    judge_slope("error at a common time vs sigma (cubic)", sigmas, err_common, predicted=3.0, atol=0.2, evidence=ev,
                xlabel="sigma", ylabel="||theta - phi~||_M", toward="zero")
    ev.record(max_ratio=worst, lambda0=lam)
    return ev


# ---------------------------------------------------------------------------------------------
# Appendix E


@claim("lyu2021.lemE.1", **cat.declared("lemE.1"), **cat.item("lemE.1"),
       fixtures=[random(sym_gauss, m=4), random(gen_gauss, m=3),
                 adv(sym_collinear, m=3, label="m = 3 (smallest width where pi_b splits a neuron), nearly collinear, "
                                                "alpha = 0.9"),
                 adv(gen_gauss, m=16, alpha=0.01, label="m = 16, alpha -> 0"),
                 negative(sym_gauss, m=4, mutation="unnormalised embedding b_k a^1")],
       judged_by="pi_b(accurate flow of theta^) vs accurate flow of pi_b(theta^) at 10 times (relative 1e-8; both DOP853, "
                 "rtol 1e-11). Extremes: m = 3 (the smallest width where pi_b splits a neuron) on nearly collinear data with "
                 "alpha = 0.9, m = 16 with alpha = 0.01")
@inconclusive_on_stall
def lemE_1(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    rng = fx.rng
    b = rng.normal(size=m)
    b[0], b[1] = abs(b[0]) + 0.1, -abs(b[1]) - 0.1
    W2 = 0.3 * rng.normal(size=(2, X.shape[1]))
    a2 = np.array([0.3, -0.3])
    W, a = embed(b, W2, a2)
    if fx.mutated():
        W, a = b[:, None] * np.where((b > 0)[:, None], W2[0], W2[1]), b * np.where(b > 0, a2[0], a2[1])
    t = np.linspace(0, 10, 11)
    Ws2, As2 = flow_ode(W2, a2, X, y, al, t, rtol=1e-11, atol=1e-14)
    Ws, As = flow_ode(W, a, X, y, al, t, rtol=1e-11, atol=1e-14)
    worst = 0.0
    for k in range(len(t)):
        eW, ea = embed(b, Ws2[k], As2[k])
        worst = max(worst, float(np.sqrt(np.sum((eW - Ws[k]) ** 2) + np.sum((ea - As[k]) ** 2)) /
                                 np.sqrt(parameter_norm_sq(Ws[k], As[k]))))
    ev.le("max_t ||pi_b(phi(theta^, t)) - phi(pi_b(theta^), t)|| / ||.||", worst, 0.0, atol=1e-8)
    return ev


@claim("lyu2021.lemE.2", **cat.declared("lemE.2"), **cat.item("lemE.2"),
       fixtures=[random(sym_gauss, m=3), random(gen_gauss, m=4),
                 adv(sym_gauss, m=3, alpha=0.01, label="m = 3 (smallest width where pi_b splits a neuron), alpha -> 0"),
                 adv(sym_collinear, m=5, alpha=0.99, label="m = 5, nearly collinear data, alpha -> 1"),
                 negative(gen_gauss, m=3, mutation="same-function embedding")],
       judged_by="at theta^ with a constructed kink, every extreme Clarke element g of L at theta^ has pi_b(g) among the "
                 "extreme elements at pi_b(theta^) (distance <= 1e-13 relative); 50 random (theta^, b); a draw whose extreme set "
                 "is sampled (too many ambiguous pairs to enumerate) is not judged (counted). Extremes: m = 3 with "
                 "alpha = 0.01, m = 5 on nearly collinear data with alpha = 0.99")
def lemE_2(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    rng = fx.rng
    d = X.shape[1]
    worst, judged, sampled = 0.0, 0, 0
    for _ in range(50):
        b = rng.normal(size=m)
        b[0], b[1] = abs(b[0]) + 0.1, -abs(b[1]) - 0.1
        W2 = rng.normal(size=(2, d))
        W2 = on_kink(rng, W2, X, k=0, i=int(rng.integers(len(X))))
        a2 = np.array([abs(rng.normal()) + 0.1, -abs(rng.normal()) - 0.1])
        if fx.mutated():
            c = np.where(b > 0, (b / np.linalg.norm(b[b > 0])) ** 2, (b / np.linalg.norm(b[b < 0])) ** 2)
            W, a = np.where((b > 0)[:, None], W2[0], W2[1]), c * np.where(b > 0, a2[0], a2[1])
        else:
            W, a = embed(b, W2, a2)
        G2, i2 = clarke_extreme_gradients(W2, a2, X, y, al, kink_tol=1e-12)
        Gm, im = clarke_extreme_gradients(W, a, X, y, al, kink_tol=1e-12)
        if i2["sampled"] or im["sampled"]:      # a sampled extreme set is not the set: no exact distance
            sampled += 1
            continue
        judged += 1
        for g in G2:
            eW, ea = embed(b, g[: 2 * d].reshape(2, d), g[2 * d:])
            pg = np.concatenate([eW.ravel(), ea])
            worst = max(worst, float(np.min(np.linalg.norm(Gm - pg, axis=1))) / (np.linalg.norm(pg) + 1e-300))
    ev.record(draws_judged=judged, draws_with_sampled_extreme_sets=sampled)
    if not judged:
        return ev.inconclusive("every draw has more ambiguous (neuron, point) pairs than the exact enumeration of "
                               "Clarke extreme gradients allows (sampled sets)")
    ev.le("max distance of pi_b(g) to the extreme set at pi_b(theta^) (relative)", worst, 0.0, atol=1e-13)
    return ev


@claim("lyu2021.lemE.7", **cat.declared("lemE.7"), **cat.item("lemE.7"),
       fixtures=[random(sym_gauss, c_a=1.0), random(sym_gauss, c_a=0.5, d=5), adv(sym_gauss, c_a=2.0),
                 negative(sym_gauss, mutation="probability 1 - 2^-m")],
       judged_by="1e5 draws of thetabar0 ~ D_init(1) per width m in {2, 3, 5, 8}: the frequency of a good bbar must lie in the "
                 "99.9% Clopper-Pearson interval around 1 - 2^-(m-1) (both one-sided judgements)")
def lemE_7(fx):
    ev = Evidence()
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    for m in (2, 3, 5, 8):
        W, a = d_init(fx.rng, 100_000, m, fx["X"].shape[1], fx["c_a"])
        k = int(good_embedding(bbar(W, a, mubar)).sum())
        p = 1 - 2.0 ** (-m) if fx.mutated() else 1 - 2.0 ** (-(m - 1))
        judge_binomial(f"m = {m}: P(bbar good) >= p", k, 100_000, p, confidence=0.999, evidence=ev)
        judge_binomial(f"m = {m}: P(bbar good) <= p", k, 100_000, p, confidence=0.999, relation="<=", evidence=ev)
    return ev


@claim("lyu2021.lemE.10", **cat.declared("lemE.10"), **cat.item("lemE.10"), hypotheses=[unit_data],
       fixtures=[random(sym_gauss, m=4), random(gen_gauss, d=5),
                 adv(sym_collinear, noise=1e-3, alpha=0.99, label="nearly collinear data, alpha -> 1 (near the tight case)"),
                 adv(gen_gauss, alpha=0.01, label="alpha -> 0"),
                 negative(sym_gauss, mutation="data scaled by 10")],
       judged_by="every extreme Clarke element at 500 random theta (a fifth on kinks): ||g||_2 <= ||theta||_2 and per block "
                 "||dL/dw_k|| <= |a_k|, |dL/da_k| <= ||w_k|| (relative 1e-12); the tight case is a neuron along a data point. "
                 "Extremes: nearly collinear data (noise 1e-3) with alpha = 0.99, alpha = 0.01")
def lemE_10(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if fx.mutated():
        X = 10 * X
    rng = fx.rng
    worst = worst_b = 0.0
    for j in range(500):
        W, a = random_theta(rng, X.shape[1], scale=10.0 ** rng.uniform(-2, 1))
        if j % 5 == 0:
            W = on_kink(rng, W, X, 0, int(rng.integers(len(X))))
        if j % 7 == 0:          # near-tight: neuron along mubar with large negative margins (|l'| ~ 1)
            mu = y @ X / len(y)
            W, a = 1e-3 * W, 1e-3 * a
            W[0], a[0] = mu / np.linalg.norm(mu), -50.0
        G, _ = clarke_extreme_gradients(W, a, X, y, al, kink_tol=1e-12)
        nrm = np.sqrt(float(parameter_norm_sq(W, a)))
        worst = max(worst, float(np.max(np.linalg.norm(G, axis=1))) / nrm)
        for g in G:
            gW, ga = g[: W.size].reshape(W.shape), g[W.size:]
            worst_b = max(worst_b, float(np.max(np.linalg.norm(gW, axis=1) / (np.abs(a) + 1e-300))),
                          float(np.max(np.abs(ga) / (np.linalg.norm(W, axis=1) + 1e-300))))
    ev.le("max ||g|| / ||theta||", worst, 1.0, rtol=1e-12)
    ev.le("max per-block ratio", worst_b, 1.0, rtol=1e-12)
    return ev


@claim("lyu2021.lemE.11", **cat.declared("lemE.11"), **cat.item("lemE.11"), hypotheses=[unit_data],
       fixtures=[random(sym_gauss, m=4), random(sym_gauss, m=3, d=5),
                 adv(sym_collinear, m=2, alpha=0.99, label="m = 2, nearly collinear data, alpha -> 1"),
                 adv(sym_gauss, m=2, alpha=0.01, label="m = 2, alpha -> 0"),
                 negative(sym_gauss, m=4, mutation="rate 1/10")],
       judged_by="along an accurate flow from a small init through Phase II: ||theta(t)|| <= ||theta(t0)|| e^{t - t0} and "
                 "||theta'(t)|| <= ||theta(t0)|| e^{t_s - t0} on 60 times (relative 1e-9). Extremes: m = 2 on nearly collinear "
                 "data with alpha = 0.99, m = 2 with alpha = 0.01")
@inconclusive_on_stall
def lemE_11(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    W0, a0 = d_init(fx.rng, 1, m, X.shape[1], fx["c_a"])
    lam = lambda0(X, y, al)
    t = np.linspace(0, 12 / lam, 61)
    Ws, As = flow_ode(1e-3 * W0[0], 1e-3 * a0[0], X, y, al, t, rtol=1e-11, atol=1e-16)
    rate = 0.1 if fx.mutated() else 1.0
    nrm = np.sqrt(np.sum(Ws ** 2, axis=(1, 2)) + np.sum(As ** 2, 1))
    vel = np.array([np.sqrt(np.sum(g[0] ** 2) + np.sum(g[1] ** 2)) for g in (gradient(Ws[k], As[k], X, y, al)
                                                                            for k in range(len(t)))])
    ev.le("max_t ||theta(t)|| / (||theta(0)|| e^{rate t})", float(np.max(nrm / (nrm[0] * np.exp(rate * t)))), 1.0, rtol=1e-9)
    ev.le("max_t ||theta'(t)|| / (||theta(0)|| e^{rate t_s})", float(np.max(vel)) / (nrm[0] * np.exp(rate * t[-1])), 1.0,
          rtol=1e-9)
    return ev


# ---------------------------------------------------------------------------------------------
# Appendix F (width 2, symmetric data)


@claim("lyu2021.lemF.1", **cat.declared("lemF.1"), **cat.item("lemF.1"), hypotheses=[symmetric],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5, alpha=0.2), adv(sym_collinear), negative(sym_broken),
                 negative(sym_gauss, mutation="bound 1.05 instead of 1")],
       judged_by="20000 sampled (u1, u2) = (c1 w* + xi1, c2 w* + xi2), rescaled to feasibility, plus samples with "
                 "<u1, x_i> = 0 exactly: min_i y_i(h1 <u2, x_i> + h2 <u1, x_i>) >= 1 over all extreme h, up to 1e-12 times the "
                 "magnitude of the summands (rounding); power: the bound raised to 1.05 must be refuted (the bound is attained)")
def lemF_1(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w, _ = svm(X, y)
    rng = fx.rng
    bound = 1.05 if fx.mutated("bound 1.05 instead of 1") else 1.0
    U1, U2 = np.empty((20000, w.size)), np.empty((20000, w.size))
    for j in range(20000):                # the draws, in the order a per-sample loop makes them
        u1 = rng.uniform(0.2, 3) * w + rng.uniform(0, 2) * rng.normal(size=w.size)
        u2 = rng.uniform(0.2, 3) * w + rng.uniform(0, 2) * rng.normal(size=w.size)
        if j % 10 == 0:
            u1 = on_kink(rng, u1[None], X, 0, int(rng.integers(len(X))))[0]
        U1[j], U2[j] = u1, u2
    # evaluated together: worst = min over samples of (value - bound) / (rounding scale of the sum)
    Z1, Z2 = np.array([X @ u for u in U1]), np.array([X @ u for u in U2])
    s0 = np.min(y * (activation(Z1, al) - activation(-Z2, al)), axis=1)
    ok = s0 > 0
    feas = int(ok.sum())
    Z1, Z2 = Z1[ok] / s0[ok, None], Z2[ok] / s0[ok, None]
    worst = np.inf
    for h1 in (np.where(Z1 > 0, 1.0, np.where(Z1 < 0, al, al)), np.where(Z1 > 0, 1.0, np.where(Z1 < 0, al, 1.0))):
        for h2 in (np.where(-Z2 > 0, 1.0, np.where(-Z2 < 0, al, al)), np.where(-Z2 > 0, 1.0, np.where(-Z2 < 0, al, 1.0))):
            val = y * (h1 * Z2 + h2 * Z1)
            scale = np.abs(h1 * Z2) + np.abs(h2 * Z1) + 1.0
            if feas:
                worst = min(worst, float(np.min((val - bound) / scale)))
    if feas == 0:
        return ev.inconclusive("no feasible sample")
    ev.ge(f"min over samples, h of (y_i(h1 <u2,x_i> + h2 <u1,x_i>) - {bound:g}) / (|h1 <u2,x_i>| + |h2 <u1,x_i>| + 1)",
          worst, 0.0, atol=1e-12)
    ev.record(feasible_samples=feas)
    return ev


def _f3_targets(w):
    return [("(1/2)(w*, -w*, 1, -1)", np.concatenate([w / 2, -w / 2, [0.5, -0.5]])),
            ("(1/sqrt2)(w*, 0, 1, 0)", np.concatenate([w, 0 * w, [1.0, 0.0]]) / np.sqrt(2)),
            ("(1/sqrt2)(0, -w*, 0, -1)", np.concatenate([0 * w, -w, [0.0, -1.0]]) / np.sqrt(2))]


def width2_kkt_search(fx, B, H, eta=1e-2, etas=None):
    """Normalised GD (step ``eta``) from B random balanced width-2 starts with a1 >= 0 >= a2 (scales 0.3..3).
    With ``etas`` (a list of steps), the same starts are run once per step and a list of runs is returned."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    rng = fx.rng
    d = X.shape[1]
    W = rng.normal(size=(B, 2, d)) * 10.0 ** rng.uniform(-0.5, 0.5, size=(B, 1, 1)) / np.sqrt(d)
    a = np.stack([np.linalg.norm(W[:, 0], axis=1), -np.linalg.norm(W[:, 1], axis=1)], axis=1)
    W, a, _ = gd_until_margin(W, a, X, y, al, eta=0.05, q_target=1.0)
    if etas is not None:
        return [ngd_horizons(W, a, X, y, al, H, eta=e, max_steps=400_000 * round(1e-2 / e)) for e in etas]
    return ngd_horizons(W, a, X, y, al, H, eta=eta)


@claim("lyu2021.lemF.3", **cat.declared("lemF.3"), **cat.item("lemF.3"), hypotheses=[separable, symmetric],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5, alpha=0.25), adv(sym_collinear, alpha=0.8),
                 negative(gen_gauss), negative(sym_gauss, mutation="list with (1/4)(w*, -w*, 1, -1)")],
       judged_by="(i) the three directions are KKT (LP residual <= 1e-9, recomputed); (ii) normalised GD from 8 random "
                 "balanced width-2 starts with a1 >= 0 >= a2, run to margin horizons 4e2..1e12: max distance to the nearest "
                 "listed direction judged by judge_floored_trend (floor tol/10) over the late horizons {1e9, .., 1e12} "
                 "(tolerance 3e-2; eta = 2.5e-3); the earlier horizons (saddle passages) are recorded and plotted; "
                 "quick: horizons {400, .., 25600}, eta = 1e-2")
def lemF_3(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w, _ = svm(X, y)
    d = len(w)
    targets = _f3_targets(w)
    if fx.mutated():
        targets[0] = ("(1/4)(w*, -w*, 1, -1)", targets[0][1] / 2)
    for name, th in targets:
        W, a = th[: 2 * d].reshape(2, d), th[2 * d:]
        ev.close(f"||{name}||", float(np.linalg.norm(th)), 1.0, rtol=1e-12)
        r = two_layer_kkt_residual(W, a, X, y, alpha=al, tau_act=1e-9, tau_kink=1e-12)
        ev.le(f"KKT residual of {name}", r.r_kkt, 0.0, atol=1e-9)
    # Lemma F.3 is a statement about the limit directions; the search converges in log-margin time and passes
    # saddles on the way (collinear data, alpha = 0.8, standard seed: the farthest endpoint is 0.35 from every
    # listed direction at Q = 25600, 0.28 at 1e8, 0.16 at 1e9, 0.033 at 1e10, 1e-4 at 1e11, eta = 2.5e-3).  Standard/thorough run to Q = 1e12 (normalised GD doubles
    # q_min every ~1700 steps at eta = 2.5e-3) and judge the trend on the fixed late window {1e9, .., 1e12}, the
    # same for every fixture; the transient is recorded.  The distances then sit on the step-size floor of
    # normalised GD (measured on sym.gauss d=5: 6.6e-3 / 3.4e-3 / 1.6e-3 at eta = 1e-2 / 5e-3 / 2.5e-3, linear in
    # eta), below tol/10, where judge_floored_trend does not count fluctuations as non-monotone.
    if fx.profile == "quick":
        H_all, eta = [400, 1600, 6400, 25600], 1e-2
    else:
        H_all, eta = [400, 1600, 6400, 25600, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12], 2.5e-3
    run = width2_kkt_search(fx, 8, H_all, eta=eta)
    if not run.reached[-1].all():
        return ev.inconclusive(f"a search did not reach the last margin horizon {H_all[-1]:g}")
    dall = []
    for j in range(len(H_all)):
        dists = []
        for b in range(8):
            th = np.concatenate([run.W[j, b].ravel(), run.a[j, b]])
            th /= np.linalg.norm(th)
            dists.append(min(float(np.linalg.norm(th - t)) for _, t in targets))
        dall.append(max(dists))
    ev.record(max_distance_all_horizons=np.array(dall), all_horizons=np.array(H_all), ngd_step=eta)
    ev.add_series("max distance to the nearest listed direction (all horizons)", np.array(H_all),
                  {"distance": np.array(dall)}, xlabel="margin horizon", logx=True)
    H = H_all[-4:]
    run.W, run.a = run.W[-4:], run.a[-4:]
    dmax = []
    for j in range(len(H)):
        dists = []
        for b in range(8):
            th = np.concatenate([run.W[j, b].ravel(), run.a[j, b]])
            th /= np.linalg.norm(th)
            dists.append(min(float(np.linalg.norm(th - t)) for _, t in targets))
        dmax.append(max(dists))
    ok = all(c.holds for c in ev.comparisons)
    g2 = normalized_margin(run.W[-2], run.a[-2], X, y, al)
    g1 = normalized_margin(run.W[-1], run.a[-1], X, y, al)
    moving = float(np.max(np.abs(g1 - g2) / np.abs(g1)))
    ev.record(margin_change_last_horizons=moving)
    if ok and moving > 1e-3 and dmax[-1] > 10 * 3e-2:
        return ev.inconclusive(f"search not converged: normalised margins still change by {moving:.2e} between the last "
                               f"horizons while an endpoint is {dmax[-1]:.3f} from every listed direction")
    if ok:      # a listed direction that is not KKT already refutes; the search trend is then moot
        judge_floored_trend("max over searches of the distance to the nearest listed direction", H, dmax, 3e-2, ev)
    ev.record(search_distances_last=dists)
    return ev


@claim("lyu2021.lemF.2", **cat.declared("lemF.2"), **cat.item("lemF.2"), hypotheses=[separable, symmetric],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5), adv(sym_gauss, alpha=0.05, label="alpha -> 0"),
                 negative(gen_gauss), negative(sym_gauss, mutation="w1 = w2")],
       judged_by="the exact KKT point (1/2)(w*, -w*, 1, -1) satisfies w1 = -w2, a1 = -a2 = ||w1||; normalised-GD endpoints "
                 "of the width-2 search with a1 > 0 > a2: max(||w1 + w2||/||w1||, |a1 + a2|/|a1|) judged by judge_trend over margin "
                 "horizons {400, 1600, 6400, 25600} (tolerance 3e-2), over the endpoints near a KKT direction (an endpoint "
                 "whose normalised margin rose at each of the last three horizons by > 0.5% in all is still leaving a "
                 "saddle: recorded, not judged); the same starts at half the step (5e-3) measure the "
                 "discretisation jitter (max endpoint difference at the horizons where both runs are within tolerance), and "
                 "fluctuations below max(tol/10, twice that jitter) do not count against "
                 "monotonicity (judge_trend's floor; inconclusive if the jitter reaches the tolerance). Extremes: alpha = 0.05")
def lemF_2(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    w, _ = svm(X, y)
    W, a = linear_net(w, 2)
    sgn = -1.0 if fx.mutated() else 1.0
    ev.le("exact point: ||w1 + sgn w2||", float(np.linalg.norm(W[0] + sgn * W[1])), 0.0, atol=1e-15)
    H = [400, 1600, 6400, 25600]
    run, half = width2_kkt_search(fx, 8, H, etas=[1e-2, 5e-3])
    Wl, al_ = run.W[-1], run.a[-1]
    keep = [b for b in range(8) if al_[b, 0] > 0 > al_[b, 1] and np.linalg.norm(Wl[b, 1]) > 0.1 * np.linalg.norm(Wl[b, 0])]
    # The lemma is about KKT-margin directions. An endpoint whose normalised margin rose at each of the last three
    # horizons, by more than 0.5% in all, is still climbing away from a saddle (measured: 0.0556 -> 0.0563 with the
    # second neuron growing, while converged endpoints sit at 0.083 and fluctuate both ways): not yet near a KKT
    # direction, so it is recorded and left out.
    gam = np.array([[normalized_margin(run.W[j, b], run.a[j, b], X, y, fx["alpha"]) for b in range(8)]
                    for j in range(len(H))])
    climbing = [b for b in keep if np.all(np.diff(gam[-3:, b]) > 0) and gam[-1, b] - gam[-3, b] > 5e-3 * gam[-1, b]]
    ev.record(endpoints_climbing=len(climbing), normalized_margins_last=gam[-1, keep])
    keep = [b for b in keep if b not in climbing]
    if not keep:
        return ev.inconclusive("no converged search endpoint with two active neurons of opposite signs")

    def asym(r):
        out = []
        for j in range(len(H)):
            Wf, af = r.W[j, keep], r.a[j, keep]
            out.append(np.maximum(np.linalg.norm(Wf[:, 0] + sgn * Wf[:, 1], axis=1) / np.linalg.norm(Wf[:, 0], axis=1),
                                  np.abs(af[:, 0] + af[:, 1]) / np.abs(af[:, 0])))
        return np.array(out)            # (horizons, kept endpoints)

    e1, e2 = asym(run), asym(half)
    series = e1.max(axis=1)
    # Normalised GD jitters across the kinks at large margins; the same starts at half the step measure that
    # jitter, and fluctuations below twice it are not counted against monotonicity (judge_trend's floor).
    # measured only where both runs are within tolerance (earlier, saddle passages take step-dependent times)
    conv = (e1.max(axis=1) <= 3e-2) & (e2.max(axis=1) <= 3e-2)
    conv[-1] = True
    jitter = float(np.nanmax(np.abs(e1 - e2)[conv])) if np.all(half.reached[-1, keep]) else float("nan")
    ev.record(series_half_step=e2.max(axis=1), discretisation_jitter=jitter)
    if not np.isfinite(jitter):
        return ev.inconclusive("the half-step rerun did not reach the last margin horizon")
    floor = max(3e-3, 2 * jitter)
    if floor >= 3e-2:
        return ev.inconclusive(f"normalised-GD jitter {jitter:.3g} leaves no resolution below the tolerance 3e-2")
    if all(c.holds for c in ev.comparisons):
        judge_trend("max relative ||w1 + w2||, |a1 + a2| over endpoints with a1 > 0 > a2", H, series, 3e-2, evidence=ev,
                    floor=floor, scale_label="margin horizon")
    ev.record(endpoints_kept=len(keep))
    return ev


# ---------------------------------------------------------------------------------------------
# Theorem E.4 (limiting trajectory from r theta^ for a well-aligned theta^), symmetric data


LAMBDA_PRINTED_MU = "lambda = ||mu~|| with the printed mu~ = ((1+alpha)/2) mu (twice max |G|)"
E_LAMBDA = (r" Here $\lambda := \max\{|G(w)| : w \in S^{d-1}\}$ as App. E.2 defines it (on symmetric data "
            r"$\frac{1+\alpha}{4}\|\mu\|$, the corrected $\lambda_0$; the printed $\|\tilde\mu\|$ of Sec. 5.1 is not used "
            r"here, so the lambda0 slip does not reach this statement).")


@claim("lyu2021.thmE.4", **cat.declared("thmE.4"), **{**cat.item("thmE.4"), "statement": cat.statement("thmE.4") + E_LAMBDA},
       hypotheses=[symmetric, unit_data],
       fixtures=[random(sym_gauss, m=3), random(sym_gauss, m=2, d=5), adv(sym_gauss, m=5, alpha=0.9, label="alpha -> 1"),
                 adv(sym_gauss, m=1, alpha=0.05, label="m = 1, alpha -> 0"),
                 adv(sym_collinear, m=2, label="nearly collinear data"),
                 negative(sym_gauss, m=3, mutation="theta^ not well aligned (random unit directions)"),
                 negative(sym_gauss, m=3, mutation=LAMBDA_PRINTED_MU)],
       judged_by="well-aligned theta^ (w_k = b_k mubar, a_k = b_k, ||theta^||_M = 1); accurate flows from r theta^, r in "
                 "{1e-4, 1e-5, 1e-6}, at T2(r) + t for 12 times t in [t0 - 2/lambda, t0] (t0 from (14)): (1) the Cauchy "
                 "differences between successive r shrink; (2) for the smallest r, ||phi - e^{lambda t} theta^||_M <= "
                 "(4m||theta^||_M^3/lambda) e^{3 lambda t} + Cauchy tail (the proof's constant is pessimistic; the room is "
                 "recorded) and the order of the deviation, the fitted exponent of dev against e^{lambda t}, is >= 3 - 0.2 "
                 "(judge_slope). Extremes: m = 1, alpha in {0.05, 0.9}, nearly collinear data")
@inconclusive_on_stall
def thmE_4(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    rng = fx.rng
    b = rng.normal(size=m)
    b /= np.max(np.abs(b))
    if fx.mutated("theta^ not well aligned (random unit directions)"):
        U = rng.normal(size=(m, X.shape[1]))
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        Wh, ah = b[:, None] * U, b.copy()
    else:
        Wh, ah = b[:, None] * mubar[None, :], b.copy()
    lam = lambda0(X, y, al, literal=fx.mutated(LAMBDA_PRINTED_MU))
    nM = float(norm_M(Wh, ah))
    Delta = float(np.min(np.abs(X @ Wh.T))) / nM
    t0 = np.log(lam * Delta / (16 * m * nM ** 2)) / (2 * lam)
    ts = np.linspace(t0 - 2 / lam, t0, 12)
    traj = []
    for r in (1e-4, 1e-5, 1e-6):
        T2 = np.log(1 / r) / lam
        tt = T2 + ts
        if tt[0] < 0:
            return ev.inconclusive("window starts before time 0 for r = 1e-4")
        Ws, As = flow_ode(r * Wh, r * ah, X, y, al, np.concatenate([[0.0], tt]), rtol=1e-11, atol=1e-20)
        traj.append((Ws[1:], As[1:]))
    cauchy = [max(float(norm_M(traj[j][0][k] - traj[j + 1][0][k], traj[j][1][k] - traj[j + 1][1][k])) for k in range(len(ts)))
              for j in range(2)]
    worst, devs = -np.inf, []
    for k, t in enumerate(ts):
        dev = float(norm_M(traj[-1][0][k] - np.exp(lam * t) * Wh, traj[-1][1][k] - np.exp(lam * t) * ah))
        devs.append(dev)
        bound = 4 * m * nM ** 3 / lam * np.exp(3 * lam * t) + cauchy[-1]
        worst = max(worst, dev / bound)
    ev.le("(1) Cauchy difference shrinks with r (1e-5 vs 1e-6 compared with 1e-4 vs 1e-5)", cauchy[1], cauchy[0], rtol=0.0,
          room=None)
    ev.le("(2) max_t ||phi(r theta^, T2 + t) - e^{lambda t} theta^||_M / bound", worst, 1.0, rtol=1e-9)
    judge_slope("(2) deviation vs e^{lambda t} (order e^{3 lambda t})", np.exp(lam * ts), devs, predicted=2.8,
                relation=">=", atol=0.0, evidence=ev, xlabel="e^{lambda t}", ylabel="deviation")
    ev.record(t0=t0, Delta_hat=Delta, cauchy=cauchy, lambda_=lam, max_ratio=worst)
    return ev


# ---------------------------------------------------------------------------------------------
# Lemmas E.5 and E.6: flows from perturbed starts r theta^ + C r^(1+kappa) xi


def _perturbed_runs(fx, kappa=1.0, C=1.0, xi_scale=1.0, r_factor=1.0):
    """theta^ well aligned with p = m - 1 active neurons (last neuron zero), ||theta^||_M = 1; r = r_factor * min(r_max, 1e-3);
    returns times t, lambda, p, theta^, and the M-norm quantities along both flows."""
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    rng = fx.rng
    p = m - 1
    b = np.zeros(m)
    b[:p] = rng.normal(size=p)
    b /= np.max(np.abs(b))
    Wh, ah = b[:, None] * mubar[None, :], b.copy()
    lam = lambda0(X, y, al)
    Delta = float(np.min(np.abs(X @ Wh[:p].T)))
    t0 = np.log(lam * Delta / (16 * m)) / (2 * lam)
    r_max = (Delta / (8 * C)) ** (1 / kappa)
    r = r_factor * min(r_max, 1e-3)
    T2 = np.log(1 / r) / lam
    xi_W, xi_a = rng.normal(size=Wh.shape), rng.normal(size=m)
    s = xi_scale / float(norm_M(xi_W, xi_a))
    W0, a0 = r * Wh + C * r ** (1 + kappa) * s * xi_W, r * ah + C * r ** (1 + kappa) * s * xi_a
    ts = np.linspace(-T2, t0, 25) if t0 > -T2 else np.array([-T2])
    Wa, Aa = flow_ode(W0, a0, X, y, al, T2 + ts, rtol=1e-11, atol=1e-22)
    Wb, Ab = flow_ode(r * Wh, r * ah, X, y, al, T2 + ts, rtol=1e-11, atol=1e-22)
    return dict(ts=ts, lam=lam, p=p, Wh=Wh, ah=ah, Wa=Wa, Aa=Aa, Wb=Wb, Ab=Ab, r=r, C=C, kappa=kappa, m=m, X=X)


@claim("lyu2021.lemE.5", **cat.declared("lemE.5"), **cat.item("lemE.5"), hypotheses=[symmetric, unit_data],
       fixtures=[random(sym_gauss, m=3), random(sym_gauss, m=4, d=5),
                 adv(sym_gauss, m=2, alpha=0.9, label="m = 2 (one active neuron), alpha -> 1"),
                 adv(sym_collinear, m=3, alpha=0.05, label="nearly collinear data, alpha -> 0"),
                 negative(sym_gauss, m=3, mutation="bound (2) with factor 1")],
       judged_by="well-aligned theta^ with one zero neuron, C = 1, kappa = 1, r = min(r_max, 1e-3); accurate flow on 25 times "
                 "in [-T2(r), t0]: (1) activation signs of the active neurons equal those of w^_k; (2) ||phi||_M <= 2e^{lambda t}; "
                 "(3) P-seminorm and (4) R-seminorm bounds (relative 1e-9). Extremes: m = 2 (one active neuron) with alpha = 0.9, "
                 "nearly collinear data with alpha = 0.05")
@inconclusive_on_stall
def lemE_5(fx):
    ev = Evidence()
    R = _perturbed_runs(fx)
    lam, p, m, C, kap, r = R["lam"], R["p"], R["m"], R["C"], R["kappa"], R["r"]
    X = R["X"]
    fac = 1.0 if fx.mutated() else 2.0
    sign_ok, w2, w3, w4 = True, -np.inf, -np.inf, -np.inf
    for k, t in enumerate(R["ts"]):
        W, a = R["Wa"][k], R["Aa"][k]
        sign_ok &= bool(np.all(np.sign(X @ W[:p].T) == np.sign(X @ R["Wh"][:p].T)))
        e = np.exp(lam * t)
        w2 = max(w2, float(norm_M(W, a)) / (fac * e))
        P = float(norm_M(W[:p] - e * R["Wh"][:p], a[:p] - e * R["ah"][:p]))
        w3 = max(w3, P / (C * r ** kap * e + 4 * m / lam * np.exp(3 * lam * t)))
        Rn = float(norm_M(W[p:], a[p:]))
        w4 = max(w4, Rn / (2 * C * r ** kap * e))
    ev.true("(1) activation signs of active neurons preserved", sign_ok)
    ev.le("(2) max ||phi||_M / (2 e^{lambda t} ||theta^||_M)", w2, 1.0, rtol=1e-9)
    ev.le("(3) max P-seminorm deviation / bound", w3, 1.0, rtol=1e-9)
    ev.le("(4) max R-seminorm / bound", w4, 1.0, rtol=1e-9)
    ev.record(r=r, t_range=[float(R["ts"][0]), float(R["ts"][-1])])
    return ev


@claim("lyu2021.lemE.6", **cat.declared("lemE.6"), **cat.item("lemE.6"), hypotheses=[symmetric, unit_data],
       fixtures=[random(sym_gauss, m=3), random(sym_gauss, m=4, d=5),
                 adv(sym_gauss, m=2, alpha=0.9, label="m = 2 (one active neuron), alpha -> 1"),
                 adv(sym_collinear, m=3, alpha=0.05, label="nearly collinear data, alpha -> 0"),
                 negative(sym_gauss, m=3, mutation="perturbation 1000x larger than C r^(1+kappa)")],
       judged_by="as lemE.5: ||phi(theta0, T2 + t) - phi(r theta^, T2 + t)||_M <= 4 C r^kappa e^{lambda t} on 25 times (relative "
                 "1e-9). Extremes: m = 2 (one active neuron) with alpha = 0.9, nearly collinear data with alpha = 0.05")
@inconclusive_on_stall
def lemE_6(fx):
    ev = Evidence()
    R = _perturbed_runs(fx, xi_scale=1000.0 if fx.mutated() else 1.0)
    worst = -np.inf
    for k, t in enumerate(R["ts"]):
        dev = float(norm_M(R["Wa"][k] - R["Wb"][k], R["Aa"][k] - R["Ab"][k]))
        worst = max(worst, dev / (4 * R["C"] * R["r"] ** R["kappa"] * np.exp(R["lam"] * t)))
    ev.le("max_t deviation / (4 C r^kappa e^{lambda t})", worst, 1.0, rtol=1e-9)
    return ev
