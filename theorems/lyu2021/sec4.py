"""Sections 3-4 of Lyu et al. (2021): Theorem 3.1 (imported), Theorem 4.2 (global-max-margin nets on
symmetric data are linear) through its sub-checks, Theorem 4.3 and Corollary 4.4 (small-init GF)."""

from __future__ import annotations

import numpy as np

from fixtures.lyu2021 import (
    gen_allpos_sv,
    gen_contradictory,
    gen_gauss,
    sym_broken,
    sym_collinear,
    sym_fig1left,
    sym_gauss,
    sym_n2,
)
from verify import (
    Evidence,
    claim,
    family,
    hypothesis,
    integer,
    judge_binomial,
    judge_trend,
    negative,
    random,
    real,
)
from verify import adversarial as adv
from verify.judgements import extrapolate_limit
from verify.numerics.margin import two_layer_kkt_residual
from verify.numerics.nets import activation, forward, log_loss, margins, normalized_margin, parameter_norm_sq

from . import catalogue as cat
from .common import (
    bbar,
    d_init,
    embed,
    good_embedding,
    linear_net,
    probes,
    svm,
    sym_partner,
    unit_function_distance,
)
from .dynamics import (
    HorizonRun,
    flow_margin_horizons,
    flow_ode,
    gd_until_margin,
    inconclusive_on_stall,
    ngd_horizons,
)
from .hyps import asm45, holds, separable, symmetric, unit_data, width2
from .oracle import linear_structure, margin_socp_dual_2d, two_block_lp

# ---------------------------------------------------------------------------------------------
# Theorem 3.1 (imported; checked as a trend along margin horizons)


@family("lyu.start", space={"d": integer(2, 6), "n": integer(4, 16), "alpha": real(0.1, 0.9), "m": integer(2, 6),
                            "init_scale": real(1e-3, 0.1, log=True), "q_start": real(3.5, 6.0)})
