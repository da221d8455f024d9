"""Reproductions of Figures 1 and 2 of Lyu et al. (2021) (App. I.1): three 2-D/3-D data sets where the
linear (or one-neuron) classifier has a suboptimal margin, and gradient descent from 0.001 x He
initialisation converges to it anyway. The paper gives no numbers; the targets are qualitative."""

from __future__ import annotations

import numpy as np

from fixtures.lyu2021 import asm_a2_slack, fig1left_data, fig1middle, fig1middle_data, hinted, with_reference
from verify import (
    Evidence,
    claim,
    clopper_pearson,
    erratum,
    family,
    integer,
    judge_binomial,
    judge_trend,
    negative,
    random,
    real,
)
from verify import adversarial as adv
from verify.numerics.nets import activation, forward, normalized_margin

from . import catalogue as cat
from .common import mu_pm, probes, svm, svm_plus, unit_function_distance
from .dynamics import flow_margin_horizons, gd_until_margin, ngd_horizons
from .hyps import separable
from .search import ascend_margin
from .sec4 import extend_runs
from .sec6 import seed_outcomes, theta_b


@family("lyu.fig1")
def fig1_panel(rng, panel="left", alpha=0.5, m=8):
    """The three data sets of Figure 1: ``left`` (App. I.1.1, symmetric), ``middle`` (after Shah et al.),
    ``right`` (hinted); all with max ||x|| = 1."""
    if panel == "left":
        X, y, beta = fig1left_data(alpha, scaled=True)
        fx = with_reference(X, y, beta=beta)
    elif panel == "middle":
        fx = fig1middle.build(rng, alpha=alpha)
    else:
        fx = hinted.build(rng, gap=0.7, n0=4, alpha=alpha)
    fx.update(alpha=alpha, m=m, panel=panel)
    return fx


