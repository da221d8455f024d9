"""Section 5 of Lyu et al. (2021): the definition of mu~ (the lambda0 slip, one erratum), Lemma 5.2 (Phase I),
Lemma 5.3 (embedding), Lemma 5.4 (Phase II), Theorem 5.5 (width-2 Phase III) and Theorem 5.6 (local
convergence). Statements through lambda0 are judged with lambda0 as the paper uses it (max |G| on the sphere,
common.LAMBDA0_READING); the value of the mu~ display is their mutated control, and each carries an imprecision
rooted in the display's erratum (common.lambda0_imprecision)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fixtures.lyu2021 import (
    gen_gauss,
    sym_broken,
    sym_collinear,
    sym_gauss,
    sym_gauss_kkt_target,
    sym_n2,
    sym_tinygap,
)
from verify import (
    Evidence,
    claim,
    erratum,
    family,
    hypothesis,
    integer,
    judge_slope,
    judge_trend,
    negative,
    random,
    real,
)
from verify import adversarial as adv
from verify.claims import declare_amended
from verify.numerics.nets import forward, gradient, normalized_margin, parameter_norm_sq

from . import catalogue as cat
from .common import (
    LAMBDA_MU_DISPLAY,
    MU_TILDE_ID,
    G_value,
    bbar,
    d_init,
    embed,
    good_embedding,
    lambda0,
    lambda0_imprecision,
    linear_net,
    norm_M,
    probes,
    svm,
)
from .dynamics import (
    HorizonRun,
    flow_ode,
    gd_until_margin,
    inconclusive_on_stall,
    judge_floored_trend,
    ngd_horizons,
)
from .hyps import asm45, separable, symmetric

# ---------------------------------------------------------------------------------------------
# Lemma 5.2 (Phase I), judged with the printed lambda0 and, amended, with the corrected one


def phase1_errors(fx, literal: bool, r_exponent: float = 3.0):
    """E(r) = max_k max(||w_k(T1) - r bbar_k mubar||, |a_k(T1) - r bbar_k|) along r in {0.1, ..., 0.0125}
    (drop r > sqrt(lambda0)/2), sigma = r^3/(sqrt(m)||thetabar0||_M), integrated by the accurate flow (rtol 1e-11).
    Returns r, E, lambda0 used in T1, the balance drift (an accuracy monitor: exactly 0 for the flow)."""
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    d = X.shape[1]
    W0, a0 = d_init(fx.rng, 1, m, d, fx["c_a"])
    W0, a0 = W0[0], a0[0]
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    b = bbar(W0, a0, mubar)
    nM = float(norm_M(W0, a0))
    lam = lambda0(X, y, al, literal=literal)
    lam_true = lambda0(X, y, al)
    rs = np.array([r for r in (0.1, 0.05, 0.025, 0.0125) if r <= np.sqrt(lam_true) / 2])
    E, drift = [], 0.0
    for r in rs:
        sig = r ** 3 / (np.sqrt(m) * nM)
        T1 = np.log(r / (np.sqrt(m) * sig * nM)) / lam
        Ws, As = flow_ode(sig * W0, sig * a0, X, y, al, [0.0, T1], rtol=1e-11, atol=1e-22)
        W, a = Ws[-1], As[-1]
        E.append(max(np.max(np.linalg.norm(W - r * b[:, None] * mubar, axis=1)), np.max(np.abs(a - r * b))))
        bal0 = np.sum(W0 ** 2, 1) * sig ** 2 - (sig * a0) ** 2
        bal1 = np.sum(W ** 2, 1) - a ** 2
        drift = max(drift, float(np.max(np.abs(bal1 - bal0)) / r ** 2))
    return rs, np.array(E), lam, drift


R_EXPONENT_4 = "error O(r^4) (exponent off by one)"


_lem52_fixtures = [random(sym_gauss, d=4, n_half=8, m=4), random(sym_gauss, d=2, n_half=4, m=2),
                   random(sym_gauss, d=4, n_half=4, m=16), adv(sym_tinygap, m=4, label="margin near 0"),
                   adv(sym_gauss, m=32, label="wide (m = 32)"), adv(sym_gauss, m=2, alpha=0.05, label="m = 2, alpha -> 0"),
                   adv(sym_collinear, m=3, alpha=0.95, label="nearly collinear data, alpha -> 1"),
                   negative(gen_gauss, m=4), negative(sym_gauss, m=4, mutation=R_EXPONENT_4),
                   negative(sym_gauss, m=4, mutation=LAMBDA_MU_DISPLAY)]


@claim("lyu2021.lem5.2", **cat.declared("lem5.2"), **cat.item("lem5.2"), hypotheses=[separable, symmetric], fixtures=_lem52_fixtures,
       expected="verified",
       erratum=erratum(**lambda0_imprecision(
           location="Lemma 5.2, Sec. 5.1 (p. 6)",
           printed=r"at time T1(r) := (1/lambda0) ln(r/(sqrt(m) sigma_init ||thetabar0||_M)): w_k = r bbar_k mubar + "
                   r"Delta w_k, a_k = r bbar_k + Delta a_k, ||Delta theta||_M <= C r^3/sqrt(m)",
           depends="lambda0 = max |G| in T1(r); read through the display (the control '" + LAMBDA_MU_DISPLAY + "', "
                   "twice the Phase-I growth rate) T1(r) stops at sqrt(r sigma)-scale neurons, not r-scale: the fitted "
                   "exponent of E(r) is 0.96, not >= 2.8, and E/(C r^3/sqrt m) is 97 to 199 (the printed claim judged "
                   "that way in baseline-quick at 558c112, three sym.gauss fixtures)")),
       judged_by="accurate flow (rtol 1e-11) from sigma = r^3/(sqrt(m)||thetabar0||_M) to T1(r), r in {0.1, ..., "
                 "0.0125}; the order statement ||Delta theta||_M = O(r^3/sqrt(m)) judged by the fitted exponent of E(r) "
                 "(judge_slope, >= 3 - 0.2); the proof's constant C = 4/lambda0 + sqrt2 (E10; the paper prints "
                 "'a universal constant', so no room is claimed) bounds max_r E/(C r^3/sqrt m) <= 1; the balance drift is "
                 "the integrator's accuracy monitor (validity). Extremes: margin near 0, m = 2 and m = 32, alpha in "
                 "{0.05, 0.95}, nearly collinear data")
@inconclusive_on_stall
def lem5_2(fx):
    ev = Evidence()
    rs, E, lam, drift = phase1_errors(fx, literal=fx.mutated(LAMBDA_MU_DISPLAY))
    m = fx["m"]
    if len(rs) < 3:
        return ev.inconclusive("fewer than three admissible r (r <= sqrt(lambda0)/2)")
    C = 4 / lam + np.sqrt(2)
    p = 4.0 if fx.mutated(R_EXPONENT_4) else 3.0
    ev.accuracy("balance drift / r^2 (exactly 0 for the flow)", drift, 1e-8)
    ev.le(f"max_r E(r) / (C r^{p:g}/sqrt(m)), C = 4/lambda0 + sqrt2", float(np.max(E / (C * rs ** p / np.sqrt(m)))), 1.0,
          room=None)
    judge_slope("Phase-I error E(r)", rs, E, predicted=p - 0.2, relation=">=", atol=0.0, evidence=ev, xlabel="r",
                ylabel="E(r)", toward="zero")
    ev.record(r=rs, E=E, E_over_r3=E / rs ** 3, lambda0=lam, proof_constant=C)
    return ev


# ---------------------------------------------------------------------------------------------
# Sec. 5.1: the definition of mu~ (the lambda0 slip, recorded once; see common.LAMBDA0_READING)


def exact_G_ratio(X, y, alpha, w) -> Fraction:
    """G(w) / <w, mu> in exact rational arithmetic, on data rounded to the grid 2^-30 and mirrored exactly
    (x_{i+n/2} = -x_i), alpha and w rational: the second method of the mu~ erratum (no rounding anywhere)."""
    h = len(y) // 2
    V = [[Fraction(round(float(v) * 2 ** 30), 2 ** 30) for v in row] for row in X[:h]]
    pts = V + [[-v for v in row] for row in V]
    lab = [1] * h + [-1] * h
    al = Fraction(alpha).limit_denominator(10 ** 9)
    wq = [Fraction(round(float(v) * 2 ** 30), 2 ** 30) for v in w]

    def phi(z):
        return z if z > 0 else al * z

    n = len(lab)
    G = sum(lab[i] * phi(sum(a * b for a, b in zip(wq, pts[i]))) for i in range(n)) / (2 * n)
    mu = [sum(lab[i] * pts[i][j] for i in range(n)) / n for j in range(len(wq))]
    return G / sum(a * b for a, b in zip(wq, mu)), al


MU_FACTOR_EIGHT = "mu~ = ((1+alpha)/8) mu (the factor off by two the other way)"


@claim(MU_TILDE_ID, **cat.declared("obs.sec5.1.mu_tilde"), kind="definition", title="Sec. 5.1: G(w) = <w, mu~>, mu~ := ((1+alpha)/2) mu, lambda0 := ||mu~||",
       statement=r"Under Asm 4.1, $G(w) = \langle w, \tilde\mu\rangle$ with $\tilde\mu := \frac{1+\alpha}{2}\mu$, and "
                 r"$\lambda_0 := \|\tilde\mu\|_2$ is the top eigenvalue of $M_{\tilde\mu}$, the growth rate of (3).",
       hypotheses=[symmetric], uses=["lyu2021.asm4.1"],
       fixtures=[random(sym_gauss), random(sym_gauss, d=5, n_half=10, alpha=0.1),
                 adv(sym_gauss, alpha=0.01, label="alpha -> 0"), adv(sym_gauss, alpha=0.999, label="alpha -> 1"),
                 adv(sym_collinear, label="nearly collinear data"), adv(sym_n2, label="n = 2"),
                 negative(sym_broken), negative(sym_gauss, mutation=MU_FACTOR_EIGHT)],
       erratum=erratum(
           kind="wrong constant or typo", location="Sec. 5.1, display after eq. (3), p. 6 (full text l. 570-590)",
           independence="exact arithmetic",
           printed=r"G(w) = (1/(2n)) sum_{i in [n/2]} (1 + alpha) w^T x_i = <w, mu~>, where mu~ := ((1+alpha)/2) mu = "
                   r"((1+alpha)/(2n)) sum_{i in [n]} y_i x_i ... lambda0 := ||mu~||_2 ... are the unique top eigenvalue "
                   r"and eigenvector of M_mu~",
           reading="the paper's own G(w) = (-l'(0)/n) sum_i y_i phi(w^T x_i) = (1/(2n)) sum_i y_i phi(w^T x_i) (the display "
                   "just above) and its own mu = (1/n) sum_i y_i x_i (Sec. 4.3); mu~ is the vector with G(w) = <w, mu~> "
                   "(that is how (3), M_mu~ and lambda0 use it)",
           second_method="exact rational arithmetic (fractions.Fraction) of G(w)/<w, mu> on the data rounded to 2^-30 "
                         "and mirrored exactly: it equals (1+alpha)/4 with no rounding; and the growth rate of a neuron "
                         "started on the top eigenvector (mubar, 1)/sqrt2 at scale 1e-9 under the accurate flow "
                         "(integrate_flow): ((1+alpha)/4)||mu|| to 1e-6, half the printed lambda0",
           summary="mu~ := ((1+alpha)/2) mu contradicts G(w) = <w, mu~> two lines above (the factor -l'(0) = 1/2 is "
                   "dropped): mu~ = ((1+alpha)/4) mu, lambda0 = ((1+alpha)/4)||mu|| = max |G| on the sphere",
           amended=r"Under Asm 4.1, $G(w) = \langle w, \tilde\mu\rangle$ with $\tilde\mu = \nabla G = \frac{1+\alpha}{4}\mu$, "
                   r"and $\lambda_0 = \|\tilde\mu\| = \frac{1+\alpha}{4}\|\mu\| = \max_{\|w\|=1}|G(w)|$ is the growth rate of (3).",
           difference="mu~ = ((1+alpha)/4) mu, lambda0 = ((1+alpha)/4)||mu||"),
       judged_by="G(w) vs <w, mu~> at 200 random w (relative 1e-12); the exact rational ratio G(w)/<w, mu> vs "
                 "(1+alpha)/4 (independent of floating point); the growth rate log(||theta(t)||/||theta(0)||)/t of a "
                 "neuron on the top eigenvector at scale 1e-9 over t = 5/lambda (accurate flow) vs lambda0 (relative 1e-5). "
                 "Extremes: alpha in {0.01, 0.999}, nearly collinear data, n = 2")
@inconclusive_on_stall
def obs_mu_tilde(fx):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    mu = fx["mu"]
    den = 8 if fx.mutated(MU_FACTOR_EIGHT) else 4 if fx.amended else 2
    factor = (1 + al) / den
    Wr = fx.rng.normal(size=(200, X.shape[1]))
    pred = Wr @ (factor * mu)
    dev = float(np.max(np.abs(G_value(Wr, X, y, al) - pred)) / np.max(np.abs(pred)))
    ev.le("max over 200 random w of |G(w) - <w, mu~>| / max |<w, mu~>|", dev, 0.0, atol=1e-12, room=None)
    ratio, al_q = exact_G_ratio(X, y, al, Wr[0])
    ev.true(f"exact rational G(w)/<w, mu> = (1+alpha)/{den}", ratio == (1 + al_q) / den, independent=True,
            detail=f"exact ratio {float(ratio):.17g}, (1+alpha)/4 = {float((1 + al_q) / 4):.17g}")
    mubar = mu / np.linalg.norm(mu)
    lam_true = (1 + al) / 4 * float(np.linalg.norm(mu))
    t = 5 / lam_true
    r0 = 1e-9
    Ws, As = flow_ode(r0 * mubar[None] / np.sqrt(2), np.array([r0 / np.sqrt(2)]), X, y, al, [0.0, t], rtol=1e-12,
                      atol=1e-24)
    rate = float(np.log(np.sqrt(np.sum(Ws[-1] ** 2) + np.sum(As[-1] ** 2)) / r0) / t)
    ev.close("growth rate of a neuron on the top eigenvector vs lambda0 = ||mu~||", rate,
             factor * float(np.linalg.norm(mu)), rtol=1e-5)
    ev.record(exact_ratio=float(ratio), measured_rate=rate, lambda0_printed=(1 + al) / 2 * float(np.linalg.norm(mu)),
              lambda0_corrected=lam_true)
    return ev


# The amended identity G(w) = <w, ((1+alpha)/4) mu> is algebra under Asm 4.1 (phi(z) - phi(-z) = (1+alpha) z on each
# mirrored pair): checked to rounding, it holds by construction.
declare_amended(MU_TILDE_ID + ".amended", fidelity="definitional",
                no_room="an algebraic identity under Asm 4.1, checked to rounding (relative 1e-12, exact rational arithmetic)")


# ---------------------------------------------------------------------------------------------
# Lemma 5.3 (pi_b commutes with the flow): exact GD equivariance


def _wrong_embed(b, W2, a2):
    """Same function as pi_b but a different parameter split: a_k = (b_k/b+-)^2 a^j, w_k = w^j."""
    b = np.asarray(b, float)
    bp = np.sqrt(np.sum(b[b > 0] ** 2))
    bm = np.sqrt(np.sum(b[b < 0] ** 2))
    c = np.where(b > 0, (b / bp) ** 2, (b / bm) ** 2)
    W = np.where((b > 0)[:, None], W2[0], W2[1])
    return W, c * np.where(b > 0, a2[0], a2[1])


@claim("lyu2021.lem5.3", **cat.declared("lem5.3"), **cat.item("lem5.3"), hypotheses=[],
       fixtures=[random(sym_gauss, m=5), random(gen_gauss, m=3, d=5), adv(gen_gauss, m=10),
                 negative(gen_gauss, m=4, mutation="same-function embedding a_k = (b_k/b+)^2 a^1, w_k = w^1")],
       judged_by="f equality on probes, gradient equivariance grad L(pi_b th) = pi_b(grad L(th)), and 2000 GD steps "
                 "commuting with pi_b (pi_b is linear, so GD is exactly equivariant): relative errors <= 1e-11")
def lem5_3(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    d = X.shape[1]
    rng = fx.rng
    b = rng.normal(size=m)
    b[0], b[1] = abs(b[0]) + 0.1, -abs(b[1]) - 0.1
    W2 = rng.normal(size=(2, d))
    a2 = np.array([abs(rng.normal()) + 0.1, -abs(rng.normal()) - 0.1])
    emb = _wrong_embed if fx.mutated() else embed
    W, a = emb(b, W2, a2)
    P = probes(rng, X, 300)
    f2 = forward(W2, a2, P, al)
    ev.close("f_{pi_b(th)} = f_th on probes", forward(W, a, P, al), f2, rtol=1e-12)
    gW2, ga2 = gradient(W2, a2, X, y, al)
    gW, ga = gradient(W, a, X, y, al)
    pW, pa = embed(b, gW2, ga2)
    scale = np.linalg.norm(np.concatenate([gW.ravel(), ga]))
    ev.le("||grad L(pi_b th) - pi_b(grad L(th))|| / ||grad||",
          float(np.linalg.norm(np.concatenate([(gW - pW).ravel(), ga - pa])) / scale), 0.0, atol=1e-11)
    Wa, aa, Wb, ab = W2.copy(), a2.copy(), W.copy(), a.copy()
    for _ in range(2000):
        g1, g2 = gradient(Wa, aa, X, y, al)
        Wa, aa = Wa - 0.1 * g1, aa - 0.1 * g2
        h1, h2 = gradient(Wb, ab, X, y, al)
        Wb, ab = Wb - 0.1 * h1, ab - 0.1 * h2
    eW, ea = emb(b, Wa, aa)
    err = float(np.sqrt(np.sum((eW - Wb) ** 2) + np.sum((ea - ab) ** 2)) / np.sqrt(parameter_norm_sq(Wb, ab)))
    ev.le("||pi_b(GD^2000(th)) - GD^2000(pi_b th)|| / ||.||", err, 0.0, atol=1e-11)
    return ev


# ---------------------------------------------------------------------------------------------
# Theorem 5.5 (width 2): printed (1/4)(w*, -w*, 1, -1) and amended (1/2)(w*, -w*, 1, -1)


@family("lyu.init55", space={"d": integer(2, 6), "n_half": integer(2, 10), "alpha": real(0.1, 0.9),
                             "scale": real(0.01, 1.0, log=True), "gap": real(0.01, 0.3, log=True)})
def init55(rng, d=3, n_half=6, alpha=0.5, scale=0.3, kind="thm55", gap=0.05, collinear=False):
    """Symmetric data plus a width-2 start: ``thm55`` (a1 = ||w1||, a2 = -||w2||, <w1,w*> > 0 > <w2,w*>),
    ``weak`` (<w1, w*> = 1e-3||w1||), ``small_w2`` (||w2|| = 1e-2||w1||), ``both_pos`` (a2 = +||w2||, <w2,w*> > 0),
    ``unbalanced`` (a2 = -||w2||/2)."""
    if collinear:
        fx = sym_collinear.build(rng, d=d, n_half=n_half, alpha=alpha)
    else:
        fx = sym_gauss.build(rng, d=d, n_half=n_half, alpha=alpha, gap=gap)
    w = fx["w_star"]
    W = scale * rng.normal(size=(2, d)) / np.sqrt(d)
    W[0] *= np.sign(W[0] @ w)
    W[1] *= -np.sign(W[1] @ w)
    if kind == "weak":
        W[0] = W[0] - (W[0] @ w) * w + 1e-3 * np.linalg.norm(W[0]) * w
    if kind == "small_w2":
        W[1] *= 1e-2
    a = np.array([np.linalg.norm(W[0]), -np.linalg.norm(W[1])])
    if kind == "both_pos":
        W[1] = -W[1]
        a[1] = -a[1]
    if kind == "unbalanced":
        a[1] = a[1] / 2
    fx.update(W0=W, a0=a, m=2)
    return fx


def _h55(fx):
    W, a, w = fx["W0"], fx["a0"], fx["w_star"]
    bal = max(abs(a[0] - np.linalg.norm(W[0])), abs(a[1] + np.linalg.norm(W[1])))
    al1, al2 = W[0] @ w, -(W[1] @ w)
    ok = bal <= 1e-14 * np.linalg.norm(W) and al1 > 0 and al2 > 0
    return ok, min(al1, al2) - bal, f"balance error {bal:.2g}, <w1,w*> = {al1:.3g}, -<w2,w*> = {al2:.3g}"


h55 = hypothesis("a1 = ||w1||, a2 = -||w2||, <w1,w*> > 0 > <w2,w*>", _h55)


def width2_runs(fx, horizons, eta=1e-2, q_ref=200):
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    W, a, _ = gd_until_margin(fx["W0"][None], fx["a0"][None], X, y, al, eta=0.05, q_target=1.0)
    return ngd_horizons(W, a, X, y, al, horizons, eta=eta, q_ref=q_ref, max_steps=400_000 if q_ref else 1_500_000)


# Theorem 5.5 is a limit statement and the flow first passes a nearly flat saddle on some starts (small w2;
# collinear data with alpha = 0.95: distance 0.49 at Q = 250, 0.30 at 1e12, 0.052 at 1e21, < 5e-5 at 1e24).
# Standard/thorough therefore run normalised GD with a fixed step (it doubles q_min in a fixed number of steps,
# so Q = 1e24 is affordable) and judge the trend on a fixed late window, the same for every fixture; the
# earlier horizons are recorded.  Quick keeps the short run (q_ref step scaling, Q <= 1600).
H55_ALL = [250, 1000, 4000, 16000, 1e5, 1e6, 1e8, 1e10, 1e12, 1e15, 1e18, 1e21, 1e24]
H55_WINDOW = 4
H55_MORE = 4


def _thm55(fx, target_of):
    ev = Evidence()
    X, y, al = fx["X"], fx["y"], fx["alpha"]
    w, g_lin = svm(X, y)
    target = target_of(w)
    if not ev.close("norm of the stated limit direction (a directional limit is a unit vector)", float(np.linalg.norm(target)),
                    1.0, rtol=1e-12):
        return ev
    if fx.profile == "quick":
        H_all, run = [100, 400, 1600], width2_runs(fx, [100, 400, 1600])
        H = H_all
    else:
        H_all, run = H55_ALL, width2_runs(fx, H55_ALL, eta=2.5e-3, q_ref=None)
        H = H_all[-H55_WINDOW:]
    if not run.reached[-1, 0]:
        return ev.inconclusive(f"last margin horizon {H_all[-1]:g} not reached")

    def dist(j):
        th = np.concatenate([run.W[j, 0].ravel(), run.a[j, 0]])
        return float(np.linalg.norm(th / np.linalg.norm(th) - target))

    d_all = [dist(j) for j in range(len(H_all))]
    if fx.profile != "quick":
        # A start still escaping the saddle at Q = 1e24 (distance above the tolerance and shrinking) is followed
        # from the last snapshot (the fixed-step iteration continued exactly) by x1e3 horizons, at most H55_MORE
        # of them, and the late window moves with it (thorough adversarial alpha = 0.95: 0.062 at 1e24).
        H_all = list(H_all)
        for _ in range(H55_MORE):
            if not (d_all[-1] > 2e-2 and d_all[-1] < d_all[-2]):
                break
            ext = ngd_horizons(run.W[-1], run.a[-1], X, y, al, [H_all[-1] * 1e3], eta=2.5e-3, max_steps=1_500_000)
            if not ext.reached[-1, 0]:
                return ev.inconclusive(f"extension to margin horizon {H_all[-1] * 1e3:g} not reached")
            run = HorizonRun(np.append(run.horizons, ext.horizons), np.concatenate([run.W, ext.W]),
                             np.concatenate([run.a, ext.a]), np.concatenate([run.reached, ext.reached]),
                             np.concatenate([run.steps, run.steps[-1] + ext.steps]))
            H_all.append(H_all[-1] * 1e3)
            H = H_all[-H55_WINDOW:]
            d_all.append(dist(len(H_all) - 1))
    ev.record(distances_all_horizons=d_all, all_horizons=H_all, ngd_steps=run.steps[:, 0])
    run.W, run.a = run.W[-len(H):], run.a[-len(H):]
    dpar, gam = [], []
    for j in range(len(H)):
        th = np.concatenate([run.W[j, 0].ravel(), run.a[j, 0]])
        dpar.append(float(np.linalg.norm(th / np.linalg.norm(th) - target)))
        gam.append(float(normalized_margin(run.W[j, 0], run.a[j, 0], X, y, al)))
    shrink = (dpar[-2] - dpar[-1]) / dpar[-2]
    ev.record(normalised_margins=gam)
    if dpar[-1] > 10 * 2e-2 and shrink > 5e-3:
        return ev.inconclusive(f"not converged: distance {dpar[-1]:.3f} still shrinking ({shrink:.1%} over the last horizon "
                               f"step; slow escape from a nearly flat saddle)")
    judge_floored_trend("parameter distance to the limit direction", H, dpar, 2e-2, ev)
    ev.true("signs a1 > 0 > a2 preserved", bool(np.all(run.a[:, 0, 0] > 0) and np.all(run.a[:, 0, 1] < 0)))
    ev.record(margin_ratio=[float(normalized_margin(run.W[j, 0], run.a[j, 0], X, y, al)) / ((1 + al) / 4 * g_lin)
                            for j in range(len(H))], distances=dpar)
    return ev


_f55 = [random(init55), random(init55, d=5, n_half=10, alpha=0.25, scale=1.0), adv(init55, kind="weak"),
        adv(init55, kind="small_w2"), adv(init55, collinear=True, alpha=0.8), adv(init55, collinear=True, alpha=0.95),
        adv(init55, alpha=0.05, label="alpha -> 0"), negative(init55, kind="both_pos"),
        negative(init55, mutation="target (1/sqrt2)(w*, 0, 1, 0)")]


@claim("lyu2021.thm5.5", **cat.declared("thm5.5"), **cat.item("thm5.5"), hypotheses=[separable, symmetric, h55],
       fixtures=_f55, reproducible={"rtol": 1e-2, "atol": 1e-9},
       erratum=erratum(
           kind="wrong constant or typo", location="Theorem 5.5, Sec. 5.3 (p. 7), and the end of Sec. 5.3",
           printed=r"lim_{t -> +inf} theta(t)/||theta(t)||_2 = (1/4)(w*, -w*, 1, -1)",
           reading="a directional limit theta/||theta||_2 is a unit vector; (1/4)(w*, -w*, 1, -1) has norm 1/2 for unit "
                   "w* (Def 3.3). Lemma F.3 and App. F.3 list the same direction as (1/2)(w*, -w*, 1, -1)",
           second_method="closed form: ||(1/4)(w*, -w*, 1, -1)||_2 = (1/4) sqrt(2||w*||^2 + 2) = 1/2 exactly, so no unit "
                         "vector equals it; the amended limit (1/2)(w*, -w*, 1, -1) is the KKT direction of Lemma F.3 "
                         "(LP residual <= 1e-9 in lyu2021.lemF.3)",
           summary="the printed limit (1/4)(w*, -w*, 1, -1) has norm 1/2; the unit limit is (1/2)(w*, -w*, 1, -1)",
           amended=r"For $m = 2$, if initially $a_1 = \|w_1\|$, $a_2 = -\|w_2\|$, $\langle w_1, w^*\rangle > 0$, "
                   r"$\langle w_2, w^*\rangle < 0$, then $\theta(t)$ directionally converges to $\frac12(w^*, -w^*, 1, -1)$.",
           difference="limit (1/2)(w*, -w*, 1, -1) instead of (1/4)(.)", independence="closed form"),
       judged_by="the stated limit direction must be a unit vector (closed form); GD then normalised GD to margin "
                 "horizons (standard/thorough: fixed step 2.5e-3, horizons 250..1e24, trend judged on the late window "
                 "{1e15, 1e18, 1e21, 1e24}, moved by x1e3 horizons, at most 4, while the distance is above the tolerance and "
                 "still shrinking; quick: q_ref-scaled steps, horizons {100, 400, 1600}); parameter distance of "
                 "theta/||theta|| to the limit judged by judge_floored_trend (floor tol/10, tolerance 2e-2). Extremes: "
                 "<w1, w*> ~ 1e-3 ||w1||, ||w2|| = 1e-2 ||w1||, nearly collinear data with alpha in {0.8, 0.95}, alpha = 0.05")
def thm5_5(fx):
    if fx.mutated():
        return _thm55(fx, lambda w: np.concatenate([w, 0 * w, [1.0, 0.0]]) / np.sqrt(2))
    c = 0.5 if fx.amended else 0.25
    return _thm55(fx, lambda w: c * np.concatenate([w, -w, [1.0, -1.0]]))


# ---------------------------------------------------------------------------------------------
# Theorem 5.6 (local convergence near a local-max-margin direction)


def _thm56_target(fx, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Thm 5.6's thetabar*: pi_b((1/2)(w*, -w*, 1, -1)), a global max-margin direction (Thm 4.2), or on the
    kkt_target family the one-neuron KKT direction (w*, 0, 1, 0)/sqrt2 (not a local max: the probe)."""
    m, d = fx["m"], fx["X"].shape[1]
    if "target" in fx:
        Wst, ast = np.zeros((m, d)), np.zeros(m)
        Wst[0], ast[0] = w / np.sqrt(2), 1 / np.sqrt(2)
        return Wst, ast
    b = fx.rng.normal(size=m)
    b[0], b[1] = abs(b[0]) + 0.1, -abs(b[1]) - 0.1
    return embed(b, *linear_net(w, 2))


