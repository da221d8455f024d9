"""Sections 3-4 of Lyu et al. (2021): Theorem 3.1 (imported), Theorem 4.2 (global-max-margin nets on
symmetric data are linear) through its sub-checks, Theorem 4.3 and Corollary 4.4 (small-init GF)."""

from __future__ import annotations

import numpy as np

from fixtures.lyu2021 import (
    gen_allpos_sv,
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
    judge_binomial,
    judge_trend,
    negative,
    not_checkable,
    random,
)
from verify import adversarial as adv
from verify.numerics.global_margin import global_margin_oracle
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
from .dynamics import flow_margin_horizons, gd_until_margin, inconclusive_on_stall, ngd_horizons
from .hyps import asm45, holds, separable, symmetric, width2
from .search import ascend_margin

# ---------------------------------------------------------------------------------------------
# Theorem 3.1 (imported; checked as a trend along margin horizons)


@family("lyu.start")
def start_family(rng, base="sym", d=3, n=12, alpha=0.5, m=4, start="pretrained", init_scale=1e-2):
    """Data (``base`` = sym | gen) plus a start theta0 with L(theta0) < ln2/n (``start`` = pretrained: GD
    from an init of scale ``init_scale`` until q_min >= 3.5),
    theta0 = 0 (``zero``) or a start with negative margins (``negative``)."""
    fam = sym_gauss if base == "sym" else gen_gauss
    fx = fam.build(rng, d=d, alpha=alpha, m=m, **({"n_half": n // 2} if base == "sym" else {"n": n}))
    W0 = init_scale * rng.normal(size=(1, m, d))
    a0 = init_scale * rng.normal(size=(1, m))
    if start == "pretrained":
        W0, a0, _ = gd_until_margin(W0, a0, fx["X"], fx["y"], alpha, eta=0.1, q_target=3.5)
    elif start == "zero":
        W0, a0 = np.zeros_like(W0), np.zeros_like(a0)
    else:
        W0, a0, _ = gd_until_margin(W0, a0, fx["X"], fx["y"], alpha, eta=0.1, q_target=3.5)
        a0 = -a0
    fx.update(W0=W0[0], a0=a0[0])
    return fx


def _small_loss(fx):
    ll = float(log_loss(margins(fx["W0"], fx["a0"], fx["X"], fx["y"], fx["alpha"])))
    thr = np.log(np.log(2) / len(fx["y"]))
    return ll < thr, thr - ll, f"log L(theta0) = {ll:.4f} vs log(ln2/n) = {thr:.4f}"


small_loss = hypothesis("L(theta(0)) < ln2/n", _small_loss)


@claim("lyu2021.thm3.1", **cat.item("thm3.1"), hypotheses=[small_loss],
       fixtures=[random(start_family, base="gen"), adv(start_family, base="sym"), adv(start_family, base="gen", m=8),
                 negative(start_family, start="zero"), negative(start_family, start="negative")],
       judged_by="accurate gradient flow (integrate_flow, Filippov sliding, margin-shifted log-time segments) to margin "
                 "horizons Q: loss and norm monotone across horizons; KKT residual of Def B.8 (LP, recomputed, points "
                 "within 5% of q_min active) judged by judge_trend with tolerance 5e-2")
@inconclusive_on_stall
def thm3_1(fx):
    """Late phase by the accurate flow, not normalised GD: neurons slide along activation boundaries here, and
    normalised GD chatters across them at relative distance 1e-4..3e-3, so the kink test (tau_kink 1e-6) of the
    KKT LP misses those pairs (measured: r_KKT 0.17, 0.23, 0.22, 0.47 along Q = 100..6400 by normalised GD vs
    0.079, 0.065, 0.050, 0.0099 by the accurate flow on the same start, gen.gauss m = 4)."""
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if not holds(small_loss, fx):
        ev.note("hypothesis unmet: not run")
        return ev
    H = [100, 400, 1600] if fx.profile == "quick" else [100, 400, 1600, 6400]
    run = flow_margin_horizons(fx["W0"], fx["a0"], X, y, al, H)
    Ws, As = run.W, run.a
    ll = np.array([float(log_loss(margins(Ws[j], As[j], X, y, al))) for j in range(len(H))])
    nrm = np.sqrt(parameter_norm_sq(Ws, As))
    ev.true("log L decreasing along the horizons", bool(np.all(np.diff(ll) < 0)), detail=str(np.round(ll, 3)))
    ev.true("||theta|| increasing along the horizons", bool(np.all(np.diff(nrm) > 0)), detail=str(np.round(nrm, 3)))
    ev.le("integrator error estimate (relative, rtol/10 rerun)", run.error, 1e-6)
    # (eps, delta)-KKT in Lyu & Li's sense: points within 5% of q_min count as active (relative slack).
    r = np.array([two_layer_kkt_residual(Ws[j], As[j], X, y, alpha=al, tau_act=0.05, tau_kink=1e-6).r_kkt
                  for j in range(len(H))])
    judge_trend("KKT residual r_KKT", H, r, 5e-2, evidence=ev, scale_label="margin horizon")
    ev.record(log_loss=ll, norm=nrm, gamma=normalized_margin(Ws, As, X, y, al), q_min_at_snapshots=run.q,
              sliding_episodes=run.sliding, segments=run.segments)
    return ev


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


@claim("lyu2021.thm4.2.sym_identity", kind="lemma", title="Theorem 4.2, proof step (symmetrisation)",
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


@claim("lyu2021.thm4.2.upper_bound", kind="lemma", title="Theorem 4.2 (upper bound on the margin)",
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


@claim("lyu2021.thm4.2.attained", kind="lemma", title="Theorem 4.2 (the bound is attained by the linear net)",
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


@claim("lyu2021.thm4.2.oracle", kind="lemma", title="Theorem 4.2 (exact global max margin, d = 2)",
       statement=r"On symmetric separable data the global max normalised margin over all widths equals "
                 r"$\frac{1+\alpha}{4}\gamma_{lin}$.",
       hypotheses=[separable, symmetric], uses=["lyu2021.thm4.2.upper_bound", "lyu2021.thm4.2.attained"],
       fixtures=[random(sym_gauss, d=2, n_half=6), random(sym_gauss, d=2, n_half=10, alpha=0.1),
                 adv(sym_fig1left), adv(sym_fig1left, alpha=0.9), adv(sym_gauss, d=2, gap=1e-3, alpha=0.999),
                 negative(gen_allpos_sv), negative(sym_gauss, d=2, mutation="constant (1+alpha)/2")],
       judged_by="SOCP over the cells of the 2-D arrangement (CLARABEL), witness margin recomputed; rtol 1e-6")
def thm4_2_oracle(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    _, g_lin = svm(X, y)
    res = global_margin_oracle(X, y, al)
    if res.status != "optimal":
        return ev.inconclusive(f"SOCP status {res.status}")
    C = (1 + al) / (2 if fx.mutated() else 4)
    ev.close("oracle global max margin", res.gamma, C * g_lin, rtol=1e-6)
    ev.le("witness network margin (certified lower bound)", res.gamma_witness, (1 + al) / 4 * g_lin, rtol=1e-9)
    ev.record(oracle=res.gamma, witness=res.gamma_witness, bound=(1 + al) / 4 * g_lin)
    return ev


def _structure_width_ok(fx):
    return fx["m"] >= 2, float(fx["m"] - 2), f"m = {fx['m']}"


@claim("lyu2021.thm4.2.structure", kind="lemma", title="Theorem 4.2 (near-maximisers are linear)",
       statement=r"Local ascent of the normalised margin from random starts (width $m \ge 2$) never exceeds "
                 r"$\frac{1+\alpha}{4}\gamma_{lin}$, and endpoints within $10^{-3}$ of it compute "
                 r"$\frac{1+\alpha}{4}\langle w^*, x\rangle$ (to $10^{-2}$ on probes).",
       hypotheses=[separable, symmetric, width2], uses=["lyu2021.thm4.2.upper_bound"],
       fixtures=[random(sym_gauss, m=4), adv(sym_fig1left, m=6), negative(sym_gauss, m=1),
                 negative(sym_gauss, m=4, mutation="maximiser is (1/2)phi(<w*,x>)")],
       judged_by="L-BFGS on the softmin margin (beta 100, 1000); exact margins and function distances of the endpoints")
def thm4_2_structure(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if fx["m"] < 2:
        ev.note("width hypothesis unmet: not run")
        return ev
    w_star, g_lin = svm(X, y)
    bound = (1 + al) / 4 * g_lin
    n_starts = 4 if fx.profile == "quick" else 12
    P = probes(fx.rng, X, 500)
    if fx.mutated():
        def target(Z):
            return 0.5 * np.maximum(Z @ w_star, al * (Z @ w_star))
    else:
        def target(Z):
            return (1 + al) / 4 * Z @ w_star
    ratios, dists = [], []
    for _ in range(n_starts):
        m = int(fx.rng.integers(2, fx["m"] + 1))
        th0 = fx.rng.normal(size=m * X.shape[1] + m)
        W, a = ascend_margin(th0, X, y, al, m)
        ratios.append(float(normalized_margin(W, a, X, y, al)) / bound)
        dists.append(float(unit_function_distance(W, a, P, al, target)))
    ratios, dists = np.array(ratios), np.array(dists)
    ev.le("max margin ratio over endpoints", ratios.max(), 1.0, rtol=1e-12)
    near = ratios >= 1 - 1e-3
    ev.record(ratios=ratios, function_distances=dists)
    if not near.any():
        return ev.inconclusive(f"no endpoint within 1e-3 of the bound (best ratio {ratios.max():.5f})")
    ev.le("max function distance among near-optimal endpoints", dists[near].max(), 1e-2, rtol=0.0)
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


def minority_share(W, a):
    """Share of ||theta||^2 carried by the neurons whose output sign is the less massive one (batched (B, m, d))."""
    mass = np.sum(W ** 2, axis=-1) + a ** 2
    pos = np.sum(np.where(a > 0, mass, 0.0), axis=-1)
    neg = np.sum(np.where(a < 0, mass, 0.0), axis=-1)
    return np.minimum(pos, neg) / (pos + neg)


def classify(fd, fd_alt, reached, tol, share=None):
    """Per-seed outcome along horizons: 1 success (distance to the target <= tol and shrinking, or already
    <= tol/10); 0 failure (distance no longer decreasing by 1% per horizon and either within tol of an
    alternative limit or above 3 tol, while the minority output-sign group is not gaining mass); -1 undecided."""
    out = np.full(fd.shape[1], -1)
    for b in range(fd.shape[1]):
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


def _outcomes(fx, runs, target, C):
    """Classify every seed: target vs the one-sided limits +-(1/2)phi(+-<w*, x>) of the failure event. The
    tolerance is min(3e-2, a quarter of the distance between the target and the alternatives on the probes)."""
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
        res.append((classify(fd, fd_alt, run.reached, tol, share), fd, rho))
    return res


@claim("lyu2021.thm4.3", **cat.item("thm4.3"), hypotheses=[separable, symmetric, asm45, width2],
       fixtures=[random(sym_gauss, m=2), random(sym_gauss, m=3, d=5, n_half=8, alpha=0.25),
                 adv(sym_gauss, m=4, c_a=2.0), adv(sym_collinear, m=2), adv(sym_gauss, m=3, alpha=0.9),
                 negative(sym_gauss, m=2, mutation="bad bbar (conditioned on the failure event)"),
                 negative(sym_gauss, m=2, mutation="constant C = (1+alpha)/2"), negative(gen_allpos_sv, m=2)],
       judged_by="per seed: GD to q_min >= 1 then normalised GD to margin horizons; success iff the function distance to "
                 "C<w*,x> is <= tol and shrinking, failure iff the distance settles above 3 tol or within tol of a one-sided limit "
                 "+-(1/2)phi(+-<w*,x>), tol = min(3e-2, a quarter of the target-alternative separation); Clopper-Pearson (99%) over the seeds "
                 "(undecided seeds counted as successes, so only a clear deficit refutes) vs 1 - 2^-(m-1); per-seed prediction "
                 "success <=> bbar good, on seeds decided alike at two init scales",
       timeout_s=600)
def thm4_3(fx):
    ev = Evidence()
    if not (holds(symmetric, fx) and holds(width2, fx)):
        ev.note("hypotheses unmet: not run")
        return ev
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    w_star, _ = svm(X, y)
    quick = fx.profile == "quick"
    B = 12 if quick else 32
    sig = fx["sigma"]
    sigmas = [sig, sig * 1e-2]
    H = [100, 400, 1600] if quick else [250, 1000, 4000]
    bad = fx.mutated("bad bbar (conditioned on the failure event)")
    C = (1 + al) / (2 if fx.mutated("constant C = (1+alpha)/2") else 4)
    _, _, b, runs = small_init_runs(fx, B, sigmas, H, bad_b=bad)
    outs = _outcomes(fx, runs, lambda Z: C * Z @ w_star, C)
    (o1, fd1, rho1), (o2, _, _) = outs
    good = good_embedding(b)
    stable = (o1 == o2) & (o2 >= 0)
    succ = int(np.sum(o2 == 1))
    undec = int(np.sum(o2 == -1))
    judge_binomial("P(f_inf = C<w*,x>)", succ + undec, B, 1 - 2.0 ** (-(m - 1)), confidence=0.99, evidence=ev)
    mism = int(np.sum(stable & ((o2 == 1) != good)))
    ev.le("seeds whose outcome contradicts the bbar prediction", mism, 0, atol=0,
          detail=f"{int(stable.sum())} seeds decided alike at sigma = {sigmas}")
    fail_rho = rho1[-1][o2 == 0]
    ev.record(successes=succ, undecided=undec, good_bbar=int(good.sum()), seeds=B,
              failure_margin_ratios=fail_rho, predicted_failure_ratio=2 * al / (1 + al),
              success_function_distance=fd1[-1][o2 == 1], sigma_disagreements=int(np.sum((o1 != o2) & (o1 >= 0) & (o2 >= 0))))
    ev.add_series("margin ratio gamma / ((1+alpha)/4 gamma_lin) per seed (larger sigma)", H,
                  {f"seed {k} ({'good' if good[k] else 'bad'} bbar)": rho1[:, k] for k in range(min(B, 6))},
                  xlabel="margin horizon Q", logx=True)
    return ev


@claim("lyu2021.cor4.4", **cat.item("cor4.4"), hypotheses=[separable, symmetric, asm45, width2],
       fixtures=[random(sym_gauss, m=3), adv(sym_gauss, m=5, d=2), negative(sym_gauss, m=3, mutation="bad bbar"),
                 negative(sym_broken, m=3)],
       judged_by="as thm4.3, and a success must also have normalised margin >= (1 - 2 ln(n)/Q) times the exact global "
                 "optimum (1+alpha)/4 gamma_lin (Thm 4.2) at the last horizon Q; Clopper-Pearson (99%) vs 1 - 2^-(m-1)",
       timeout_s=600)
def cor4_4(fx):
    ev = Evidence()
    if not (holds(symmetric, fx) and holds(width2, fx)):
        ev.note("hypotheses unmet: not run")
        return ev
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    w_star, _ = svm(X, y)
    B = 10 if fx.profile == "quick" else 24
    H = [100, 400, 1600] if fx.profile == "quick" else [250, 1000, 4000]
    _, _, b, runs = small_init_runs(fx, B, [fx["sigma"]], H, bad_b=fx.mutated("bad bbar"))
    (o, fd, rho), = _outcomes(fx, runs, lambda Z: (1 + al) / 4 * Z @ w_star, (1 + al) / 4)
    near_max = rho[-1] >= 1 - 2 * np.log(len(y)) / H[-1]      # softmin smoothing costs up to ln(n)/Q
    o = np.where((o == 1) & ~near_max, -1, o)
    succ, undec = int(np.sum(o == 1)), int(np.sum(o == -1))
    judge_binomial("P(global-max-margin direction)", succ + undec, B, 1 - 2.0 ** (-(m - 1)), confidence=0.99, evidence=ev)
    ev.record(successes=succ, undecided=undec, good_bbar=int(good_embedding(b).sum()), final_margin_ratio=rho[-1])
    return ev


not_checkable("lyu2021.thm4.2", reason="checked through its sub-claims: the symmetrisation identity, the pointwise "
              "upper bound, attainment by the linear net, the exact 2-D global oracle and a local structure search",
              **{**cat.item("thm4.2"), "uses": cat.uses("thm4.2") + [
                  "lyu2021.thm4.2.sym_identity", "lyu2021.thm4.2.upper_bound", "lyu2021.thm4.2.attained",
                  "lyu2021.thm4.2.oracle", "lyu2021.thm4.2.structure"]})


# ---------------------------------------------------------------------------------------------
# Sec. 4.3 in-text claim <mu, w*> >= 1 (E4)


@claim("lyu2021.obs.sec4.3.mu_wstar", kind="claim", title="Sec. 4.3: <mu, w*> >= 1 (as printed)",
       statement=r"$\langle\mu, w^*\rangle = \frac1n\sum_iy_i{w^*}^\top x_i \ge 1$ (used to make $\pm\bar\mu$ well aligned).",
       hypotheses=[separable], uses=["lyu2021.def3.3", "lyu2021.asm3.2"],
       fixtures=[random(sym_gauss), random(gen_gauss), adv(sym_collinear), negative(sym_broken)], expected="refuted",
       expected_reason="E4: for unit w* and ||x_i|| <= 1 every term is <= 1, so <mu, w*> <= 1 with equality only in degenerate "
                       "cases; what holds is <mu, w*> >= gamma_lin > 0",
       judged_by="exact evaluation")
def obs_mu_wstar(fx):
    ev = Evidence()
    w, _ = svm(fx["X"], fx["y"])
    ev.ge("<mu, w*>", float(fx["mu"] @ w), 1.0, rtol=1e-12)
    return ev


@claim("lyu2021.obs.sec4.3.mu_wstar.amended", kind="claim", amends="lyu2021.obs.sec4.3.mu_wstar",
       title="Sec. 4.3 (amended): <mu, w*> >= gamma_lin > 0",
       statement=r"$\langle\mu, w^*\rangle \ge \gamma_{lin} = \min_iy_i\langle w^*, x_i\rangle > 0$.",
       hypotheses=[separable], uses=["lyu2021.def3.3", "lyu2021.asm3.2"],
       fixtures=[random(sym_gauss), random(gen_gauss), adv(sym_collinear), negative(gen_gauss, mutation="<mu, w*> >= max_i y_i <w*, x_i>")],
       judged_by="exact evaluation (relative 1e-12)")
def obs_mu_wstar_amended(fx):
    ev = Evidence()
    w, g = svm(fx["X"], fx["y"])
    bound = float(np.max(fx["y"] * (fx["X"] @ w))) if fx.mutated() else g
    ev.ge("<mu, w*> vs gamma_lin", float(fx["mu"] @ w), bound, rtol=1e-12)
    return ev