def predicted_limit(fx):
    """The classifier the theory predicts: (1+alpha)/4 <w*, x> (left, Thm 4.3), (1/2) phi(<w+, x>) (middle, Thm A.7),
    (1/2) phi(<w*, x>) (right, Thm 6.2). Returns (target function, its normalised margin)."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    if fx["panel"] == "left":
        w, g = svm(X, y)
        return (lambda Z: (1 + al) / 4 * Z @ w), (1 + al) / 4 * g
    wp, gp = svm_plus(X, y, al)
    return (lambda Z: 0.5 * activation(Z @ wp, al)), gp / 2


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: the best margin found by GD: 1.0e-5 relative.
@claim("lyu2021.exp.fig1", **cat.declared("exp.fig1"), reproducible={"rtol": 1e-3, "atol": 1e-9}, kind="experiment", title="Figure 1: linear classifiers with suboptimal margins",
       statement=r"In each panel of Figure 1 ($\alpha = 1/2$) the classifier that gradient flow is predicted to reach "
                 r"(left: the linear max-margin classifier's KKT competitor; middle and right: $\frac12\phi(\langle w_+, x\rangle)$) "
                 r"has a smaller normalised margin than some other network.",
       uses=["lyu2021.ex.I1.1.leaky", "lyu2021.thm6.2.suboptimal", "lyu2021.thmA.7"],
       fixtures=[random(fig1_panel, panel="left"), random(fig1_panel, panel="middle"), random(fig1_panel, panel="right"),
                 negative(fig1_panel, panel="middle", mutation="claim no network beats gamma+/2")],
       judged_by="left: the App. I.1.1 KKT margin (scaled data) vs the exact global optimum; middle: margin ascent (L-BFGS, "
                 "4 starts, width 4) or the theta_b family along the second axis must find an exact margin above gamma+/2 (1e-3 "
                 "relative); right: the theta_b certificate")
def exp_fig1(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    panel = fx["panel"]
    if panel == "left":
        beta = fx["beta"]
        g_kkt = (1 + al) * np.cos(beta) / (2 * (1 + np.cos(beta))) * np.sin(beta)
        _, g = svm(X, y)
        ev.le("KKT (nonlinear boundary) margin vs global (1+alpha)/4 gamma_lin", g_kkt, (1 + al) / 4 * g * (1 - 1e-6), rtol=0.0)
        ev.record(gamma_kkt=g_kkt, gamma_global=(1 + al) / 4 * g)
        return ev
    _, g_pred = predicted_limit(fx)
    if panel == "middle":
        wp, _ = svm_plus(X, y, al)
        e2 = np.eye(X.shape[1])[1]
        perp = e2 - (e2 @ wp) * wp
        perp /= np.linalg.norm(perp)
    else:
        wp, perp = fx["w_star"], fx["w_perp"]
    bs = np.linspace(1e-4, 0.2, 400)
    best = max(float(normalized_margin(*theta_b(wp, perp, b), X, y, al)) for b in bs)
    if panel == "middle":
        for _ in range(4):
            th0 = fx.rng.normal(size=4 * X.shape[1] + 4)
            W, a = ascend_margin(th0, X, y, al, 4)
            best = max(best, float(normalized_margin(W, a, X, y, al)))
    ev.record(gamma_predicted_limit=g_pred, best_found=best)
    if fx.mutated():
        ev.le("best network found vs gamma+/2", best, g_pred, rtol=1e-9)
    else:
        # 1e-3 is the numerical threshold of 'a smaller margin than some other network', not a printed constant
        ev.ge("best network found / gamma+/2 - 1", best / g_pred - 1, 1e-3, rtol=0.0, room=None)
    return ev


@claim("lyu2021.exp.fig2", **cat.declared("exp.fig2"), kind="experiment", title="Figure 2: GD from small He initialisation converges to the linear classifier",
       statement=r"Gradient descent with a small learning rate from $0.001\times$ He initialisation on a two-layer Leaky ReLU "
                 r"net converges, on each data set of Figure 1, to the predicted linear-boundary classifier.",
       uses=["lyu2021.thm4.3", "lyu2021.thmA.7", "lyu2021.thm6.2", "lyu2021.exp.fig1"],
       fixtures=[random(fig1_panel, panel="left"), random(fig1_panel, panel="right", profiles=("standard", "thorough")),
                 random(fig1_panel, panel="left", alpha=0.25),
                 negative(fig1_panel, panel="left", mutation="target (1/2)phi(<w*, x>) (one-sided)")],
       judged_by="width m = 8, He init x 0.001 (w ~ N(0, 2/d), a ~ N(0, 2/m)), GD then normalised GD to margin horizons; "
                 "function distance to the predicted classifier <= 3e-2 at the last horizon (refuted only when above 0.1 and settled; "
                 "an undecided run is continued to 4x and 16x the last horizon first); "
                 "margin ratio recorded")
def exp_fig2(fx):
    return _fig2(fx)


@family("lyu.fig1middle.panel", space={"eps": real(0.06, 0.2), "eps_prime": real(2.0, 6.0),
                                       "c": real(0.01, 0.05), "n_pos": integer(60, 160), "n_neg": integer(1, 3),
                                       "alpha": real(0.3, 0.7)})
def middle_panel(rng, eps=0.1, eps_prime=3.0, c=0.05, n_pos=120, n_neg=1, alpha=0.5, m=8):
    """The middle panel of Figure 1 as App. I.1.2 describes it: positives (x >= eps, +-1, c), negatives (x <= -eps', 0, c),
    c < eps, eps/eps' << alpha, eps << 1 (the regime where the one-neuron classifier is suboptimal) and 'more data points
    from the positive class' (here enough for Asm A.3, ||mu+|| > ||mu-||, so that Thm A.7, not A.10, is the
    theorem that would apply)."""
    fx = fig1middle.build(rng, eps=eps, eps_prime=eps_prime, c=c, n_pos=n_pos, n_neg=n_neg, alpha=alpha, m=m)
    fx.update(panel="middle", m=m, family_params=dict(eps=eps, eps_prime=eps_prime, c=c, n_pos=n_pos, n_neg=n_neg))
    return fx


def middle_assumptions(X, y, alpha) -> dict:
    """Slacks of Asm A.2, A.3 (||mu+|| - ||mu-||) and A.8 (||mu-|| - ||mu+||) on the data."""
    mp, mm = mu_pm(X, y, alpha)
    d3 = float(np.linalg.norm(mp) - np.linalg.norm(mm))
    return {"A.2": asm_a2_slack(X, y, alpha), "A.3": d3, "A.8": -d3}


EPS_A2 = 0.5     # the smallest eps of the grid in lyu2021.exp.fig2.middle.assumptions meeting A.2 and A.3 (alpha 1/2)


MIDDLE_SEEDS = {"quick": 4, "standard": 16, "thorough": 32}   # quick: enough for pass / refuted / the power control
MIDDLE_H = [100, 400, 1600, 6400]
REVERSED = "target -(1/2)phi(-<w-, x>) (the reversed-case limit)"
EVERY_INIT = "every initialisation converges (no probability)"


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: function distances after long normalised GD: 4.3e-5 relative.
@claim("lyu2021.exp.fig2.middle", **cat.declared("exp.fig2.middle"), reproducible={"rtol": 1e-3, "atol": 1e-7},
       kind="experiment",
       title="Figure 2 (middle panel): GD converges to the one-neuron linear classifier",
       statement=r"On the middle data set of Figure 1 (after Shah et al.: positives $(A_\epsilon, \pm1, c)$, negatives "
                 r"$(-A_{\epsilon'}, 0, c)$, $c < \epsilon$, $\epsilon/\epsilon' \ll \alpha$, $\epsilon \ll 1$, more positives), "
                 r"GD from $0.001\times$ He initialisation converges to a linear classifier, "
                 r"$\frac12\phi(\langle w_+, x\rangle)$ (Thm A.7: with probability at least $1 - 2^{-m}$ over the "
                 r"initialisation).",
       uses=["lyu2021.thmA.7", "lyu2021.exp.fig2.middle.assumptions"],
       fixtures=[random(middle_panel), random(middle_panel, n_pos=60, eps_prime=5.0, label="60 positives, eps' = 5"),
                 negative(middle_panel, mutation=REVERSED),
                 adv(middle_panel, seed=739, eps=0.1, eps_prime=2.0, c=0.04, n_pos=60, n_neg=1, alpha=0.5,
                     label="hunted: a He init whose positive neurons start unbalanced (seed 739)"),
                 negative(middle_panel, seed=739, eps=0.1, eps_prime=2.0, c=0.04, n_pos=60, n_neg=1, alpha=0.5,
                          mutation=EVERY_INIT, label="hunted init (seed 739): every initialisation converges")],
       erratum=erratum(
           kind="experiment not reproduced", location="App. I.1.2-I.1.3 and Figure 2 (middle), full text l. 9220-9255",
           independence="another integrator",
           printed="In the middle subplot ... The data is distributed on (A_eps, 1) and (A_eps, -1) with label 1 and on "
                   "(-A_eps', 0) with label -1 ... we need to make c smaller than eps and eps/eps' << alpha ... take more data "
                   "points from the positive class, and then gradient flow will converge to the one-neuron max-margin "
                   "solution as predicted by Theorem A.7 ... In the three settings the neural nets actually converge to "
                   "linear classifiers.",
           reading="the construction as described, no coordinates being printed: eps = 0.1 (eps << 1, which the "
                   "paragraph needs for the suboptimality), eps' = 3 or 5, c = 0.05, alpha = 1/2, enough positives for "
                   "Asm A.3 (so the limit Thm A.7 would give is (1/2)phi(<w+, x>); A.8 fails, so Thm A.10's limit does not "
                   "apply); A.2 is recorded and fails on every such data set (lyu2021.exp.fig2.middle.assumptions): the "
                   "theorem's conclusion is tested as the experiment claims it, outside its hypotheses, and, as the "
                   "theorem it cites states it, with probability at least 1 - 2^-m over the initialisation (width m = 8)",
           second_method="another integrator: the first failing seed continued from its Q = 100 snapshot by the accurate "
                         "flow (region by region, Filippov sliding, error estimate 1.4e-8) instead of normalised GD ends "
                         "at margin ratio 2.35 with a nonlinear boundary (deviation 0.997) at Q = 1600 (quick task 0.0), "
                         "as normalised GD does (2.34); and the exact normalised margin of each seed's GD endpoint, "
                         "independent of the probes: about 2.3 "
                         "gamma+/2 on every seed the distance calls failed (0.99 on the 5 of 96 that reach the target), "
                         "while (1/2)phi(<w+, x>) has margin exactly gamma+/2 (and the smoothed normalised margin, a lower "
                         "bound on the limit's, only grows), so those endpoints cannot compute it; judged by the same "
                         "Clopper-Pearson bound. For the amended member: the hunted He init that fails "
                         "converges from Thm A.7's balanced initialisation (the same w_k, a_k = sign(a_k) ||w_k||; ratio "
                         "0.998); the check reruns every He seed that does not converge from that twin and records it",
           summary="on the described data with eps << 1 (A.3 holds, A.2 fails) GD from almost every init (91 of 96 "
                   "He inits over the six standard random fixtures) converges to a nonlinear classifier with 2.3x the "
                   "margin of (1/2)phi(<w+, x>), not to it: far below the 1 - 2^-8 that Thm A.7 would give; where A.2 and "
                   "A.3 hold (eps >= 0.5, where the one-neuron classifier is not suboptimal) GD reaches it with the "
                   "theorem's probability (thorough: 640 of 640 He inits over the 20 random fixtures, 31 of 32 on the "
                   "hunted member), though not from every init: a hunted 0.001 x He init (seed 739: its two "
                   "neurons with a_k > 0 start with a_k = 0.11 and 0.25 ||w_k||, unlike Thm A.7's balanced a_k = "
                   "+-||w_k||; both a_k cross zero, every a_k ends negative) settles at function distance 0.2495 and "
                   "margin 0.4998 gamma+/2, at distance 5e-4 from Thm A.10's reversed limit -(1/2)phi(-<w-, x>)",
           amended=r"On the middle family with $\epsilon = 0.5$ (the smallest $\epsilon$ meeting Asm A.2 and A.3 at "
                   r"$\alpha = 1/2$, lyu2021.exp.fig2.middle.assumptions), GD from $0.001\times$ He initialisation converges "
                   r"to $\frac12\phi(\langle w_+, x\rangle)$ with probability at least $1 - 2^{-m}$ over the "
                   r"initialisation.",
           amended_title="Figure 2 (middle panel), the harness's restatement (eps = 0.5)",
           difference="the harness's restatement, not the paper's experiment: eps = 0.5 (A.2 and A.3 hold) instead of eps "
                      "<< 1, where the one-neuron classifier is no longer suboptimal, so it no longer shows what the figure "
                      "is about (GD reaching a linear classifier whose margin is suboptimal), only Thm A.7's conclusion on "
                      "data inside its hypotheses; with Thm A.7's probability 1 - 2^-m over the initialisation, not for "
                      "every one (a hunted He init fails: lyu2021.exp.fig2.middle's seed-739 fixtures)"),
       judged_by="width m = 8; per fixture B seeds of 0.001 x He init (w ~ N(0, 2/d), a ~ N(0, 2/m); 4 quick, 16 standard, "
                 "32 thorough; the first is the init the former one-init check drew, so the hunted seed-739 init is in the "
                 "batch) "
                 "in one batched run: GD (eta 0.1) to q_min >= 1 then normalised GD to margin horizons {100, 400, 1600, "
                 "6400}; per seed success iff the function distance to (1/2)phi(<w+, x>) on probes is <= 3e-2 and not "
                 "growing (or <= 3e-3), failure iff it settles (within 10% over the last horizon step) above 0.1, else "
                 "undecided and continued alone to 4x and 16x the last horizon; Clopper-Pearson (99%) vs 1 - 2^-m, "
                 "undecided seeds counted neither way. The figure's 'linear classifiers', judged alike: the endpoint's "
                 "decision boundary on the data region (bisection on every positive-negative segment) vs its best plane "
                 "through 0, linear when the worst sine <= 0.05, nonlinear when >= 0.2. Second method, judged alike: the "
                 "exact margin ratio "
                 "gamma/(gamma+/2) of each endpoint, success within 5% of 1, failure above 1.05 / (1 - ln n / Q) (the "
                 "smoothed margin only grows) or below 0.95 and settled (1%). Power: 'every initialisation converges' "
                 "(probability 1) on the hunted fixture must be refuted. Recorded, not judged: Asm A.2, A.3, A.8 on the "
                 "data; per seed the positive-output neurons at init and at the end (the proof's event: some a_k ends "
                 "positive) and their balance a_k/||w_k||; every He seed that does not converge rerun from its Thm A.7 "
                 "balanced twin (same w_k, a_k = sign(a_k) ||w_k||), and its endpoint's distance to -(1/2)phi(-<w-, x>) (outside quick). "
                 "Amended: the family member with eps = 0.5 built by the check")
def exp_fig2_middle(fx):
    if fx.amended:     # the family member meeting A.2 and A.3 (same seed, eps raised, eps' 20 eps as in the grid)
        p = dict(fx["family_params"])
        p.update(eps=EPS_A2, eps_prime=20 * EPS_A2, c=min(p["c"], EPS_A2 / 5))
        data = middle_panel.build(np.random.default_rng(fx.seed), **p, alpha=fx["alpha"], m=fx["m"])
        fx.data.update({k: data[k] for k in ("X", "y", "w_star", "gamma_lin", "mu", "w_plus", "gamma_plus")})
    ev = _fig2_middle_seeds(fx)
    ev.record(**{f"{k} slack": v for k, v in middle_assumptions(fx["X"], fx["y"], fx["alpha"]).items()})
    return ev


def he_inits(rng, B, m, d):
    """B draws of 0.001 x He initialisation (w ~ N(0, 2/d), a ~ N(0, 2/m)), batched (B, m, d), (B, m). The first
    is the single draw a one-init check takes from the same generator (W first, then a), so a pinned fixture keeps
    its init as seed 0 of the batch; the others follow."""
    Z0, z0 = rng.normal(size=(1, m, d)), rng.normal(size=(1, m))
    Z = np.concatenate([Z0, rng.normal(size=(B - 1, m, d))])
    z = np.concatenate([z0, rng.normal(size=(B - 1, m))])
    return 1e-3 * Z * np.sqrt(2 / d), 1e-3 * z * np.sqrt(2 / m)


LINEAR_TOL = 0.05       # sine of the worst boundary point's angle to the fitted plane: a line up to rounding vs a V
NONLINEAR_TOL = 0.2


def boundary_deviation(W, a, X, u, alpha, rng, pairs=40) -> float:
    """How far the decision boundary of f_theta over the data region is from a hyperplane through 0 (f is positively
    1-homogeneous in x, so its boundary is a cone through 0 and a linear classifier's is a plane through 0). Boundary
    points are found by bisection (60 steps) along lines z + t u, u the separating direction, z on 11 points of the
    segment between the projections (orthogonal to u) of ``pairs`` random pairs of data points, t over the data's range
    of <x, u> widened by half of it; normalised, they are fitted by the best plane through 0 (smallest singular vector
    v): the largest |<v, b>|. A V-shaped boundary x1 = -0.008 - 0.88|x2| on the middle panel gives about 0.3. NaN when
    fewer than d boundary points are found."""
    t_x = X @ u
    span = t_x.max() - t_x.min()
    t_lo, t_hi = t_x.min() - span / 2, t_x.max() + span / 2
    Z = X - np.outer(t_x, u)
    i, j = rng.integers(len(X), size=pairs), rng.integers(len(X), size=pairs)
    s = np.linspace(0, 1, 11)
    z = ((1 - s)[None, :, None] * Z[i][:, None] + s[None, :, None] * Z[j][:, None]).reshape(-1, X.shape[1])
    f_lo, f_hi = forward(W, a, z + t_lo * u, alpha), forward(W, a, z + t_hi * u, alpha)
    z = z[np.sign(f_lo) != np.sign(f_hi)]
    up = (f_hi > 0)[np.sign(f_lo) != np.sign(f_hi)]
    if len(z) < X.shape[1]:
        return float("nan")
    lo, hi = np.full(len(z), t_lo), np.full(len(z), t_hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        above = (forward(W, a, z + mid[:, None] * u, alpha) > 0) == up
        lo, hi = np.where(above, lo, mid), np.where(above, mid, hi)
    b = z + ((lo + hi) / 2)[:, None] * u
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    v = np.linalg.svd(b, full_matrices=False)[2][-1]
    return float(np.max(np.abs(b @ v)))


def margin_outcomes(ratios, horizons, n, tol=0.05):
    """Per seed from the exact margin ratios gamma/(gamma+/2) along the horizons (rows; NaN where not reached):
    1 within ``tol`` of 1 at the last reached horizon Q; 0 when the limit's ratio is certainly above 1 + tol (the
    smoothed normalised margin, >= (1 - ln n / Q) gamma, only grows) or when the ratio is below 1 - tol and settled
    (within 1% over the last horizon step); -1 undecided (fewer than two horizons reached, or still moving)."""
    out = np.full(ratios.shape[1], -1)
    for b in range(ratios.shape[1]):
        j = np.flatnonzero(np.isfinite(ratios[:, b]))
        if j.size < 2:
            continue
        r, r0, Q = ratios[j[-1], b], ratios[j[-2], b], horizons[j[-1]]
        if abs(r - 1) <= tol:
            out[b] = 1
        elif r * (1 - np.log(n) / Q) > 1 + tol or (r < 1 - tol and abs(r - r0) <= 0.01 * r0):
            out[b] = 0
    return out


def _middle_runs(fx, W0, a0, P, target):
    """One batched run of exp.fig2.middle's dynamics from (W0, a0): GD (eta 0.1) to q_min >= 1, normalised GD to
    MIDDLE_H; per-seed outcomes (sec6.seed_outcomes, failures above 0.1), the undecided seeds alone continued to 4x
    and 16x the last horizon. Returns (outcomes, distances (horizon, seed), the run, its horizons, each seed's last
    reached horizon index, the number of continued seeds)."""
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    W, a, _ = gd_until_margin(W0, a0, X, y, al, eta=0.1, q_target=1.0, max_steps=200_000)
    run = ngd_horizons(W, a, X, y, al, MIDDLE_H, eta=1e-2, max_steps=200_000)

    def distances(r):
        return np.array([unit_function_distance(r.W[j], r.a[j], P, al, target) for j in range(len(r.horizons))])

    fd = distances(run)
    o = seed_outcomes(run, fd, fail_above=0.1)
    undec = (o == -1) & run.reached[-1]
    H = list(MIDDLE_H)
    if undec.any():
        more = [H[-1] * 4, H[-1] * 16]
        run = extend_runs(fx, [run], more, only=undec, max_steps=800_000, eta=1e-2, q_ref=None)[0]
        H += more
        fd = distances(run)
        o = np.where(undec, seed_outcomes(run, fd, fail_above=0.1), o)
    fin = np.isfinite(fd)
    last = np.array([np.flatnonzero(fin[:, b])[-1] if fin[:, b].any() else 0 for b in range(fd.shape[1])])
    return o, fd, run, H, last, int(undec.sum())


def _fig2_middle_seeds(fx):
    """The per-seed check of lyu2021.exp.fig2.middle (its judged_by)."""
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    n, d = X.shape
    B = MIDDLE_SEEDS[fx.profile]
    target, g_pred = predicted_limit(fx)
    reversed_target = _reversed_target(fx)
    if fx.mutated(REVERSED):
        target = reversed_target
    p = 1.0 if fx.mutated(EVERY_INIT) else 1 - 2.0 ** (-m)
    W0, a0 = he_inits(fx.rng, B, m, d)
    P = probes(fx.rng, X, 1000)
    o, fd, run, H, last, n_cont = _middle_runs(fx, W0, a0, P, target)
    if n_cont:
        ev.record(continued_seeds=n_cont, continued_to=H[-1])
    ratios = np.array([normalized_margin(run.W[j], run.a[j], X, y, al) for j in range(len(H))]) / g_pred
    seeds = np.arange(B)
    succ, decided, undecided = int(np.sum(o == 1)), int(np.sum(o >= 0)), int(np.sum(o == -1))
    judge_binomial("P(f_inf = target)", succ, decided, p, undecided=undecided, confidence=0.99, evidence=ev)
    if not fx.mutated(REVERSED):
        # exact, probe-free: (1/2)phi(<w+, x>) has normalised margin exactly gamma+/2
        om = margin_outcomes(ratios, np.asarray(H, float), n)
        ms, md, mu = int(np.sum(om == 1)), int(np.sum(om >= 0)), int(np.sum(om == -1))
        lo_w, hi_w = clopper_pearson(ms, md + mu, 0.99)
        _, hi_b = clopper_pearson(ms + mu, md + mu, 0.99)
        detail = f"{ms}/{md} decided" + (f", {mu} undecided" if mu else "") + f", 99% CI [{lo_w:.4f}, {hi_b:.4f}]"
        if md + mu and (hi_w >= p) == (hi_b >= p):
            ev.ge("P(endpoint margin = gamma+/2): CI upper bound vs claimed probability (exact margins)", hi_w, p,
                  rtol=0.0, independent=True, detail=detail, room=None)
        else:
            ev.note(f"exact-margin second method not decided: {detail}")
        ev.record(margin_outcomes=om, margin_successes=ms, margin_decided=md, margin_undecided=mu)
    # The figure's own words: the nets 'converge to linear classifiers'. Per seed the endpoint's decision boundary on
    # the data region vs a plane through 0: linear within LINEAR_TOL, nonlinear beyond NONLINEAR_TOL (a V-shaped
    # boundary x1 = u - v|x2|), undecided between; judged like the limit, with the theorem's probability.
    wp, _ = svm_plus(X, y, al)
    brng = np.random.default_rng([fx.seed, 2])
    dev = np.array([boundary_deviation(run.W[last[b], b], run.a[last[b], b], X, wp, al, brng) for b in seeds])
    lin = np.where(dev <= LINEAR_TOL, 1, np.where(dev >= NONLINEAR_TOL, 0, -1))
    if not fx.mutated(REVERSED):
        judge_binomial("P(linear decision boundary)", int(np.sum(lin == 1)), int(np.sum(lin >= 0)), p,
                       undecided=int(np.sum(lin == -1)), confidence=0.99, evidence=ev)
    ev.record(boundary_deviation=dev, linear_boundaries=int(np.sum(lin == 1)))
    failed = np.flatnonzero(o == 0)
    if failed.size and not fx.amended and not fx.mutated():
        # the erratum's second method, another integrator: the first failing seed continued from its Q = 100 snapshot
        # by the accurate flow (region by region, Filippov sliding) instead of normalised GD
        b0 = int(failed[0])
        fr = flow_margin_horizons(run.W[0, b0], run.a[0, b0], X, y, al, [400, 1600])
        ev.accuracy("accurate-flow error estimate (relative, rtol/10 rerun)", fr.error, 1e-6)
        r_flow = float(normalized_margin(fr.W[-1], fr.a[-1], X, y, al)) / g_pred
        ev.le(f"another integrator: margin ratio gamma/(gamma+/2) of failing seed {b0} at Q = 1600 (the target's is 1)",
              r_flow, 1.05, rtol=0.0, room=None)
        ev.record(accurate_flow_seed=b0, accurate_flow_margin_ratio=r_flow,
                  accurate_flow_boundary_deviation=boundary_deviation(fr.W[-1], fr.a[-1], X, wp, al, brng))
    pos0, pos_end = np.sum(a0 > 0, axis=1), np.sum(run.a[last, seeds] > 0, axis=1)
    w_norm = np.linalg.norm(W0, axis=-1)
    ev.record(outcomes=o, successes=succ, decided=decided, undecided=undecided, seeds=B,
              function_distance_last=fd[last, seeds], margin_ratio=ratios[last, seeds],
              positive_neurons_at_init=pos0, positive_neurons_at_end=pos_end,
              proof_event_mismatches=int(np.sum((o >= 0) & ((o == 1) != (pos_end > 0)))),
              positive_neuron_balance_at_init=np.max(np.where(a0 > 0, a0 / w_norm, 0.0), axis=1))
    missed = np.flatnonzero(o != 1)
    if missed.size and not fx.mutated(REVERSED) and fx.profile != "quick":   # a diagnosis, outside quick
        # the seeds that did not converge, rerun from Thm A.7's balanced twin of their init (same w_k, a_k =
        # sign(a_k) ||w_k||): does the failure come from He init's imbalance?
        a_bal = np.where(a0[missed] > 0, 1.0, -1.0) * w_norm[missed]
        ob, fdb, runb, Hb, lastb, _ = _middle_runs(fx, W0[missed], a_bal, P, target)
        k = np.arange(missed.size)
        rb = normalized_margin(runb.W[lastb, k], runb.a[lastb, k], X, y, al) / g_pred
        ev.record(balanced_twin_seeds=missed, balanced_twin_outcomes=ob, balanced_twin_margin_ratio=rb,
                  missed_seed_distance_to_reversed_limit=unit_function_distance(
                      run.W[last[missed], missed], run.a[last[missed], missed], P, al, reversed_target))
    k0 = len(MIDDLE_H)       # the horizons of the common run (continued seeds have two more)
    ev.add_series("function distance to the target (first He seeds)", MIDDLE_H,
                  {f"seed {k}": fd[:k0, k] for k in range(min(B, 4))}, xlabel="margin horizon", logx=True, logy=True)
    return ev


def _reversed_target(fx):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    wm, _ = svm(np.where(y[:, None] > 0, al * X, X), y)
    return lambda Z: -0.5 * activation(-(Z @ wm), al)


@claim("lyu2021.exp.fig2.middle.assumptions", **cat.declared("exp.fig2.middle.assumptions"), kind="claim",
       title="Figure 1 (middle): the described data meet Asm A.2 and A.3 with eps << 1 (derived)",
       statement=r"Some member of the middle-panel family with $\epsilon \le 0.3$, $c < \epsilon$, $\epsilon/\epsilon' \le "
                 r"\alpha/10$ and any numbers of points meets Asm A.2 and A.3 together.",
       derived="the harness's reading of App. I.1.2 ('To apply Theorem A.7 on this dataset, we need to make c smaller than "
               "eps and eps/eps' << alpha ... take more data points from the positive class'), which names necessary "
               "conditions, together with 'This solution cannot be global max-margin when eps << 1': that the panel's "
               "data can lie inside Thm A.7's hypotheses",
       uses=["lyu2021.asmA.2", "lyu2021.asmA.3"],
       fixtures=[random(middle_panel, label="grid around the panel"), random(middle_panel, alpha=0.3, label="alpha = 0.3"),
                 negative(middle_panel, mutation="eps <= 0.6 (a range that includes the A.2 threshold)",
                          expect={"pass"}, label="a range reaching eps = 0.5: the check finds members (power)")],
       expected="refuted",
       expected_reason="A.2 at the positive point (x, 1, c) against the positives (x', -1, c) (inner product x x' - 1 + c^2 < 0) "
                       "needs eps of order sqrt((1 - alpha)/(4 alpha)): on the grid no member with eps <= 0.3 meets A.2 and "
                       "A.3; the smallest eps that does is 0.5 (alpha = 1/2), where margin ascent finds no network beating "
                       "gamma+/2 (the one-neuron classifier is then not suboptimal)",
       judged_by="exhaustive grid eps in {0.02, ..., 0.5}, eps' with eps/eps' <= alpha/10, c < eps in {0.001, 0.01, 0.05}, "
                 "n_pos in {2, ..., 120}, n_neg in {1, 3}: exact A.2 and A.3 slacks; the quantifier 'some member' is "
                 "refuted when none of the members with eps <= 0.3 meets both; the smallest eps that does is recorded")
def exp_fig2_middle_assumptions(fx):
    ev = Evidence()
    al = fx["alpha"]
    eps_max = 0.6 if fx.mutated() else 0.3
    found, smallest = [], np.inf
    for eps in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.6):
        for ratio in (10, 30, 100):
            epsp = ratio * eps / al
            for c in (0.001, 0.01, 0.05):
                if c >= eps:
                    continue
                for n_pos in (2, 6, 12, 30, 60, 120):
                    for n_neg in (1, 3):
                        Xd, yd = fig1middle_data(np.random.default_rng(fx.seed), eps, epsp, c, n_pos, n_neg)
                        sl = middle_assumptions(Xd, yd, al)
                        if sl["A.2"] > 0 and sl["A.3"] > 0:
                            smallest = min(smallest, eps)
                            if eps <= eps_max:
                                found.append((eps, epsp, c, n_pos, n_neg))
    ev.true(f"some member with eps <= {eps_max} meets A.2 and A.3", bool(found), independent=True,
            detail=f"{len(found)} members found; smallest eps meeting both on the grid: {smallest}")
    ev.record(members_found=len(found), smallest_eps_meeting_A2_A3=smallest)
    return ev


def _fig2(fx, target_override=None):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    d = X.shape[1]
    rng = fx.rng
    target, g_pred = predicted_limit(fx)
    if target_override is not None:
        target = target_override
    elif fx.mutated():
        w, _ = svm(X, y)

        def target(Z):
            return 0.5 * activation(Z @ w, al)
    W0 = 1e-3 * rng.normal(size=(1, m, d)) * np.sqrt(2 / d)
    a0 = 1e-3 * rng.normal(size=(1, m)) * np.sqrt(2 / m)
    small = fx["panel"] != "right"
    W, a, _ = gd_until_margin(W0, a0, X, y, al, eta=0.1 if small else 0.5, q_target=1.0 if small else 0.05,
                              max_steps=200_000)
    H = [100, 400, 1600, 6400] if small else [0.5, 2.0, 8.0]
    run = ngd_horizons(W, a, X, y, al, H, eta=1e-2 if small else 5e-2, max_steps=200_000)
    if not run.reached[-1, 0]:
        return ev.inconclusive("last margin horizon not reached")
    P = probes(rng, X, 1000)
    fd = [float(unit_function_distance(run.W[j], run.a[j], P, al, target)[0]) for j in range(len(H))]
    ratio = float(normalized_margin(run.W[-1], run.a[-1], X, y, al)[0]) / g_pred
    ev.record(function_distances=fd, margin_ratio=ratio)
    flat = abs(fd[-1] - fd[-2]) <= 0.1 * fd[-2]
    if fd[-1] > 3e-2 and not (fd[-1] > 0.1 and flat):      # undecided: two more horizons (x4, x16) first
        more = [H[-1] * 4, H[-1] * 16]
        ext = ngd_horizons(run.W[-1], run.a[-1], X, y, al, more, eta=1e-2 if small else 5e-2, max_steps=800_000)
        if ext.reached[-1, 0]:
            H = H + more
            fd += [float(unit_function_distance(ext.W[j], ext.a[j], P, al, target)[0]) for j in range(2)]
            ratio = float(normalized_margin(ext.W[-1], ext.a[-1], X, y, al)[0]) / g_pred
            ev.record(function_distances=fd, margin_ratio=ratio, extended_horizons=more)
            flat = abs(fd[-1] - fd[-2]) <= 0.1 * fd[-2]
    if fd[-1] > 3e-2 and not (fd[-1] > 0.1 and flat):
        return ev.inconclusive(f"function distance {fd[-1]:.3g} above 3e-2 but not settled; longer horizons needed")
    ev.le("function distance to the predicted classifier at the last horizon", fd[-1], 3e-2, rtol=0.0, room=None)
    ev.add_series("function distance to the predicted classifier", H, {"distance": fd}, xlabel="margin horizon", logx=True,
                  logy=True)
    return ev


# ---------------------------------------------------------------------------------------------
# App. J (Table 1 and Figure 4) at a reduced size: non-symmetric Gaussian data in d = 50


@family("lyu.appJ", space={"n": integer(10, 40), "shift": real(0.02, 0.3), "alpha": real(0.1, 0.9)})
def app_j(rng, d=50, n=20, shift=0.1, bias=0.1, alpha=0.5, m=100, n_test=10000):
    """App. J's data: n points from N(0, I_d) labelled by a hyperplane through 0 (here e_1), translated by ``shift``
    along e_1 away from it; the bias as an extra coordinate of value ``bias`` (the paper's 0.1); ``n_test`` test points
    from the same distribution (untranslated). App. J leaves the translation and alpha unstated (spec E24)."""
    wt = np.eye(d)[0]
    X = rng.normal(size=(n, d))
    y = np.where(X @ wt >= 0, 1.0, -1.0)
    X = X + shift * y[:, None] * wt
    Xt = rng.normal(size=(n_test, d))
    yt = np.where(Xt @ wt >= 0, 1.0, -1.0)
    aug = np.full((n, 1), bias)
    fx = with_reference(np.hstack([X, aug]), y, X_test=np.hstack([Xt, np.full((n_test, 1), bias)]), y_test=yt)
    fx.update(alpha=alpha, m=m)
    return fx


J_HORIZONS = [10, 40, 160, 640]
J_EQUAL_ERRORS = "test errors equal to within 0.1 point"


@claim("lyu2021.exp.J", **cat.declared("exp.J"), **cat.item("exp.J"), hypotheses=[separable],
       fixtures=[random(app_j), random(app_j, n=40, profiles=("standard", "thorough")),
                 adv(app_j, n=10, label="n = 10 (the table's smallest)"),
                 negative(app_j, mutation=J_EQUAL_ERRORS)],
       erratum=erratum(
           kind="experiment not reproduced", independence="another integrator",
           location="App. J, Table 1 and Figure 4 (full text l. 9324-9375)",
           printed="The results show that the neural network classifier converges to the max-margin linear classfier in "
                   "our setting. (Table 1: test errors for SVM max-margin linear classifiers and 2-layer networks are "
                   "nearly the same; Figure 4: two-layer leaky ReLU neural net converges in direction to the SVM "
                   "max-margin linear classifier)",
           reading="at a reduced size with the unstated settings chosen (spec E24): d = 50, n = 20 (quick; 10 and 40 "
                   "beside it), width 100, bias as an extra coordinate 0.1 (as App. J says), translation 0.1 along the true "
                   "normal, alpha = 1/2, 0.001 x He init, GD (eta 0.1) to q_min >= 1 then normalised GD to margin horizons "
                   "{10, ..., 640}. 'Converges in direction to the SVM max-margin linear classifier' read as: the "
                   "normalised margin tends to that of the best linear function, (1+alpha)/4 gamma_lin (a net computing "
                   "<w*, x> up to scale has exactly that margin, and the smoothed margin only grows). Why the margin "
                   "criterion is the paper's: it defines a net 'representing the max-margin linear classifier' as "
                   "f_theta(x) = c <w*, x> (Sec. 4.1, l. 324) and states Thm 4.3's conclusion the same way (f_inf "
                   "represents the max-margin linear classifier, l. 366), and Figure 4's caption claims directional "
                   "convergence ('converges in direction to the SVM max-margin linear classifier'), i.e. f_inf = c <w*, x>, "
                   "whose normalised margin is (1+alpha)/4 gamma_lin. The looser sense 'a classifier whose decision "
                   "boundary is linear' is the footnote of Sec. 6 (l. 841), scoped there ('Here') to the suboptimal "
                   "limit (1/2)phi(<w*, x>) of the hinted data, not to 'the max-margin linear classifier' of App. J. The "
                   "criterion was fixed before the runs and is not changed after the failure; the boundary's agreement "
                   "with the SVM is recorded, not judged (test-set disagreement 2.9-3.4% at Q = 640 in quick)",
           amended=r"At this size, the two-layer net's test error is within 2 points of the SVM's (Table 1).",
           amended_title="App. J at a reduced size: Table 1 only",
           difference="Table 1's agreement of test errors only; not Figure 4's convergence to the linear classifier",
           second_method="another integrator: seed 0 continued from its Q = 40 snapshot by the accurate flow (Filippov "
                         "sliding, error estimate 1.8e-11 in a prototype) reaches margin ratio 1.056 at Q = 160 and 1.060 "
                         "at Q = 640, as normalised GD does; also, from the same runs, the test-set disagreement with the "
                         "SVM levels at 3% (0.052, 0.036, 0.032, 0.031, 0.032 over Q = 10..2560 in a prototype)",
           summary="at d = 50, n = 20, width 100 GD from 0.001 x He init does not converge to the SVM's linear classifier: "
                   "its normalised margin settles 6-8% above the best linear one ((1+alpha)/4 gamma_lin; ratio 1.077, "
                   "1.060 in a prototype), a nonlinear KKT direction, and its boundary disagrees with the SVM's on 3% of "
                   "test points; Table 1's claim (test errors within about 2 points) holds (differences 0.2-0.8 points)"),
       judged_by="per fixture 2 (quick) / 4 seeds of 0.001 x He init: (Table 1) |test error(net) - test error(SVM)| <= 0.02 "
                 "over 10000 test points for every seed (the table's largest difference is 2.0 points); (Figure 4) the "
                 "relative gap |1 - gamma/((1+alpha)/4 gamma_lin)| along the horizons, worst seed, judged by judge_trend "
                 "(tolerance 1e-2). Recorded: test-set disagreement with the SVM. Amended: Table 1 only",
       timeout_s=600)
def exp_j(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    Xt, yt = fx["X_test"], fx["y_test"]
    B = 2 if fx.profile == "quick" else 4
    W0, a0 = he_inits(fx.rng, B, m, X.shape[1])
    W, a, _ = gd_until_margin(W0, a0, X, y, al, eta=0.1, q_target=1.0, max_steps=400_000)
    run = ngd_horizons(W, a, X, y, al, J_HORIZONS, eta=1e-2, max_steps=400_000, q_ref=10)
    if not run.reached[-1].all():
        return ev.inconclusive(f"normalised GD did not reach margin {J_HORIZONS[-1]} on every seed")
    svm_pred = np.sign(Xt @ fx["w_star"])
    err_svm = float(np.mean(svm_pred != yt))
    err_net, disagree = [], []
    for b in range(B):
        f = forward(run.W[-1, b], run.a[-1, b], Xt, al)
        err_net.append(float(np.mean(np.sign(f) != yt)))
        disagree.append(float(np.mean(np.sign(f) != svm_pred)))
    diff = np.abs(np.array(err_net) - err_svm)
    ev.forall("|test error(net) - test error(SVM)| (Table 1: nearly the same)", diff,
              0.001 if fx.mutated(J_EQUAL_ERRORS) else 0.02, relation="<=", rtol=0.0)
    ratio = np.array([normalized_margin(run.W[j], run.a[j], X, y, al) for j in range(len(J_HORIZONS))]) / (
        (1 + al) / 4 * fx["gamma_lin"])
    ev.record(test_error_svm=err_svm, test_error_net=err_net, test_disagreement=disagree, margin_ratio=ratio)
    if not fx.amended:
        judge_trend("relative margin gap to the max-margin linear classifier (worst seed)", J_HORIZONS,
                    np.max(np.abs(1 - ratio), axis=1), 1e-2, evidence=ev, scale_label="margin horizon")
        if not fx.mutated():
            # the erratum's second method, another integrator: seed 0 continued from its Q = 40 snapshot by the
            # accurate flow (region by region, Filippov sliding) instead of normalised GD
            fr = flow_margin_horizons(run.W[1, 0], run.a[1, 0], X, y, al, J_HORIZONS[2:])
            ev.accuracy("accurate-flow error estimate (relative, rtol/10 rerun)", fr.error, 1e-6)
            r_flow = float(normalized_margin(fr.W[-1], fr.a[-1], X, y, al)) / ((1 + al) / 4 * fx["gamma_lin"])
            ev.le(f"another integrator: |1 - gamma/((1+alpha)/4 gamma_lin)| of seed 0 at Q = {J_HORIZONS[-1]}",
                  abs(1 - r_flow), 1e-2, rtol=0.0, room=None)
            ev.record(accurate_flow_margin_ratio=r_flow)
    return ev