def _local_max_target(fx):
    """On the kkt_target family a witness that thetabar* is not a local max: along (w*, -e w*, 1, -e) the normalised
    margin (alpha + e^2)/(2(1 + e^2)) gamma_lin rises with e (alpha < 1). Elsewhere thetabar* is the global max of
    Thm 4.2 by construction."""
    if "target" not in fx:
        return True, None, "thetabar* = pi_b((1/2)(w*, -w*, 1, -1)), a global max-margin direction (Thm 4.2)"
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    w = fx["w_star"]
    Wst, ast = np.zeros((m, X.shape[1])), np.zeros(m)
    Wst[0], ast[0] = w, 1.0
    g0 = float(normalized_margin(Wst, ast, X, y, al))
    Wst[1], ast[1] = -1e-2 * w, -1e-2
    g1 = float(normalized_margin(Wst, ast, X, y, al))
    return g1 <= g0, g0 - g1, f"margin {g0:.6g} at thetabar*, {g1:.6g} at distance ~1e-2 along (w*, -e w*, 1, -e)"


local_max_target = hypothesis("thetabar* is a local-max-margin direction (Thm 5.6)", _local_max_target)
MARGIN_ABOVE = "gamma(limit) >= (1 + 1e-3) gamma(thetabar*) (above the local max)"