def start_family(rng, base="sym", d=3, n=12, alpha=0.5, m=4, start="pretrained", init_scale=1e-2, q_start=3.5):
    """Data (``base`` = sym | gen | collinear) plus a start theta0 with L(theta0) < ln2/n: ``pretrained`` (GD from an
    init of scale ``init_scale`` until q_min >= ``q_start``), ``same_sign`` (balanced, every a_k = +||w_k||, then
    GD to q_min >= q_start: by Cor B.18 no a_k changes sign, so the limit is a KKT direction that is not a global
    maximiser on symmetric data), theta0 = 0 (``zero``) or a start with negative margins (``negative``).
    ``q_start`` just above ln(n / ln 2) puts L(theta0) at the threshold ln2/n (the hypothesis' boundary)."""
    if base == "sym":
        fx = sym_gauss.build(rng, d=d, alpha=alpha, m=m, n_half=n // 2)
    elif base == "collinear":
        fx = sym_collinear.build(rng, d=d, alpha=alpha, m=m, n_half=n // 2)
    else:
        fx = gen_gauss.build(rng, d=d, alpha=alpha, m=m, n=n)
    W0 = init_scale * rng.normal(size=(1, m, d))
    a0 = init_scale * rng.normal(size=(1, m))
    if start == "same_sign":
        a0 = np.linalg.norm(W0, axis=-1)
    if start in ("pretrained", "same_sign", "negative"):
        W0, a0, _ = gd_until_margin(W0, a0, fx["X"], fx["y"], alpha, eta=0.1, q_target=q_start)
    if start == "zero":
        W0, a0 = np.zeros_like(W0), np.zeros_like(a0)
    if start == "negative":
        a0 = -a0
    fx.update(W0=W0[0], a0=a0[0])
    return fx


def _small_loss(fx):
    ll = float(log_loss(margins(fx["W0"], fx["a0"], fx["X"], fx["y"], fx["alpha"])))
    thr = np.log(np.log(2) / len(fx["y"]))
    return ll < thr, thr - ll, f"log L(theta0) = {ll:.4f} vs log(ln2/n) = {thr:.4f}"


small_loss = hypothesis("L(theta(0)) < ln2/n", _small_loss)
PRE_ASYMPTOTIC = {"pass", "inconclusive"}      # a generic start whose KKT residual may still shrink at Q = 25600
GLOBAL_MAX = "the limit is a global-max-margin direction (not only KKT)"


@claim("lyu2021.thm3.1", **cat.declared("thm3.1"), **cat.item("thm3.1"), hypotheses=[small_loss],
       # r_KKT -> 0 is judged by its fitted limit; a generic start may not be asymptotic at any horizon the flow reaches
       # here (quick task 0.0, gen.gauss m = 4: r_KKT = 0.040, 0.0315, 0.0258, 0.0217, 0.0186 over Q = 100..25600, local
       # log-log slopes -0.17 .. -0.11 still drifting, fitted limit 0.008 +- 0.0035; Q = 102400: 0.0160, slope -0.107, at
       # 3.4x the cost per x4 horizon; standard task 3.0, gen m = 8: 0.098 .. 0.036, limit 0.0167 +- 0.0052, slope
       # -0.15), so the generic starts of width >= 4 may end inconclusive; the sym ones decide (limit 2e-7 +- 2e-5)
       fixtures=[random(start_family, base="gen", expect=PRE_ASYMPTOTIC), random(start_family, base="sym", m=2),
                 adv(start_family, base="sym"), adv(start_family, base="gen", m=8, expect=PRE_ASYMPTOTIC),
                 adv(start_family, base="gen", m=1, label="width m = 1"),
                 adv(start_family, base="collinear", alpha=0.9, label="nearly collinear data, alpha = 0.9"),
                 adv(start_family, base="gen", q_start=np.log(12 / np.log(2)) + 0.05,
                     label="L(theta0) just below ln2/n", expect=PRE_ASYMPTOTIC),
                 negative(start_family, start="zero"), negative(start_family, start="negative"),
                 negative(start_family, base="sym", start="same_sign", mutation=GLOBAL_MAX)],
       judged_by="accurate gradient flow (integrate_flow, Filippov sliding, margin-shifted log-time segments) to margin "
                 "horizons Q: loss and norm monotone across horizons; KKT residual of Def B.8 (LP, recomputed, points "
                 "within 5% of q_min active) judged by judge_trend with tolerance 5e-2 over Q in {100, ..., 25600} (the "
                 "first, Q = 100, a declared transient: recorded, not judged), and r_KKT -> 0 itself: the fitted limit "
                 "(Aitken on the last three judged horizons, its uncertainty the change from the previous three) must be "
                 "0 within twice its uncertainty or below tol/10 to pass; a fitted limit above that while the residual "
                 "still shrinks is inconclusive (not yet asymptotic), at the quick profile always (a short horizon never "
                 "refutes a limit); the integrator's error estimate "
                 "(rtol/10 rerun) is a validity entry (<= 1e-6). Extremes: width m = 1, nearly collinear data with "
                 "alpha = 0.9, L(theta0) just below the threshold ln2/n. Powered control: the common overclaim 'the limit "
                 "is a global-max-margin direction', judged as the margin gap to (1+alpha)/4 gamma_lin (Thm 4.2) from a "
                 "balanced start with every a_k > 0 on symmetric data (a KKT limit with margin 2 alpha/(1+alpha) of the "
                 "optimum). Probes (L(theta0) >= ln2/n: theta0 = 0, a rest point, and a start with negative margins): "
                 "the flow at t in {1, 10, 100, 1000}, L -> 0 judged by judge_trend (tolerance 1e-2)")
@inconclusive_on_stall
def thm3_1(fx):
    """Late phase by the accurate flow, not normalised GD: neurons slide along activation boundaries here, and
    normalised GD chatters across them at relative distance 1e-4..3e-3, so the kink test (tau_kink 1e-6) of the
    KKT LP misses those pairs (measured: r_KKT 0.17, 0.23, 0.22, 0.47 along Q = 100..6400 by normalised GD vs
    0.079, 0.065, 0.050, 0.0099 by the accurate flow on the same start, gen.gauss m = 4)."""
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if not holds(small_loss, fx):
        return _thm31_probe(fx, ev)
    # five horizons in every profile (cheap: the flow's time is logarithmic in the margin): after the declared
    # transient, four judged points give the fitted limit and its uncertainty
    H = [100, 400, 1600, 6400, 25600]
    run = flow_margin_horizons(fx["W0"], fx["a0"], X, y, al, H)
    Ws, As = run.W, run.a
    ll = np.array([float(log_loss(margins(Ws[j], As[j], X, y, al))) for j in range(len(H))])
    nrm = np.sqrt(parameter_norm_sq(Ws, As))
    ev.accuracy("integrator error estimate (relative, rtol/10 rerun)", run.error, 1e-6)
    ev.true("log L decreasing along the horizons", bool(np.all(np.diff(ll) < 0)), detail=str(np.round(ll, 3)))
    ev.true("||theta|| increasing along the horizons", bool(np.all(np.diff(nrm) > 0)), detail=str(np.round(nrm, 3)))
    gam = normalized_margin(Ws, As, X, y, al)
    if fx.mutated(GLOBAL_MAX):
        _, g_lin = svm(X, y)
        gap = 1 - gam / ((1 + al) / 4 * g_lin)
        judge_trend("relative gap of gamma to the global max (1+alpha)/4 gamma_lin", H, gap, 5e-2, evidence=ev,
                    scale_label="margin horizon")
        ev.record(margin_gap=gap)
        return ev
    # (eps, delta)-KKT in Lyu & Li's sense: points within 5% of q_min count as active (relative slack).
    r = np.array([two_layer_kkt_residual(Ws[j], As[j], X, y, alpha=al, tau_act=0.05, tau_kink=1e-6).r_kkt
                  for j in range(len(H))])
    # with four horizons the first (Q = 100, the start of the late phase) is a declared transient: the residual may
    # rise there before it falls (measured 0.20 -> 0.31 -> 0.29 -> 0.001 on a thorough fixture)
    probe = judge_trend("KKT residual r_KKT", H, r, 5e-2, scale_label="margin horizon", transient=1, plot=False)
    why = probe.inconclusive_reason or ""
    if fx.profile != "quick" and "still shrinking" in why and r[-1] <= 2 * 5e-2:
        # still shrinking just above the tolerance: one more horizon (x4) from the last snapshot decides it
        ext = flow_margin_horizons(Ws[-1], As[-1], X, y, al, [H[-1] * 4])
        ev.accuracy("integrator error estimate of the extension (relative, rtol/10 rerun)", ext.error, 1e-6)
        H = H + [H[-1] * 4]
        r = np.append(r, two_layer_kkt_residual(ext.W[0], ext.a[0], X, y, alpha=al, tau_act=0.05,
                                                tau_kink=1e-6).r_kkt)
        ev.record(extended_horizon=H[-1])
    judge_trend("KKT residual r_KKT", H, r, 5e-2, evidence=ev, scale_label="margin horizon", transient=1)
    _kkt_limit_zero(fx, H, r, 5e-2, ev)
    ev.record(log_loss=ll, norm=nrm, gamma=gam, q_min_at_snapshots=run.q, sliding_episodes=run.sliding,
              segments=run.segments)
    return ev


def _thm31_probe(fx, ev: Evidence) -> Evidence:
    """Off the hypothesis L(theta0) < ln2/n there is no late phase to follow by margin horizons: the flow is
    integrated for fixed times and the printed conclusion's first part, L(theta(t)) -> 0, is judged by judge_trend
    (tolerance 1e-2). theta0 = 0 is a rest point (every gradient vanishes), so L stays ln 2 and the conclusion
    fails there; a start with negative margins may still recover (the probe then shows the hypothesis sufficient,
    not necessary)."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    ts = np.array([1.0, 10.0, 100.0, 1000.0])
    Ws, As = flow_ode(fx["W0"], fx["a0"], X, y, al, ts, rtol=1e-10, atol=1e-14)
    loss = np.array([float(np.exp(log_loss(margins(Ws[j], As[j], X, y, al)))) for j in range(len(ts))])
    judge_trend("L(theta(t)) -> 0 along fixed times (hypothesis unmet)", ts, loss, 1e-2, evidence=ev, scale_label="time t")
    ev.record(probe_times=ts, probe_loss=loss)
    return ev


def _kkt_limit_zero(fx, H, r, tol, ev) -> None:
    """Thm 3.1 says r_KKT -> 0, not 'r_KKT below a tolerance': a residual that passes judge_trend must also have a
    fitted limit of 0 within its uncertainty (twice the change of the Aitken limit from the previous triple; or a
    limit below tol/10, the LP residual's resolution here). A positive fitted limit is a plateau candidate: while the
    tail still shrinks (log-log slope < -0.05), or at the quick profile's horizons, it is not yet asymptotic
    (inconclusive); outside quick, a flattened tail with a positive limit refutes."""
    if ev.inconclusive_reason is not None or ev.holds is False:
        return
    e, s = np.asarray(r[1:], float), np.asarray(H[1:], float)
    lim, prev = extrapolate_limit(s, e), extrapolate_limit(s[:-1], e[:-1])
    spread = abs(lim - prev) if lim is not None and prev is not None else None
    slope = float(np.polyfit(np.log(s[-3:]), np.log(np.maximum(e[-3:], 1e-300)), 1)[0])
    ev.record(kkt_fitted_limit=lim, kkt_fitted_limit_spread=spread, kkt_tail_slope=slope)
    if lim is not None and (lim <= tol / 10 or (spread is not None and lim <= 2 * spread)):
        ev.true("r_KKT -> 0: fitted limit 0 within its uncertainty", True,
                detail=f"limit {lim:.3g} +- {spread if spread is not None else float('nan'):.2g}")
        return
    why = (f"fitted limit {lim:.3g} +- {spread if spread is not None else float('nan'):.2g}" if lim is not None
           else "no convergent trend to extrapolate")
    if fx.profile == "quick" or slope < -0.05 or lim is None:
        ev.inconclusive(f"KKT residual: not yet asymptotic ({why}, tail slope {slope:.3f}): r_KKT -> 0 undecided at "
                        f"Q = {H[-1]:g}")
        return
    ev.true("r_KKT -> 0: fitted limit 0 within its uncertainty", False, detail=f"{why}, tail slope {slope:.3f}")


# ---------------------------------------------------------------------------------------------
# Theorem 4.2 through its sub-checks

C42 = "(1+alpha)/4"


def _sym_theta(W, a):
    """sym(theta) of the proof of Thm 4.2: w'_1 = sum_k a_k w_k/(sqrt2 A), w'_2 = -w'_1, a' = (A, -A)/sqrt2."""
    A = np.linalg.norm(a)
    w1 = (a @ W) / (np.sqrt(2) * A)
    return np.stack([w1, -w1]), np.array([A, -A]) / np.sqrt(2)


def _random_thetas(rng, d, k=400):
    out = []
    for _ in range(k):
        m = int(rng.integers(1, 9))
        s = 10.0 ** rng.uniform(-3, 3)
        out.append((s * rng.normal(size=(m, d)), s * rng.normal(size=m)))
    return out


@claim("lyu2021.thm4.2.sym_identity", **cat.declared("thm4.2.sym_identity"), kind="lemma", title="Theorem 4.2, proof step (symmetrisation)",
       statement=r"For symmetric data and any $\theta$ with $A = \|a\| > 0$, $\theta' = (w'_1, -w'_1, A/\sqrt2, -A/\sqrt2)$, "
                 r"$w'_1 = \sum_k a_kw_k/(\sqrt2A)$, satisfies $q_i(\theta') = (q_i(\theta) + q_{i'}(\theta))/2$, "
                 r"$\|\theta'\| \le \|\theta\|$ and $f_{\theta'}(x) = \frac{1+\alpha}{2}\langle\sum_ka_kw_k, x\rangle$.",
       hypotheses=[symmetric], uses=["lyu2021.asm4.1"],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5, n_half=10, alpha=0.1), adv(sym_n2), adv(sym_collinear),
                 negative(sym_broken), negative(sym_gauss, mutation="q(theta') = q(theta)")],
       judged_by="exact identities on 400 random theta (m in 1..8, scales 1e-3..1e3), relative tolerance 1e-12")
def thm4_2_sym_identity(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    part = sym_partner(len(y))
    worst_q = worst_f = worst_n = 0.0
    P = probes(fx.rng, X, 200)
    for W, a in _random_thetas(fx.rng, X.shape[1]):
        W2, a2 = _sym_theta(W, a)
        q = margins(W, a, X, y, al)
        q2 = margins(W2, a2, X, y, al)
        pred = q if fx.mutated() else (q + q[part]) / 2
        scale = np.sum(np.abs(a) * np.linalg.norm(W, axis=1))
        worst_q = max(worst_q, float(np.max(np.abs(q2 - pred))) / scale)
        worst_f = max(worst_f, float(np.max(np.abs(forward(W2, a2, P, al) - (1 + al) / 2 * P @ (a @ W)))) / scale)
        worst_n = max(worst_n, float(parameter_norm_sq(W2, a2) - parameter_norm_sq(W, a)) / parameter_norm_sq(W, a))
    ev.le("max_i |q_i(theta') - (q_i + q_i')/2| / sum|a_k|||w_k||", worst_q, 0.0, atol=1e-12)
    ev.le("f_theta' - ((1+alpha)/2)<sum a_k w_k, x> (relative)", worst_f, 0.0, atol=1e-12)
    ev.le("(||theta'||^2 - ||theta||^2)/||theta||^2", worst_n, 0.0, atol=1e-12)
    return ev


def _near_good_thetas(rng, w_star, d, k):
    """Random thetas around the linear maximiser (so that q_min > 0 often) and fully random ones."""
    out = []
    for j in range(k):
        m = int(rng.integers(2, 9))
        b = rng.normal(size=m)
        b[0], b[1] = abs(b[0]), -abs(b[1])
        W, a = embed(b, *linear_net(w_star, 2))
        noise = 10.0 ** rng.uniform(-3, 0) if j % 4 else 3.0
        out.append((W + noise * rng.normal(size=W.shape), a + noise * rng.normal(size=m)))
    return out


@claim("lyu2021.thm4.2.upper_bound", **cat.declared("thm4.2.upper_bound"), kind="lemma", title="Theorem 4.2 (upper bound on the margin)",
       statement=r"For symmetric separable data, every $\theta$ has $\gamma(\theta) \le \frac{1+\alpha}{4}\gamma_{lin}$, "
                 r"$\gamma_{lin} = \min_iy_i\langle w^*, x_i\rangle$ (proof of Thm 4.2).",
       hypotheses=[separable, symmetric], uses=["lyu2021.asm3.2", "lyu2021.asm4.1", "lyu2021.def3.3",
                                                 "lyu2021.thm4.2.sym_identity"],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5, n_half=12, alpha=0.25), adv(sym_collinear),
                 adv(sym_fig1left), negative(gen_allpos_sv), negative(sym_gauss, mutation="constant (1+alpha)/8")],
       judged_by="exact margins of 2000 sampled parameters (around the linear maximiser and random), chain "
                 "gamma(theta) <= gamma(sym theta) <= bound, tolerance 1e-12 relative")
def thm4_2_upper(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w_star, g_lin = svm(X, y)
    bound = (1 + al) / (8 if fx.mutated() else 4) * g_lin
    best, chain_viol, n_pos = -np.inf, 0.0, 0
    for W, a in _near_good_thetas(fx.rng, w_star, X.shape[1], 2000):
        g = float(normalized_margin(W, a, X, y, al))
        best = max(best, g)
        if g > 0:
            n_pos += 1
            gs = float(normalized_margin(*_sym_theta(W, a), X, y, al))
            chain_viol = max(chain_viol, (g - gs) / g)
    ev.le("max sampled gamma(theta)", best, bound, rtol=1e-12)
    ev.le("max (gamma(theta) - gamma(sym theta))/gamma(theta)", chain_viol, 0.0, atol=1e-12)
    ev.record(samples_with_positive_margin=n_pos, best_ratio=best / ((1 + al) / 4 * g_lin))
    return ev


@claim("lyu2021.thm4.2.attained", **cat.declared("thm4.2.attained"), kind="lemma", title="Theorem 4.2 (the bound is attained by the linear net)",
       statement=r"$\theta_{lin} = \frac12(w^*, -w^*, 1, -1)$, and its embedding $\pi_b(\theta_{lin})$ for any good $b$, has "
                 r"$\gamma = \frac{1+\alpha}{4}\gamma_{lin}$ and $f = \frac{1+\alpha}{4}\langle w^*, x\rangle$.",
       hypotheses=[separable, symmetric], uses=["lyu2021.def3.3"],
       fixtures=[random(sym_gauss, m=5), random(sym_gauss, d=5, m=2), adv(sym_fig1left), adv(sym_n2),
                 negative(sym_gauss, mutation="constant (1+alpha)/2")],
       judged_by="exact evaluation, relative tolerance 1e-12")
def thm4_2_attained(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w_star, g_lin = svm(X, y)
    C = (1 + al) / (2 if fx.mutated() else 4)
    b = fx.rng.normal(size=max(fx["m"], 2))
    b[0], b[1] = abs(b[0]), -abs(b[1])
    W, a = embed(b, *linear_net(w_star, 2))
    ev.close("||pi_b(theta_lin)||", np.sqrt(parameter_norm_sq(W, a)), 1.0, rtol=1e-12)
    ev.close("gamma(pi_b(theta_lin))", float(normalized_margin(W, a, X, y, al)), C * g_lin, rtol=1e-12)
    P = probes(fx.rng, X, 500)
    ev.close("f on probes vs C<w*, x>", forward(W, a, P, al), C * P @ w_star, rtol=1e-12)
    return ev


MAXIMISER_ONE_SIDED = "every global maximiser computes (1/2)phi(<w*, x>) (one-sided)"


@claim("lyu2021.thm4.2", **cat.declared("thm4.2"), **{**cat.item("thm4.2"), "uses": cat.uses("thm4.2") + [
           "lyu2021.thm4.2.sym_identity", "lyu2021.thm4.2.upper_bound", "lyu2021.thm4.2.attained"]},
       hypotheses=[separable, symmetric],
       fixtures=[random(sym_gauss, d=2, n_half=6), random(sym_gauss, d=2, n_half=10, alpha=0.1),
                 adv(sym_fig1left), adv(sym_fig1left, alpha=0.9),
                 adv(sym_gauss, d=2, gap=1e-3, alpha=0.999, label="alpha -> 1, margin near 0"),
                 adv(sym_gauss, d=2, alpha=0.01, label="alpha -> 0"),
                 adv(sym_collinear, d=2, label="nearly collinear data"), adv(sym_n2, label="n = 2 (one pair)"),
                 negative(gen_allpos_sv),
                 # non-symmetric data (Asm 4.1 broken): the dual certificate itself must see a global maximiser off the
                 # linear blocks (its sin-angle quantifier fails), not only the margin constant
                 negative(gen_gauss, d=2, n=12, label="non-symmetric Gaussian data (the certificate's probe)"),
                 negative(sym_gauss, d=2, mutation="constant (1+alpha)/2"),
                 negative(sym_gauss, d=2, n_half=8, mutation=MAXIMISER_ONE_SIDED)],
       judged_by="d = 2, exact over every width m >= 2: the cell SOCP of the global max margin (CLARABEL) with its dual; "
                 "primal feasibility, dual feasibility (<= 1e-6) and the duality gap (<= 1e-7) recomputed from the returned "
                 "values (validity). The dual g_j certifies every global maximiser, not only the one returned: a block "
                 "with ||g_j|| < 1 - 1e-6 holds at most gap/(1 - ||g_j||) of any optimum's mass (<= 1e-4; an upper bound, so a "
                 "larger value means the certificate cannot decide: validity; it is first solved again at CLARABEL tolerances "
                 "1e-11), the others may hold "
                 "neurons only along g_j, which must be w* and one of the two blocks of the linear solution; the LP on "
                 "those two blocks has the unique optimum c_1 = c_2 = 1/((1+alpha) gamma_lin), hence f = "
                 "((1+alpha)/4)<w*, x> for every unit global maximiser. d >= 3: the proof's steps thm4.2.sym_identity, "
                 "upper_bound, attained. Extremes: alpha in {0.01, 0.999}, gamma_lin ~ 1e-3, nearly collinear data, "
                 "n = 2; non-symmetric data (hypothesis broken) have a larger, nonlinear optimum")
def thm4_2(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w_star, g_lin = svm(X, y)
    cert = margin_socp_dual_2d(X, y, al)
    if cert.status == "optimal":
        frac = cert.gap / linear_structure(cert, w_star)["closed_gap"]
        if frac > 1e-4:      # a closed block with ||g_j|| near 1: solve again with a sharper certificate
            tight = margin_socp_dual_2d(X, y, al, tight=True)
            if tight.status == "optimal":
                ev.record(default_solve_block_fraction=frac)
                cert = tight
    if not ev.valid(f"SOCP solved (CLARABEL status {cert.status})", cert.status == "optimal"):
        return ev
    ev.accuracy("primal feasibility (relative)", cert.primal, 1e-6)
    ev.accuracy("dual feasibility (lam, nu >= 0, ||g_j|| <= 1)", cert.dual, 1e-6)
    ev.accuracy("duality gap |v* - sum lam| / v*", cert.gap, 1e-7)
    C = (1 + al) / (2 if fx.mutated("constant (1+alpha)/2") else 4)
    ev.close("global max margin over all widths vs C gamma_lin", cert.gamma, C * g_lin, rtol=1e-6)
    st = linear_structure(cert, w_star)
    # For any optimum U': gap * v* >= sum_j ||u'_j|| (1 - ||g_j|| cos angle(u'_j, g_j)) >= (mass outside the open
    # blocks) * min_closed (1 - ||g_j||): the dual bounds what *every* global maximiser can put in a closed block.
    # The bound is an upper bound, never evidence of mass there: when it is loose (a closed block with ||g_j|| near
    # 1 and the solver's gap), the certificate cannot decide -- accuracy, not a conclusion.
    ev.accuracy("fraction of ||theta||^2 any global maximiser can put in a closed block (gap / min(1 - ||g_j||))",
                cert.gap / st["closed_gap"], 1e-4)
    ev.forall("blocks that can hold neurons in some global maximiser (||g_j|| >= 1 - 1e-6): sin angle(g_j, w*)",
              st["sines"], 1e-4, relation="<=", room=None)
    ev.forall("... and each is a block of the linear solution (cell of +w*, a > 0 or cell of -w*, a < 0)",
              st["linear_block"], relation="true")
    c, moved = two_block_lp(X, y, al, w_star)
    ev.accuracy("two-block LP: optimum moved by an objective perturbation of 1e-6 (uniqueness)", moved, 1e-5)
    c_pred = 1 / ((1 + al) * g_lin)
    if fx.mutated(MAXIMISER_ONE_SIDED):
        c_pred = 0.0
    ev.close("two-block optimum (c_1, c_2) vs 1/((1+alpha) gamma_lin) each", c[1], c_pred, rtol=1e-7,
             atol=1e-7 * abs(c[0]))
    ev.close("... c_1 = c_2 (the function is linear)", c[0], c[1], rtol=1e-7)
    ev.record(gamma_global=cert.gamma, bound=(1 + al) / 4 * g_lin, open_blocks=len(st["open"]),
              closed_block_gap=st["closed_gap"], c=c, residuals=dict(primal=cert.primal, dual=cert.dual, gap=cert.gap,
                                                                    stationarity=cert.stationarity))
    return ev


# ---------------------------------------------------------------------------------------------
# Theorem 4.3 and Corollary 4.4: small-initialisation gradient flow


def _bad_b_init(rng, B, m, d, c_a, mubar):
    """Rejection-sample thetabar0 ~ D_init(1) conditioned on bbar having one sign (the failure event)."""
    W, a = np.zeros((B, m, d)), np.zeros((B, m))
    k = 0
    while k < B:
        W1, a1 = d_init(rng, 64, m, d, c_a)
        bad = ~good_embedding(bbar(W1, a1, mubar))
        take = np.flatnonzero(bad)[: B - k]
        W[k:k + len(take)], a[k:k + len(take)] = W1[take], a1[take]
        k += len(take)
    return W, a


def small_init_runs(fx, B, sigmas, horizons, bad_b=False):
    """Per sigma: GD (eta 0.1) to q_min >= 1, then normalised GD to the horizons, for B seeds drawn
    from D_init(1) (shared across sigma). Returns thetabar0, bbar, and per-sigma HorizonRun."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    m, d = fx["m"], X.shape[1]
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    if bad_b:
        W0, a0 = _bad_b_init(fx.rng, B, m, d, fx["c_a"], mubar)
    else:
        W0, a0 = d_init(fx.rng, B, m, d, fx["c_a"])
    runs = []
    for s in sigmas:
        W, a, _ = gd_until_margin(s * W0, s * a0, X, y, al, eta=0.1, q_target=1.0)
        runs.append(ngd_horizons(W, a, X, y, al, horizons, eta=1e-2, q_ref=400))
    return W0, a0, bbar(W0, a0, mubar), runs


def extend_runs(fx, runs, more, only=None, max_steps=400_000, eta=1e-2, q_ref=400):
    """Continue every run of :func:`small_init_runs` from its last snapshot to the further margin horizons ``more``
    (same normalised-GD step rule: ``eta``, ``q_ref`` as :func:`ngd_horizons`; the defaults are small_init_runs')
    and return the runs with the snapshots appended. Seeds that did not reach the last horizon stay unreached;
    with ``only`` (a boolean mask over seeds, or a list of masks, one per run) only those seeds are continued."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    out = []
    masks = only if isinstance(only, list) else [only] * len(runs)
    for run, mask in zip(runs, masks, strict=True):
        ok = run.reached[-1] if mask is None else run.reached[-1] & mask
        Hn = len(more)
        B = run.W.shape[1]
        SW = np.full((Hn,) + run.W.shape[1:], np.nan)
        Sa = np.full((Hn,) + run.a.shape[1:], np.nan)
        R = np.zeros((Hn, B), bool)
        St = np.full((Hn, B), -1)
        if ok.any():
            W, a = np.nan_to_num(run.W[-1]), np.nan_to_num(run.a[-1])
            ext = ngd_horizons(W[ok], a[ok], X, y, al, more, eta=eta, q_ref=q_ref, max_steps=max_steps)
            SW[:, ok], Sa[:, ok], R[:, ok], St[:, ok] = ext.W, ext.a, ext.reached, ext.steps
        out.append(HorizonRun(np.concatenate([run.horizons, np.asarray(more, float)]), np.concatenate([run.W, SW]),
                              np.concatenate([run.a, Sa]), np.concatenate([run.reached, R]),
                              np.concatenate([run.steps, St])))
    return out


def minority_share(W, a):
    """Share of ||theta||^2 carried by the neurons whose output sign is the less massive one (batched (B, m, d))."""
    mass = np.sum(W ** 2, axis=-1) + a ** 2
    pos = np.sum(np.where(a > 0, mass, 0.0), axis=-1)
    neg = np.sum(np.where(a < 0, mass, 0.0), axis=-1)
    return np.minimum(pos, neg) / (pos + neg)


def smoothed_margin_terms(W, a, X, y, alpha) -> tuple[np.ndarray, np.ndarray]:
    """(gamma~, alpha~): alpha~ = l^{-1}(n L(theta)), l^{-1}(u) = -log(e^u - 1), and the smoothed normalised margin
    gamma~ = alpha~ / ||theta||^2 (Lyu & Li 2020; App. F.2), batched over the leading axes of (W, a); from log(nL), so
    no underflow at huge margins (for nL < 1e-8, l^{-1}(nL) = -log(nL) - nL/2 to double precision). The late phase's
    claims (late_phase.smoothed_margin) read it one network at a time."""
    lnl = np.asarray(log_loss(margins(W, a, X, y, alpha)), dtype=float) + np.log(len(y))
    nL = np.exp(lnl)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):    # nL -> inf (negative margins): -inf
        al = np.where(nL > 1e-8, -np.log(np.expm1(np.maximum(nL, 1e-8))), -lnl - nL / 2)
    return al / parameter_norm_sq(W, a), al


def smoothed_normalized_margin(W, a, X, y, alpha) -> np.ndarray:
    """gamma~(theta) of :func:`smoothed_margin_terms`, batched."""
    return smoothed_margin_terms(W, a, X, y, alpha)[0]


def margin_certified(run, X, y, alpha, target_margin) -> np.ndarray:
    """Per seed: at some reached snapshot the smoothed normalised margin gamma~ exceeds ``target_margin`` (relative
    slack MARGIN_CERT_SLACK, which guards rounding only). A statement about exact gradient flow restarted at that
    normalised-GD snapshot: gamma~ is non-decreasing along gradient flow once L < ln2/n (Lemma B.1 of Lyu & Li 2020,
    used by the paper in App. F.2) and tends to the limit's normalised margin, so that flow converges to a direction
    whose margin exceeds the target's and its f_inf is not the target. The simulated normalised-GD run is only a proxy
    for that flow: its gamma~ is not monotone (measured: a two-step zigzag of about 1-1.5% of C gamma_lin at Q ~ 400,
    about 0.3% at Q ~ 1500). On symmetric data (Asm 4.1) it cannot fire whatever the integrator: every theta has
    gamma~ <= gamma <= (1+alpha)/4 gamma_lin (Thm 4.2), at most the target margin; so on the Asm 4.1 fixtures it
    changes no verdict."""
    out = np.zeros(run.W.shape[1], bool)
    for j in range(len(run.horizons)):
        ok = run.reached[j]
        if ok.any():
            g = smoothed_normalized_margin(run.W[j][ok], run.a[j][ok], X, y, alpha)
            out[ok] |= g > target_margin * (1 + MARGIN_CERT_SLACK)
    return out


# Relative slack of the margin certificate: it guards rounding only, far above that of gamma~ (~1e-15) and of gamma_lin
# (the SVM's KKT residuals <= 1e-9); it is no allowance for the integrator (normalised GD's gamma~ zigzags by ~1% of
# the target, see margin_certified). On symmetric data gamma~ <= gamma <= (1+alpha)/4 gamma_lin exactly (Thm 4.2):
# only rounding could cross the bound there.
MARGIN_CERT_SLACK = 1e-6


def classify(fd, fd_alt, reached, tol, share=None, certified=None):
    """Per-seed outcome along horizons: 1 success (distance to the target <= tol and shrinking, or already
    <= tol/10); 0 failure (distance no longer decreasing by 1% per horizon and either within tol of an
    alternative limit or above 3 tol, while the minority output-sign group is not gaining mass; or, first,
    ``certified``: a margin certificate, :func:`margin_certified`, that the limit is not the target); -1 undecided."""
    out = np.full(fd.shape[1], -1)
    for b in range(fd.shape[1]):
        if certified is not None and certified[b]:
            out[b] = 0
            continue
        if not reached[-1, b]:
            continue
        e = fd[:, b]
        mono = bool(np.all(e[1:] <= e[:-1] * 1.1)) or e[-1] <= tol / 10
        if e[-1] <= tol and mono:
            out[b] = 1
        elif e[-2] - e[-1] <= 0.01 * e[-2] and (fd_alt[-1, b] <= tol or e[-1] > 3 * tol):
            escaping = share is not None and share[-1, b] > share[-2, b] * (1 + 1e-3) + 1e-12
            if not escaping:   # a minority group still gaining mass is a slow saddle escape: undecided
                out[b] = 0
    return out


def _outcomes(fx, runs, target, C, certify=False):
    """Classify every seed: target vs the one-sided limits +-(1/2)phi(+-<w*, x>) of the failure event. The
    tolerance is min(3e-2, a quarter of the distance between the target and the alternatives on the probes).
    ``certify``: a seed whose smoothed normalised margin exceeds the target's, C gamma_lin, fails
    (:func:`margin_certified`)."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w, g_lin = svm(X, y)
    P = probes(fx.rng, X, 1000)
    alts = [lambda Z: 0.5 * activation(Z @ w, al), lambda Z: -0.5 * activation(-(Z @ w), al)]
    sep = min(float(np.max(np.abs(target(P) - f(P)))) for f in alts)
    tol = min(3e-2, sep / 4)
    res = []
    for run in runs:
        H = range(len(run.horizons))
        fd = np.array([unit_function_distance(run.W[j], run.a[j], P, al, target) for j in H])
        fd_alt = np.array([np.minimum(*[unit_function_distance(run.W[j], run.a[j], P, al, f) for f in alts]) for j in H])
        rho = np.array([normalized_margin(run.W[j], run.a[j], X, y, al) for j in H]) / ((1 + al) / 4 * g_lin)
        share = np.array([minority_share(run.W[j], run.a[j]) for j in H])
        cert = margin_certified(run, X, y, al, C * g_lin) if certify else None
        res.append((classify(fd, fd_alt, run.reached, tol, share, cert), fd, rho))
    return res


P_EXPONENT_M = "probability >= 1 - 2^-m (exponent m instead of m - 1)"
# Measured (standard, seed 0, continued to 16x the last horizon): at alpha = 0.9 and on nearly collinear data the
# seeds that leave the one-sided limit do so logarithmically slowly (the minority output group's share of
# ||theta||^2 grows 0.018 -> 0.033 while the distance to the target falls 0.0241 -> 0.0233 over Q = 1e3 -> 6.4e4),
# so about a third of the seeds stay undecided at any reachable horizon (thm4.3: 28/96 collinear, 33/96 alpha 0.9;
# cor4.4: 39/96 alpha 0.9). Continued alone to 256x (Q = 1.024e6, every one reaches it) most stay undecided
# (thm4.3: 23/96 collinear, 27/96 alpha 0.9, all 27 with a good bbar; cor4.4: 36/96). There the binomial may end
# inconclusive (thm4.3 alpha 0.9: 35/69 decided, 99% CI [0.2424, 0.7667] vs 0.75); a refutation by the decided
# seeds alone (upper bound below p with every undecided seed counted a success) is still unexpected.
SLOW_ESCAPE = {"pass", "inconclusive"}
SLOW_ESCAPE_WHY = ("At alpha = 0.9 and on nearly collinear data about a third of the seeds escape the one-sided limit "
                   "too slowly to be decided at any reachable horizon: those fixtures may end inconclusive (expected), "
                   "never refuted.")
ONE_SEED = {"quick": 1, "standard": 1, "thorough": 1}


def continue_undecided(fx, runs, H, o, outcomes, ev, final=None):
    """Seeds still undecided after the 16x horizons ``H`` (``o == -1``) alone, continued to 64x and 256x H[-1]
    (normalised GD, up to 3M steps; they are escaping a saddle slowly, the others are not rerun). ``outcomes(runs,
    H)`` re-judges the continued runs; its first item (per-seed outcomes) replaces ``o`` on the continued seeds.
    ``final`` (one mask per run): seeds whose outcome in that run can no longer change (thm4.3's margin
    certificate, which holds at every later horizon); they are not continued in that run, and count as reaching
    the last horizon. Returns (o, the continued seeds' mask, the continued runs or None, outcomes' result or None)."""
    undec = o == -1
    if not undec.any():
        return o, undec, None, None
    more = [H[-1] * 4, H[-1] * 16]
    only = undec if final is None else [undec & ~f for f in final]
    cont = extend_runs(fx, runs, more, only=only, max_steps=3_000_000)
    res = outcomes(cont, H + more)
    done = [r.reached[-1] for r in cont] if final is None else [r.reached[-1] | f for r, f in zip(cont, final)]
    ev.record(undecided_at_16x=int(undec.sum()), continued_to=H[-1] * 16,
              continued_reaching_it=int(np.sum(undec & np.all(done, axis=0))))
    return np.where(undec, res[0], o), undec, cont, res


RERUN_SIGMAS = (1e-20, 1e-40)    # "for all sufficiently small sigma_init": a mismatching seed, further toward 0


def judge_proof_event(fx, W0, a0, good, o, p, H, outcomes_at, ev):
    """The threshold quantifier "w.p. p there is sigma_max such that for all sigma < sigma_max ..." through the proof's
    event (a good bbar, decided exactly by the init): P(event) judged against p from the inits alone, and "event =>
    success" seed by seed, each seed with the event whose outcome is a failure rerun at sigma = 1e-20 and 1e-40 (both
    must agree) before it counts (a failure at a larger sigma only places sigma_max below it). ``outcomes_at(runs, H)``
    judges runs as the claim does; returns the per-seed outcomes with the reruns' outcomes in place."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    judge_binomial("P(proof event: bbar good), exact from the inits", int(good.sum()), len(good), p, confidence=0.99,
                   evidence=ev)
    rerun = np.flatnonzero(good & (o == 0))
    if rerun.size:
        runs = []
        for s in RERUN_SIGMAS:
            W, a, _ = gd_until_margin(s * W0[rerun], s * a0[rerun], X, y, al, eta=0.1, q_target=1.0)
            runs.append(ngd_horizons(W, a, X, y, al, H, eta=1e-2, q_ref=400))
        o1, o2 = outcomes_at(runs[:1], H), outcomes_at(runs[1:], H)
        o = o.copy()
        o[rerun] = np.where(o1 == o2, o2, -1)
        ev.record(rerun_seeds=rerun, rerun_sigmas=list(RERUN_SIGMAS), rerun_outcomes=np.array([o1, o2]))
    ev.forall("seeds with the proof's event (good bbar): success at the smallest sigma (event => success)",
              o[good & (o >= 0)] == 1, relation="true", required=False)
    return o


def linear_target_not_kkt(X, y, w_star, g_lin) -> dict | None:
    """A witness that no KKT-margin direction (of any width) computes a positive multiple of <w*, x>, or None.

    The active points of f = c<w*, x> (c > 0) are the linear support vectors (y_i <w*, x_i> = gamma_lin); the witness
    is that they all carry one label s. Proof, from Def B.8 and Lemma B.9 (App. B.4). f = alpha<sum_k a_k w_k, x> +
    (1-alpha) sum_d A(d) relu(<d, x>), A(d) the sum of a_k ||w_k|| over the neurons of unit direction d; as relu(t) =
    (t + |t|)/2, f = <v, x> + ((1-alpha)/2) sum_d A(d)|<d, x>| for a vector v, and the functions |<d, x>| for distinct
    lines are independent modulo linear functions, so f linear forces A(d) + A(-d) = 0 for every d. Then sum_k a_k w_k
    = sum_d A(d) d, and f = c<w*, x> != 0 makes it nonzero, so some A(d) > 0 (and A(-d) = -A(d) < 0): a neuron with
    a > 0 along d and one with a < 0 along -d. At a KKT point (Def B.8: theta = sum_i lam_i dq_i, lam >= 0 on the
    active points, Clarke derivatives c_i in [alpha, 1] at kinks) each nonzero neuron has w_k = a_k g_k, a_k =
    <w_k, g_k>, g_k = s sum_i lam_i c_ik x_i, so ||g_k|| = 1 (|a_k| = ||w_k||, Lemma B.9) and g_k = d for both neurons.
    With P = sum over <d, x_i> > 0 of lam_i <d, x_i> >= 0 and N the same over <d, x_i> < 0 (<= 0): <d, g> = 1 gives
    s(P + alpha N) = 1 and s(N + alpha P) = 1, so P = N = 0 for alpha < 1, a contradiction. The active set is taken
    generously (relative 1e-6 above gamma_lin): more points only make the condition harder to meet. On symmetric data
    (Asm 4.1) the support vectors come in pairs x, -x of both labels. ``opposite_label_margin_ratio``: the nearest
    point of the other label, y_i <w*, x_i> / gamma_lin (how far the witness is from breaking)."""
    q = y * (X @ w_star)
    act = np.flatnonzero(q <= g_lin * (1 + 1e-6))
    if len(set(y[act].tolist())) != 1:
        return None
    s = float(y[act[0]])
    other = q[y != s]
    return {"support_vectors": act, "support_label": s,
            "opposite_label_margin_ratio": float(np.min(other)) / g_lin if other.size else float("inf")}


WITNESS_ABSENT = ("witness absent: probe judged by simulation (rule 1 rests on the discrete-run proxy): a linear "
                  "support vector of each label, so linear_target_not_kkt cannot decide it")


def _kkt_witness(X, y, w_star, g_lin, ev) -> dict | None:
    """thm4.3 off Asm 4.1: :func:`linear_target_not_kkt`'s witness, recorded either way (``linear_sv_one_label``);
    gen.allpos_sv does not guarantee it (rng seeds 9 and 10 of its family give a support vector of each label), and
    without it the probe is judged by simulation, which a note says."""
    witness = linear_target_not_kkt(X, y, w_star, g_lin)
    ev.record(linear_sv_one_label=witness is not None)
    if witness is None:
        ev.note(WITNESS_ABSENT)
    return witness


def _seed_counts(o):
    """(successes, decided, undecided) from per-seed outcomes 1 / 0 / -1."""
    return int(np.sum(o == 1)), int(np.sum(o >= 0)), int(np.sum(o == -1))


@claim("lyu2021.thm4.3", **cat.declared("thm4.3"), **cat.item("thm4.3"), hypotheses=[separable, symmetric, asm45, width2],
       fixtures=[random(sym_gauss, m=2, seeds={"quick": 1, "standard": 2, "thorough": 3}),
                 random(sym_gauss, m=3, d=5, n_half=8, alpha=0.25, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adv(sym_gauss, m=4, c_a=2.0, seeds=ONE_SEED),
                 adv(sym_collinear, m=2, seeds=ONE_SEED, expect=SLOW_ESCAPE),
                 adv(sym_gauss, m=3, alpha=0.9, seeds=ONE_SEED, label="alpha -> 1 (0.9)", expect=SLOW_ESCAPE),
                 adv(sym_gauss, m=2, alpha=0.05, seeds=ONE_SEED, label="alpha -> 0 (0.05)"),
                 negative(sym_gauss, m=2, mutation="bad bbar (conditioned on the failure event)", seeds=ONE_SEED),
                 negative(sym_gauss, m=2, mutation="constant C = (1+alpha)/2", seeds=ONE_SEED),
                 negative(sym_gauss, m=2, mutation=P_EXPONENT_M, seeds=ONE_SEED),
                 negative(gen_allpos_sv, m=2, seeds=ONE_SEED)],
       judged_by="per seed of thetabar0 ~ D_init(1) (48 seeds in quick, 96 otherwise), at two init scales sigma and "
                 "sigma/100: GD to q_min >= 1 then normalised GD to margin horizons; success iff the function distance to "
                 "C<w*,x> is <= tol and shrinking, failure iff it settles above 3 tol or within tol of a one-sided limit "
                 "+-(1/2)phi(+-<w*,x>), tol = min(3e-2, a quarter of the target-alternative separation), or, before "
                 "either, when its smoothed normalised margin l^-1(nL)/||theta||^2 exceeds the target's C gamma_lin "
                 "(relative slack 1e-6, guarding rounding only) at some horizon: a statement about exact gradient flow "
                 "restarted at that normalised-GD snapshot (gamma~ only grows along the flow, Lemma B.1 of Lyu & Li "
                 "2020 as App. F.2 uses it, so that flow's limit has a margin above C<w*,x>'s); the simulated "
                 "normalised-GD run is its proxy, its gamma~ not monotone (a two-step zigzag of about 1-1.5% of "
                 "C gamma_lin at Q ~ 400, ~0.3% at Q ~ 1500). On symmetric data it cannot fire whatever the integrator "
                 "(gamma~ <= gamma <= (1+alpha)/4 gamma_lin, Thm 4.2), so on the Asm 4.1 fixtures it changes no "
                 "verdict; else undecided; "
                 "a seed counts when decided alike at both scales. Clopper-Pearson (99%) vs 1 - 2^-(m-1), undecided seeds "
                 "counted neither way (judge_binomial(undecided=)). Power: the exponent-m control (1 - 2^-m) must be "
                 "refuted. 'For all sufficiently small sigma_init' through the proof's event (a good bbar): P(event) vs "
                 "1 - 2^-(m-1) exactly from the inits, and 'event => success' seed by seed, a good-bbar seed that fails "
                 "rerun at sigma = 1e-20 and 1e-40 before it counts. Off Asm 4.1 (the probe), when every linear "
                 "support vector carries one label (the witness, recorded as linear_sv_one_label: gen.allpos_sv does "
                 "not guarantee it), no KKT-margin direction computes C<w*,x> (linear_target_not_kkt: a proof from the "
                 "KKT conditions), so by Thm 3.1 no flow converges to it: P = 0 vs 1 - 2^-(m-1), the first horizons' "
                 "seed outcomes recorded beside it; without the witness the probe is judged by simulation as above "
                 "(the margin certificate resting on the discrete-run proxy), and a note says so. "
                 "Extremes: m = 2 (minimum), "
                 "alpha in {0.05, 0.9}, nearly collinear data, a large output-init scale. Seeds left undecided at the "
                 "last horizon are continued to 4x and 16x that horizon, and those still undecided alone to 64x and "
                 "256x it (standard, thorough; as cor4.4). " + SLOW_ESCAPE_WHY,
       timeout_s=600)
def thm4_3(fx):
    ev = Evidence()
    if not holds(width2, fx):     # off Asm 4.1 the conclusion is still probed; below width 2 it is undefined
        ev.note("hypotheses unmet: not run")
        return ev
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    w_star, g_lin = svm(X, y)
    quick = fx.profile == "quick"
    B = 48 if quick else 96
    sig = fx["sigma"]
    sigmas = [sig, sig * 1e-2]
    H = [100, 400, 1600] if quick else [250, 1000, 4000]
    bad = fx.mutated("bad bbar (conditioned on the failure event)")
    C = (1 + al) / (2 if fx.mutated("constant C = (1+alpha)/2") else 4)
    p = 1 - 2.0 ** (-(m if fx.mutated(P_EXPONENT_M) else m - 1))
    W0, a0, b, runs = small_init_runs(fx, B, sigmas, H, bad_b=bad)

    def outcomes(runs, H=None):
        (o1, fd1, rho1), (o2, _, _) = _outcomes(fx, runs, lambda Z: C * Z @ w_star, C, certify=True)
        return np.where(o1 == o2, o2, -1), fd1, rho1, o1, o2      # decided only when both init scales agree

    o, fd1, rho1, o1, o2 = outcomes(runs)
    witness = None if holds(symmetric, fx) else _kkt_witness(X, y, w_star, g_lin, ev)
    if witness is not None:
        return _not_kkt_probe(fx, witness, o, runs, X, y, al, C * g_lin, p, ev)
    undecided_first = int(np.sum(o == -1))
    if undecided_first and not quick:            # longer horizons before any seed is left undecided
        H = H + [H[-1] * 4, H[-1] * 16]
        runs = extend_runs(fx, runs, H[-2:])
        o, fd1, rho1, o1, o2 = outcomes(runs)
    ev.record(undecided_at_first_horizons=undecided_first, last_horizon=H[-1])
    fd_end, rho_end = fd1[-1], rho1[-1]
    # per scale, the seeds whose limit margin is certified above the target's (never on symmetric data: Thm 4.2);
    # a certified seed fails at that scale at every later horizon, so it is not continued there
    cert_at = [margin_certified(r, X, y, al, C * g_lin) for r in runs]
    if not quick:                                # those still undecided alone: 64x and 256x (as cor4.4)
        o, undec16, cont, res = continue_undecided(fx, runs, H, o, outcomes, ev, final=cert_at)
        if cont is not None:
            at = undec16 & cont[0].reached[-1]
            fd_end, rho_end = np.where(at, res[1][-1], fd_end), np.where(at, res[2][-1], rho_end)
            o1, o2 = np.where(undec16, res[3], o1), np.where(undec16, res[4], o2)
            cert_at = [margin_certified(r, X, y, al, C * g_lin) for r in cont]
    good = good_embedding(b)
    o = judge_proof_event(fx, W0, a0, good, o, p, H,
                          lambda r, _H: _outcomes(fx, r, lambda Z: C * Z @ w_star, C, certify=True)[0][0], ev)
    succ, decided, undec = _seed_counts(o)
    judge_binomial("P(f_inf = C<w*,x>)", succ, decided, p, undecided=undec, confidence=0.99, evidence=ev,
                   covariate=(good[o >= 0], good[o == -1]), covariate_name="the proof's event (good bbar)")
    ev.record(successes=succ, decided=decided, undecided=undec, good_bbar=int(good.sum()), seeds=B,
              proof_event_mismatches=int(np.sum((o >= 0) & ((o == 1) != good))),
              failure_margin_ratios=rho_end[o == 0], predicted_failure_ratio=2 * al / (1 + al),
              success_function_distance=fd_end[o == 1],
              sigma_disagreements=int(np.sum((o1 != o2) & (o1 >= 0) & (o2 >= 0))),
              margin_certified_failures=int(np.sum(cert_at[0] & cert_at[1])))
    ev.add_series("margin ratio gamma / ((1+alpha)/4 gamma_lin) per seed (larger sigma)", H,
                  {f"seed {k} ({'good' if good[k] else 'bad'} bbar)": rho1[:, k] for k in range(min(B, 6))},
                  xlabel="margin horizon Q", logx=True)
    return ev


def _not_kkt_probe(fx, witness, o, runs, X, y, al, target_margin, p, ev) -> Evidence:
    """thm4.3 off Asm 4.1 where C<w*, x> is no KKT-margin direction (:func:`linear_target_not_kkt`): a flow with
    f_inf = C<w*, x> has margins bounded below by a positive multiple of ||theta||^2 in the end, so d||theta||^2/dt =
    (4/n) sum_i -l'(q_i) q_i stays positive and bounded away from 0 while the norm is bounded: the norm grows without
    bound, the loss falls below ln2/n, and from there its direction converges to a KKT-margin direction (Thm 3.1), a
    contradiction. So f_inf = C<w*, x> has probability 0 at every init scale. The first horizons' outcomes are
    recorded beside it (another method, not judged)."""
    cert = np.logical_and(*[margin_certified(r, X, y, al, target_margin) for r in runs])
    ev.ge("P(f_inf = C<w*,x>): 0 for every sigma, C<w*,x> being no KKT-margin direction (limits are, Thm 3.1)", 0.0,
          p, rtol=0.0, room=None,
          detail=f"the support vectors {witness['support_vectors'].tolist()} all have label "
                 f"{witness['support_label']:+.0f}, so a KKT point computing c<w*, x> would need (1 - alpha)(P - N) = 0 "
                 f"with P >= 0 >= N and P + alpha N = 1 (alpha = {al}): linear_target_not_kkt")
    ev.record(**{k: v for k, v in witness.items()}, seeds=len(o), first_horizons_successes=int(np.sum(o == 1)),
              first_horizons_failures=int(np.sum(o == 0)), first_horizons_undecided=int(np.sum(o == -1)),
              first_horizons_margin_certified_failures=int(cert.sum()))
    if np.any(o == 1):     # the proof rules every success out: a seed judged one contradicts it (or the tolerance)
        ev.note(f"{int(np.sum(o == 1))} first-horizon seed(s) judged a success, contradicting linear_target_not_kkt: "
                "the simulation's distance tolerance or the proof is wrong")
    return ev


@claim("lyu2021.cor4.4", **cat.declared("cor4.4"), **cat.item("cor4.4"), hypotheses=[separable, symmetric, asm45, width2],
       fixtures=[random(sym_gauss, m=3, seeds={"quick": 1, "standard": 1, "thorough": 2}),
                 adv(sym_gauss, m=5, d=2, seeds=ONE_SEED),
                 adv(sym_gauss, m=2, alpha=0.9, seeds=ONE_SEED, label="m = 2, alpha 0.9", expect=SLOW_ESCAPE),
                 negative(sym_gauss, m=3, mutation="bad bbar", seeds=ONE_SEED),
                 negative(sym_gauss, m=2, mutation=P_EXPONENT_M, seeds=ONE_SEED),
                 negative(sym_broken, m=3, seeds=ONE_SEED)],
       judged_by="as thm4.3 (48 seeds in quick, 96 otherwise and for the exponent-m control; one init scale), and a success must also have normalised "
                 "margin >= (1 - 2 ln(n)/Q) times the exact global optimum (1+alpha)/4 gamma_lin (Thm 4.2) at the last "
                 "horizon Q, else it is undecided; Clopper-Pearson (99%) vs 1 - 2^-(m-1), undecided seeds counted neither "
                 "way; power: the exponent-m control must be refuted; the proof's event judged as in thm4.3 (P(good bbar) "
                 "exactly from the inits, event => success with failing seeds rerun at sigma = 1e-20 and 1e-40). Off "
                 "Asm 4.1 (the probe), when a seed's smoothed normalised margin l^-1(nL)/||theta||^2 exceeds (1+alpha)/4 "
                 "gamma_lin at the first horizons, Thm 4.2's value is shown not to be the optimum there (the global max "
                 "margin is not known), so seeds are not judged against it: undecided, without longer horizons; when "
                 "no seed exceeds it, Thm 4.2's value is off Asm 4.1 only a lower bound on the global maximum. "
                 "Undecided seeds are continued to 4x and 16x the "
                 "last horizon, and those still undecided alone to 64x and 256x it (standard, thorough). " + SLOW_ESCAPE_WHY,
       timeout_s=600)
def cor4_4(fx):
    ev = Evidence()
    if not holds(width2, fx):     # off Asm 4.1 the conclusion is still probed; below width 2 it is undefined
        ev.note("hypotheses unmet: not run")
        return ev
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    w_star, g_lin = svm(X, y)
    # the power control runs 96 seeds in every profile: at 48, a true 1/2 sits within sampling reach of 3/4
    B = 48 if fx.profile == "quick" and not fx.mutated(P_EXPONENT_M) else 96
    H = [100, 400, 1600] if fx.profile == "quick" else [250, 1000, 4000]
    p = 1 - 2.0 ** (-(m if fx.mutated(P_EXPONENT_M) else m - 1))
    W0, a0, b, runs = small_init_runs(fx, B, [fx["sigma"]], H, bad_b=fx.mutated("bad bbar"))

    def outcomes(runs, H):
        (o, fd, rho), = _outcomes(fx, runs, lambda Z: (1 + al) / 4 * Z @ w_star, (1 + al) / 4)
        near_max = rho[-1] >= 1 - 2 * np.log(len(y)) / H[-1]      # softmin smoothing costs up to ln(n)/Q
        return np.where((o == 1) & ~near_max, -1, o), fd, rho

    if not holds(symmetric, fx):
        # Off Asm 4.1 Thm 4.2's (1+alpha)/4 gamma_lin is the optimum only if no network beats it; a seed whose smoothed
        # normalised margin exceeds it shows it is not (margin_certified), so the target (1+alpha)/4<w*,x> is then no
        # global-max-margin direction and seeds are not judged against it (the global max margin cor4.4 is about is
        # not known here), at any horizon. When no seed exceeds it, off Asm 4.1 Thm 4.2's value is still only a lower
        # bound on the global maximum: the seeds are judged against it below as on symmetric data.
        above = margin_certified(runs[0], X, y, al, (1 + al) / 4 * g_lin)
        if above.any():
            g_max = max(float(np.nanmax(smoothed_normalized_margin(runs[0].W[j][runs[0].reached[j]],
                                                                   runs[0].a[j][runs[0].reached[j]], X, y, al)))
                        for j in range(len(H)) if runs[0].reached[j].any()) / ((1 + al) / 4 * g_lin)
            ev.record(seeds=B, seeds_above_thm42_margin=int(above.sum()), max_smoothed_margin_ratio=g_max)
            return ev.inconclusive(f"off Asm 4.1: {int(above.sum())} of {B} seeds reach a smoothed normalised margin "
                                   f"above (1+alpha)/4 gamma_lin (up to {g_max:.4f} times it), so Thm 4.2's value is not "
                                   "the global optimum on these data (the global max margin is not known): seeds are not "
                                   "judged against it")
    o, fd, rho = outcomes(runs, H)
    undecided_first = int(np.sum(o == -1))
    if undecided_first and fx.profile != "quick":     # longer horizons before any seed is left undecided
        H = H + [H[-1] * 4, H[-1] * 16]
        runs = extend_runs(fx, runs, H[-2:])
        o, fd, rho = outcomes(runs, H)
    ev.record(undecided_at_first_horizons=undecided_first, last_horizon=H[-1])
    final_rho = rho[-1]
    if fx.profile != "quick":
        # Seeds still undecided at 16x are escaping a saddle (margin ratio near 0.80 while the minority output
        # group's share of ||theta||^2 grows); they alone are continued to 64x and 256x that horizon. Thorough task
        # 0.1 (m = 3): 12 undecided at Q = 64000 (all with a good bbar); at Q = 1.024e6 7 of them have distance 0 and
        # 1 - ratio = 2.3e-6 (within 2 ln(n)/Q = 4.9e-6), 5 stay undecided (4 not there in 3M steps).
        o, undec16, cont, res = continue_undecided(fx, runs, H, o, outcomes, ev)
        if cont is not None:
            final_rho = np.where(undec16 & cont[0].reached[-1], res[2][-1], rho[-1])
    good = good_embedding(b)
    o = judge_proof_event(fx, W0, a0, good, o, p, H, lambda r, Hr: outcomes(r, Hr)[0], ev)
    succ, decided, undec = _seed_counts(o)
    judge_binomial("P(global-max-margin direction)", succ, decided, p, undecided=undec, confidence=0.99, evidence=ev,
                   covariate=(good[o >= 0], good[o == -1]), covariate_name="the proof's event (good bbar)")
    ev.record(successes=succ, decided=decided, undecided=undec, good_bbar=int(good_embedding(b).sum()),
              final_margin_ratio=final_rho)
    return ev


# ---------------------------------------------------------------------------------------------
# Sec. 4.3 in-text claim <mu, w_*> >= 1. The paper prints w_* (subscript), a symbol it never defines, right after
# Assumption 3.2 ("there exists w with y_i <w, x_i> >= 1"): read as such a separator the claim holds (each term is
# >= 1). Read as the unit max-margin separator w^* of Def 3.3 (superscript) it fails; that reading is the
# harness's, so it is registered as a derived statement, never an erratum.

MEAN_GE_MAX = "<mu, w_*> >= max_i y_i <w_*, x_i> (mean at least the max)"


def _separators(fx):
    """Separators meeting Asm 3.2 with min_i y_i <w, x_i> = 1 exactly: the SVM solution w*/gamma_lin and 20 random
    separators near it, each scaled to unit minimum margin."""
    X, y = fx["X"], fx["y"]
    w, g = svm(X, y)
    out = [w / g]
    for _ in range(20):
        v = w + 0.3 * fx.rng.normal(size=w.size)
        gv = float(np.min(y * (X @ v)))
        if gv > 0:
            out.append(v / gv)
    return out


@claim("lyu2021.obs.sec4.3.mu_wstar", **cat.declared("obs.sec4.3.mu_wstar"), kind="claim", title="Sec. 4.3: <mu, w_*> >= 1 for a separator of Asm 3.2",
       statement=r"$\langle\mu, w_*\rangle = \frac1n\sum_iy_iw_*^\top x_i \ge 1$, with $w_*$ a separator of Asm 3.2 "
                 r"($y_i\langle w_*, x_i\rangle \ge 1$ for all $i$; the paper prints $w_*$, not the unit $w^*$).",
       hypotheses=[separable], uses=["lyu2021.asm3.2"],
       fixtures=[random(sym_gauss), random(gen_gauss), adv(sym_collinear, label="nearly collinear data"),
                 adv(gen_gauss, gap=1e-4, label="margin near 0"), adv(sym_n2, label="n = 2"),
                 negative(gen_contradictory), negative(gen_gauss, mutation=MEAN_GE_MAX)],
       judged_by="exact evaluation at the SVM solution w*/gamma_lin and 20 random separators scaled to unit minimum "
                 "margin (relative 1e-12); extremes: margins near 0, nearly collinear data, n = 2")
def obs_mu_wstar(fx):
    ev = Evidence()
    if not holds(separable, fx):     # no separator exists: the conclusion is about an object that is not there
        ev.note("not linearly separable: no w_* to evaluate")
        return ev
    X, y = fx["X"], fx["y"]
    ws = _separators(fx)
    mean = np.array([float(fx["mu"] @ w) for w in ws])
    bound = np.array([float(np.max(y * (X @ w))) for w in ws]) if fx.mutated(MEAN_GE_MAX) else np.ones(len(ws))
    ev.forall("<mu, w_*> vs 1 over separators with min_i y_i <w_*, x_i> = 1", mean, bound, relation=">=", rtol=1e-12)
    return ev


@claim("lyu2021.obs.sec4.3.mu_wstar.unit", **cat.declared("obs.sec4.3.mu_wstar.unit"), kind="claim", title="Sec. 4.3 read with the unit separator w^* (derived)",
       statement=r"$\langle\mu, w^*\rangle \ge 1$ for the unit max-margin separator $w^*$ of Def 3.3.",
       derived="the printed w_* read as the unit max-margin separator w^* (Def 3.3), a different symbol: with "
               "||w^*|| = 1 and ||x_i|| <= 1 every term y_i <w^*, x_i> is <= 1, so the mean is < 1 unless every point "
               "lies on the margin at distance 1; what holds is <mu, w^*> >= gamma_lin > 0",
       hypotheses=[separable, unit_data], uses=["lyu2021.def3.3", "lyu2021.obs.sec4.3.mu_wstar"],
       fixtures=[random(sym_gauss), random(gen_gauss), adv(sym_collinear), negative(gen_contradictory),
                 negative(gen_gauss, mutation="<mu, w^*> >= 2")],
       expected="refuted", expected_reason="the unit w^* gives <mu, w^*> <= max_i ||x_i|| = 1 (measured 0.2..0.6)",
       judged_by="exact evaluation (relative 1e-12)")
def obs_mu_wstar_unit(fx):
    ev = Evidence()
    if not holds(separable, fx):     # no separator exists: the conclusion is about an object that is not there
        ev.note("not linearly separable: no w^* to evaluate")
        return ev
    w, _ = svm(fx["X"], fx["y"])
    ev.ge("<mu, w^*>", float(fx["mu"] @ w), 2.0 if fx.mutated() else 1.0, rtol=1e-12)
    return ev