# Across BLAS kernels and thread counts (tools/cross_machine.py, OpenBLAS SkylakeX/Zen x1 vs Prescott x2) the
# largest change measured in this check's floats: final directions after long normalised GD: 0.19 relative.
@claim("lyu2021.thm5.6", **cat.declared("thm5.6"), reproducible="verdict", **cat.item("thm5.6"),
       hypotheses=[separable, symmetric, local_max_target],
       fixtures=[random(sym_gauss, m=2), random(sym_gauss, m=4, d=5), adv(sym_gauss, m=3, alpha=0.9),
                 negative(sym_gauss_kkt_target, m=2, label="thetabar* = (1/sqrt2)(w*, 0, 1, 0), a KKT direction, not a "
                                                           "local max (hypothesis broken)"),
                 negative(sym_gauss, m=2, mutation=MARGIN_ABOVE)],
       judged_by="thetabar* = pi_b((1/2)(w*,-w*,1,-1)) (a global max by Thm 4.2); starts rho0 * normalize(thetabar* + eps0 xi) "
                 "for eps0 in {0.1, 0.03, 0.01}, rho0 = 10; normalised GD to q_min = 64 q_min(0); margin ratio >= 1 - 2 ln(n)/Q; "
                 "the distance to thetabar* must not grow along horizons (smallest eps0) and the final distance is judged "
                 "by judge_trend over eps0 (tolerance 5e-2). Standard/thorough: one xi for every eps0 (a ray), step 5e-3 "
                 "with the same starts at 1e-2 measuring the discretisation jitter (fluctuations below max(tol/10, twice "
                 "it) do not count, judge_trend's floor; inconclusive if it reaches the tolerance); a direction still "
                 "shrinking above the tolerance at 64 q0 is followed by x4 horizons (at most to 4096 q0); quick: a fresh "
                 "xi per eps0, step 1e-2. Probe: thetabar* the one-neuron KKT direction (not a local max), starts perturbed "
                 "toward the second neuron (w*, -eps0 w*, 1, -eps0)")
def thm5_6(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    d = X.shape[1]
    w, g_lin = svm(X, y)
    rng = fx.rng
    eps0s = np.array([0.1, 0.03, 0.01])
    rho0 = 10.0
    quick = fx.profile == "quick"
    kkt_target = "target" in fx
    Wst, ast = _thm56_target(fx, w)
    th_star = np.concatenate([Wst.ravel(), ast])
    g_star = float(normalized_margin(Wst, ast, X, y, al))
    W0, a0 = [], []
    xi = None
    for e in eps0s:
        if kkt_target:
            Wp, ap = Wst.copy(), ast.copy()
            Wp[1], ap[1] = -e * w, -e
        else:
            # outside quick one direction xi for every eps0 (a ray): with a fresh xi per eps0 the final distances
            # are independent draws and need not shrink with eps0 (measured 0.009, 0.018, 0.008 at m = 4)
            if xi is None or quick:
                xi = rng.normal(size=th_star.size)
            th = th_star + e * xi / np.linalg.norm(xi)
            Wp, ap = th[: m * d].reshape(m, d), th[m * d:]
        s = rho0 / np.sqrt(parameter_norm_sq(Wp, ap))
        W0.append(s * Wp)
        a0.append(s * ap)
    W0, a0 = np.array(W0), np.array(a0)
    q0 = float(np.min(normalized_margin(W0, a0, X, y, al))) * rho0 ** 2
    if q0 <= 0:
        return ev.inconclusive("a start has non-positive margin")
    H = [4 * q0, 16 * q0, 64 * q0]
    tol = 5e-2

    def distances(r):
        out = np.zeros((len(r.horizons), len(eps0s)))
        for j in range(len(r.horizons)):
            thf = np.concatenate([r.W[j].reshape(len(eps0s), -1), r.a[j]], axis=1)
            thf /= np.linalg.norm(thf, axis=1, keepdims=True)
            out[j] = np.linalg.norm(thf - th_star, axis=1)
        return out

    def extend(r, eta):
        ext = ngd_horizons(r.W[-1], r.a[-1], X, y, al, [4 * r.horizons[-1]], eta=eta, max_steps=1_000_000)
        return HorizonRun(np.append(r.horizons, ext.horizons), np.concatenate([r.W, ext.W]), np.concatenate([r.a, ext.a]),
                          np.concatenate([r.reached, ext.reached]), np.concatenate([r.steps, r.steps[-1] + ext.steps]))

    if quick:
        run = ngd_horizons(W0, a0, X, y, al, H, eta=1e-2)
        if not run.reached[-1].all():
            return ev.inconclusive("last horizon not reached")
        dist = distances(run)
        floor = 1e-3
    else:
        # Normalised GD at eta 5e-3 is the computation; the same starts at eta 1e-2 measure its discretisation
        # jitter, and fluctuations below max(tol/10, twice that jitter) do not count (judge_trend's floor).
        etas = (5e-3, 1e-2)
        runs = [ngd_horizons(W0, a0, X, y, al, H, eta=eta, max_steps=1_000_000) for eta in etas]
        if not all(r.reached[-1].all() for r in runs):
            return ev.inconclusive("last horizon not reached")
        # a start whose direction is still approaching thetabar* above the tolerance at 64 q0 (an early excursion
        # when q_min(0) is small: 0.18 at 4 q0 -> 0.052 at 64 q0 with q_min(0) = 0.70) is followed by x4 horizons
        # from the last snapshots, at most 4 (to 4096 q0), until every eps0 is within the tolerance or stops shrinking
        while len(runs[0].horizons) < 7:
            dd = distances(runs[0])
            if not (dd[-1].max() > tol and np.any(dd[-1] < dd[-2])):
                break
            runs = [extend(r, eta) for r, eta in zip(runs, etas)]
            if not all(r.reached[-1].all() for r in runs):
                return ev.inconclusive(f"extended horizon {runs[0].horizons[-1]:g} not reached")
        run, coarse = runs
        H = list(run.horizons)
        dist, dist_c = distances(run), distances(coarse)
        jitter = float(np.max(np.abs(dist - dist_c)[[0, -1]]))
        floor = max(tol / 10, 2 * jitter)
        ev.record(distance_step_1e_2=dist_c, discretisation_jitter=jitter, floor=floor, horizons=H)
        if floor >= tol:
            return ev.inconclusive(f"normalised-GD jitter {jitter:.3g} leaves no resolution below the tolerance {tol:g}")
    # the margin is judged at 64 q0 (an extension follows the direction, not the margin)
    ratio = normalized_margin(run.W[2], run.a[2], X, y, al) / g_star
    # At margin horizon Q the softmin smoothing costs up to ln(n)/Q of the margin (relative).
    low = 1 + 1e-3 if fx.mutated(MARGIN_ABOVE) else 1 - 2 * np.log(len(y)) / H[2]
    ev.ge("min over eps0 of gamma(final)/gamma(thetabar*)", float(ratio.min()), low, rtol=0.0)
    stays = ev.le("distance growth along the horizons (smallest eps0): d(last) vs max(1.1 d(first), floor)",
                  float(dist[-1, -1]), max(1.1 * dist[0, -1], floor), rtol=0.0)
    if stays:  # a flow leaving the neighbourhood already refutes; the eps0 trend is then moot
        judge_trend("distance of the final direction to thetabar*", 1 / eps0s, dist[-1], tol, evidence=ev,
                    scale_label="1/eps0", floor=0.0 if quick else floor)
    ev.record(eps0=eps0s, distance=dist, margin_ratio=ratio, gamma_star=g_star, rho0=rho0)
    return ev


# ---------------------------------------------------------------------------------------------
# Lemma 5.4 (Phase II): the m-neuron flow at T12(sigma) + t approaches pi_bbar(theta~(t))


def _good_init(rng, m, d, c_a, mubar):
    while True:
        W0, a0 = d_init(rng, 1, m, d, c_a)
        b = bbar(W0, a0, mubar)[0]
        if good_embedding(b):
            return W0[0], a0[0], b


T12_NO_SQRT_M = "T12 = (1/lambda0) ln(1/(sigma ||thetabar0||_M)) (factor sqrt(m) dropped)"


@claim("lyu2021.lem5.4", **cat.declared("lem5.4"), **cat.item("lem5.4"), hypotheses=[separable, symmetric, asm45],
       fixtures=[random(sym_gauss, m=2), random(sym_gauss, m=3, d=4, n_half=8),
                 adv(sym_gauss, m=5, alpha=0.25), adv(sym_gauss, m=2, alpha=0.95, label="m = 2, alpha -> 1"),
                 adv(sym_collinear, m=3, label="nearly collinear data"),
                 adv(sym_tinygap, m=2, alpha=0.05, label="margin near 0, alpha -> 0"),
                 negative(gen_gauss, m=3), negative(sym_gauss, m=3, mutation=T12_NO_SQRT_M),
                 negative(sym_gauss, m=3, mutation=LAMBDA_MU_DISPLAY)],
       expected="verified",
       erratum=erratum(**lambda0_imprecision(
           location="Lemma 5.4, Sec. 5.2 (p. 7)",
           printed=r"T2(r) := (1/lambda0) ln(1/r), T12 := (1/lambda0) ln(1/(sqrt(m) sigma_init ||thetabar0||_M)); "
                   r"theta~(t) := lim_{r->0} phi(r theta^, T2(r) + t) != 0 (4) and lim_{sigma_init->0} theta(T12 + t) = "
                   r"pi_bbar(theta~(t)) (5)",
           depends="lambda0 = max |G| in T2 and T12; read through the display (the control '" + LAMBDA_MU_DISPLAY +
                   "', twice the growth rate) phi(r theta^, T2(r) + t) ~ sqrt(r): the fitted exponent of its M-norm in r "
                   "is 0.50, not 0 +- 0.1, so the limit (4) is 0 (the printed claim judged that way in baseline-quick "
                   "at 558c112, three sym.gauss fixtures)")),
       judged_by="accurate flows (rtol 1e-11), conditioned on a good bbar (the probability is Lemma E.7): (4) the "
                 "two-neuron phi(r theta^, T2(r)) for r in {1e-3, 1e-4, 1e-5}: the fitted exponent of its M-norm in r "
                 "must be 0 +- 0.1 (a nonzero limit); (5) D(sigma) = max_t ||theta_sigma(T12 + t) - pi_bbar(theta~(t))||_M / "
                 "||pi_bbar(theta~(t))||_M for lambda0 t in {-2, 0, 2}, theta~ taken at r = 1e-5, judged by judge_trend "
                 "over sigma in {1e-3, 10^-4.5, 1e-6} (tolerance 5e-2). Extremes: m = 2, alpha in {0.05, 0.95}, nearly "
                 "collinear data, margin near 0")
@inconclusive_on_stall
def lem5_4(fx):
    ev = Evidence()
    X, y, al, m = fx["X"], fx["y"], fx["alpha"], fx["m"]
    d = X.shape[1]
    mubar = fx["mu"] / np.linalg.norm(fx["mu"])
    W0, a0, b = _good_init(fx.rng, m, d, fx["c_a"], mubar)
    lam_true = lambda0(X, y, al)
    lam = lambda0(X, y, al, literal=fx.mutated(LAMBDA_MU_DISPLAY))
    bp, bm = np.sqrt(np.sum(b[b > 0] ** 2)), -np.sqrt(np.sum(b[b < 0] ** 2))
    W2 = np.stack([bp * mubar, bm * mubar])
    a2 = np.array([bp, bm])
    ts = np.array([-2.0, 0.0, 2.0]) / lam_true
    rs = np.array([1e-3, 1e-4, 1e-5])
    refs = []
    for r in rs:
        T2 = np.log(1 / r) / lam
        Ws, As = flow_ode(r * W2, r * a2, X, y, al, T2 + ts, rtol=1e-11, atol=1e-16 * r)
        refs.append((Ws, As))
    size0 = np.array([float(norm_M(Ws[1], As[1])) for Ws, As in refs])
    judge_slope("(4) ||phi(r theta^, T2(r))||_M (a nonzero limit: exponent 0)", rs, size0, predicted=0.0, atol=0.1,
                evidence=ev, xlabel="r", ylabel="M-norm", toward="zero")
    if ev.holds is False:        # (4) fails: theta~ = 0, and (5) compares vanishing quantities; nothing to add
        ev.record(theta_tilde_size=size0, lambda0=lam)
        return ev
    cauchy = max(float(norm_M(refs[1][0][k] - refs[2][0][k], refs[1][1][k] - refs[2][1][k])) for k in range(len(ts)))
    targets = [embed(b, refs[-1][0][k], refs[-1][1][k]) for k in range(len(ts))]
    nM0 = float(norm_M(W0, a0))
    sigmas = np.array([1e-3, 10 ** -4.5, 1e-6])
    root_m = 1.0 if fx.mutated(T12_NO_SQRT_M) else np.sqrt(m)
    D = []
    for s in sigmas:
        T12 = np.log(1 / (root_m * s * nM0)) / lam
        Ws, As = flow_ode(s * W0, s * a0, X, y, al, T12 + ts, rtol=1e-11, atol=1e-16 * s)
        D.append(max(float(norm_M(Ws[k] - targets[k][0], As[k] - targets[k][1]) / norm_M(*targets[k]))
                     for k in range(len(ts))))
    judge_trend("(5) relative M-distance to pi_bbar(theta~(t))", 1 / sigmas, D, 5e-2, floor=5e-3, evidence=ev,
                scale_label="1/sigma")
    slope = float(np.polyfit(np.log(sigmas), np.log(np.maximum(D, 1e-300)), 1)[0])
    ev.record(D=D, sigmas=sigmas, fitted_power=slope, cauchy_r_difference=cauchy, bbar=b, lambda0=lam,
              theta_tilde_size=size0)
    return ev
