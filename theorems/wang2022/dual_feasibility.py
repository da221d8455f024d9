"""Section 3.1 and App. C of Wang & Pilanci (2022): sufficient conditions for dual feasibility of the
non-convex multipliers (Props 4-5, Remark 1, Lemmas 5-6)."""

from __future__ import annotations

import numpy as np

from fixtures.orthogonal import boundary as shared_os_boundary
from fixtures.orthogonal import near_boundary as shared_os_near_boundary
from fixtures.wang2022 import (
    F1,
    F2,
    OBTUSE_SAME,
    SLIDE,
    gen_gauss,
    near_opposite,
    os_boundary,
    os_cones,
    sf_illcond,
    sf_mmatrix,
    sf_orthogonal,
)
from verify import Evidence, adversarial, claim, negative, not_checkable, random
from verify.numerics.convex import dual_certificate

from ._hyp import both_classes, full_rank, orthogonally_separable, spike_free
from ._numerics import complete_patterns

N_LAMBDA = 40


def _max_positive(X: np.ndarray, lam: np.ndarray, D: np.ndarray) -> float:
    """max_j v_j^+(lambda) = max_j max_{||u|| <= 1, (2D_j - I)Xu >= 0} lambda^T D_j X u over the (p, N) patterns
    ``D`` (eq. 17, sign s = +1; exact per-pattern NNLS of ``convex.dual_certificate``)."""
    return float(dual_certificate(lam, X, D)["pattern_values"][:, 0].max())


def search_lambda(y: np.ndarray, score, rng: np.random.Generator, n_start: int = 6,
                  maxfev: int = 300) -> tuple[float, np.ndarray]:
    """Adversarial search over multipliers with the signs of y: maximise ``score(lambda)`` over
    lambda = y o exp(z) (so Y lambda >= 0; entries down to e^-30 ~ 1e-13 stand in for zeros) by Nelder-Mead
    from z = 0 (lambda = y) and ``n_start`` random starts. Returns (best score, its lambda)."""
    from scipy.optimize import minimize

    def lam_of(z):
        return y * np.exp(np.clip(z, -30.0, 30.0))

    best, best_lam = -np.inf, y.copy()
    for z0 in [np.zeros(len(y))] + [rng.normal(scale=2.0, size=len(y)) for _ in range(n_start)]:
        res = minimize(lambda z: -score(lam_of(z)), z0, method="Nelder-Mead",
                       options={"maxfev": maxfev, "xatol": 1e-8, "fatol": 1e-14})
        val = score(lam_of(res.x))
        if val > best:
            best, best_lam = val, lam_of(res.x)
    return float(best), best_lam


def _covering_lambda(fx, rng: np.random.Generator):
    """lambda = y o Exp(1) with random zeros and random 0/1 supersets D_+ >= diag(1(y=1)),
    D_- >= diag(1(y=-1)), scaled so that max(||X^T D_+ lambda||, ||X^T D_- lambda||) = 1 (tight case)."""
    X, y = fx["X"], fx["y"]
    N = len(y)
    lam = y * rng.exponential(size=N) * (rng.uniform(size=N) > 0.2)
    dp = np.where(y > 0, 1.0, (rng.uniform(size=N) < 0.5).astype(float))
    dm = np.where(y < 0, 1.0, (rng.uniform(size=N) < 0.5).astype(float))
    s = max(np.linalg.norm(X.T @ (dp * lam)), np.linalg.norm(X.T @ (dm * lam)))
    return lam / s if s > 0 else lam


def _core(fx, ev: Evidence, bound: float) -> None:
    X = fx["X"]
    D = complete_patterns(X)
    worst, worst_lam, r2_err = 0.0, None, 0.0
    for _ in range(N_LAMBDA):
        lam = _covering_lambda(fx, fx.rng)
        V = dual_certificate(lam, X, D).value
        if V > worst:
            worst, worst_lam = V, lam
        r2 = max(np.linalg.norm(X.T @ np.maximum(lam, 0)), np.linalg.norm(X.T @ np.minimum(lam, 0)))
        r2_err = max(r2_err, abs(V - r2) / max(r2, 1e-300))
    ev.le(f"max V(lambda) over {N_LAMBDA} covering multipliers", worst, bound, rtol=1e-9)
    ev.record(max_V=worst, R2_closed_form_rel_error=r2_err, patterns=D.shape[0])
    if worst > bound:
        ev.certify(lambda_counterexample=worst_lam)


@claim("wang2022.prop4", kind="proposition", title="Proposition 4 (orthogonal separability => dual feasible)",
       statement=r"If $(X,y)$ is orthogonally separable and the KKT point has neurons $i_\pm$ with "
                 r"$\hat D_{i_+} \ge \mathrm{diag}(1(y=1))$, $\hat D_{i_-} \ge \mathrm{diag}(1(y=-1))$, then $\lambda$ is "
                 r"dual feasible (16).",
       uses=["wang2022.lem5", "wang2022.lem6", "wang2022.prop3"],
       hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=4, Np=5, Nn=4), adversarial(os_boundary, d=3),
                 adversarial(F1), adversarial(os_cones, theta_deg=44.5), adversarial(shared_os_near_boundary),
                 adversarial(shared_os_boundary), negative(OBTUSE_SAME), negative(gen_gauss, N=8, d=3)],
       judged_by="core implication (spec §3): Y lambda >= 0, ||X^T D_+- lambda|| <= 1 with covering D_+- => "
                 "V(lambda) <= 1 by exact per-pattern NNLS over all patterns; 40 multipliers per fixture")
def prop4(fx):
    ev = Evidence()
    _core(fx, ev, 1.0)
    return ev


@claim("wang2022.prop5", kind="proposition", title="Proposition 5 (spike-free => dual feasible)",
       statement=r"Proposition 4 with '$X$ is spike-free' in place of orthogonal separability.",
       uses=["wang2022.def2", "wang2022.prop3"], hypotheses=[spike_free, full_rank],
       fixtures=[random(sf_mmatrix), random(sf_mmatrix, N=4, d=4), adversarial(F2), adversarial(SLIDE),
                 negative(F1), negative(OBTUSE_SAME)],
       judged_by="core implication as prop4 on spike-free X (exact NNLS over all patterns)")
def prop5(fx):
    ev = Evidence()
    _core(fx, ev, 1.0)
    return ev


@claim("wang2022.prop5.eq64", kind="claim", title="Proof of Proposition 5, step (64)",
       statement=r"$\max_{\|u\|\le1}\lambda^\top(Xu)_+ = \max_{\|u\|\le1}\lambda^\top Y_+(Xu)_+$ for spike-free $X$, "
                 r"$Y\lambda\ge0$.",
       uses=["wang2022.def2"], hypotheses=[spike_free, full_rank],
       expected="refuted",
       expected_reason="(64) uses lambda^T Y_+ X z = lambda^T X z, false in general: SLIDE, lambda = (1,-1): 0.5 vs 1 "
                       "(spec E6); Prop 5 needs only the one-sided inequality (wang2022.prop5.eq64.amended)",
       fixtures=[random(SLIDE), random(sf_mmatrix), adversarial(sf_illcond), adversarial(sf_orthogonal),
                 negative(F1)],
       judged_by="exact per-pattern NNLS for both sides, 11 multipliers (one is y); adversarial fixtures add a "
                 "Nelder-Mead search maximising |lhs - rhs| / max(lhs, rhs)")
def prop5_eq64(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    D = complete_patterns(X)
    lams = [y.copy()] + [y * fx.rng.exponential(size=len(y)) for _ in range(10)]
    if fx.kind == "adversarial":
        def gap(lam):
            lhs, rhs = _max_positive(X, lam, D), _max_positive(X, lam * (y > 0), D)
            return abs(lhs - rhs) / max(lhs, rhs, 1e-300)
        rel, lam_s = search_lambda(y, gap, fx.rng)
        lams.append(lam_s / max(_max_positive(X, lam_s * (y > 0), D), 1e-300))
        ev.record(search_max_relative_gap=rel)
    errs = []
    for lam in lams:
        lhs = _max_positive(X, lam, D)
        rhs = _max_positive(X, lam * (y > 0), D)
        errs.append((abs(lhs - rhs), lhs, rhs, lam))
    e = max(errs, key=lambda t: t[0])
    ev.close("max_u lambda^T (Xu)_+ = max_u lambda^T Y_+ (Xu)_+", e[1], e[2], rtol=1e-9)
    if e[0] > 1e-9:
        ev.certify(counterexample={"X": X, "y": y, "lambda": e[3], "lhs": e[1], "rhs": e[2]})
    return ev


@claim("wang2022.prop5.eq64.amended", kind="claim", title="Proof of Proposition 5, step (64) (amended)",
       amends="wang2022.prop5.eq64",
       statement=r"$\max_{\|u\|\le1}\lambda^\top(Xu)_+ \le \max_{\|u\|\le1}\lambda^\top Y_+(Xu)_+$ whenever "
                 r"$Y\lambda \ge 0$ (any $X$); this is all the proof of Proposition 5 needs.",
       fixtures=[random(SLIDE), random(sf_mmatrix), random(gen_gauss, N=8, d=3), adversarial(near_opposite),
                 adversarial(near_opposite, eps=1e-6), adversarial(sf_illcond),
                 negative(SLIDE, mutation="reversed inequality")],
       judged_by="exact per-pattern NNLS for both sides, 11 multipliers; adversarial fixtures (ill-conditioned, "
                 "nearly collinear opposite labels) add a Nelder-Mead search maximising lhs - rhs at rhs = 1")
def prop5_eq64_amended(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    D = complete_patterns(X)
    worst = -np.inf
    lams = [y.copy()] + [y * fx.rng.exponential(size=len(y)) for _ in range(10)]
    if fx.kind == "adversarial" and not fx.mutated():
        def excess(lam):
            rhs = _max_positive(X, lam * (y > 0), D)
            return (_max_positive(X, lam, D) - rhs) / max(rhs, 1e-300)
        best, lam_s = search_lambda(y, excess, fx.rng)
        lams.append(lam_s / max(_max_positive(X, lam_s * (y > 0), D), 1e-300))
        ev.record(search_max_relative_excess=best)
    for lam in lams:
        lhs = _max_positive(X, lam, D)
        rhs = _max_positive(X, lam * (y > 0), D)
        worst = max(worst, (rhs - lhs) if fx.mutated() else (lhs - rhs))
    ev.le("max (lhs - rhs) over multipliers" + (" [reversed]" if fx.mutated() else ""), worst, 0.0, atol=1e-9)
    return ev


def _rem1_values(X, lam):
    """(max_{Xu>=0,||u||<=1} |lambda^T X u|, max lambda_+^T X u, max -lambda_-^T X u) on the single cone Xu >= 0
    (the all-ones pattern), by ``convex.dual_certificate``."""
    ones = np.ones((1, X.shape[0]))
    form1 = dual_certificate(lam, X, ones).value
    plus = float(dual_certificate(np.maximum(lam, 0.0), X, ones)["pattern_values"][0, 0])
    minus = float(dual_certificate(np.minimum(lam, 0.0), X, ones)["pattern_values"][0, 1])
    return form1, plus, minus


@claim("wang2022.rem1.form1", kind="remark", title="Remark 1 (first form)",
       statement=r"For spike-free $X$: $\max_{\|u\|\le1}|\lambda^\top(Xu)_+| = \max_{Xu\ge0,\|u\|\le1}|\lambda^\top Xu|$.",
       uses=["wang2022.def2"], hypotheses=[spike_free, full_rank],
       fixtures=[random(sf_mmatrix), random(sf_mmatrix, N=4, d=5), adversarial(F2), adversarial(SLIDE), negative(F1)],
       judged_by="exact NNLS: all patterns (left) vs the single cone Xu >= 0 (right); 20 random lambda; 1e-9")
def rem1_form1(fx):
    ev = Evidence()
    X = fx["X"]
    D = complete_patterns(X)
    err = 0.0
    for _ in range(20):
        lam = fx.rng.normal(size=X.shape[0])
        err = max(err, abs(dual_certificate(lam, X, D).value - _rem1_values(X, lam)[0]))
    ev.le("max |V(lambda) - max_{Xu>=0} |lambda^T X u||", err, 0.0, atol=1e-9)
    return ev


@claim("wang2022.rem1.form2", kind="remark", title="Remark 1 ('or equivalently' form)",
       statement=r"For spike-free $X$ the dual constraint is equivalent to $\max_{Xu\ge0,\|u\|\le1}\lambda^\top Y_+Xu\le1$ "
                 r"and $\min_{Xu\ge0,\|u\|\le1}\lambda^\top Y_-Xu\ge-1$.",
       uses=["wang2022.rem1.form1"], hypotheses=[spike_free, full_rank, both_classes],
       expected="refuted",
       expected_reason="only a sufficient condition: SLIDE, lambda = c(1,-1), c in (1,2]: dual value 0.5c <= 1 but the "
                       "Y_+ form gives c > 1 (spec E6)",
       fixtures=[random(SLIDE), random(sf_mmatrix, N=4, d=4), adversarial(sf_illcond), adversarial(sf_orthogonal),
                 negative(F1)],
       judged_by="truth values of both sides for multipliers lambda = c * y o Exp(1) scaled to V(lambda) = 1 (exact NNLS); "
                 "adversarial fixtures add a Nelder-Mead search maximising the second form at V(lambda) = 1")
def rem1_form2(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    worst, cert = 0.0, None
    lams = [y.copy()] + [y * fx.rng.exponential(size=len(y)) for _ in range(19)]
    if fx.kind == "adversarial":
        def second_form(lam):
            form1, plus, minus = _rem1_values(X, lam)
            return max(plus, minus) / max(form1, 1e-300)
        best, lam_s = search_lambda(y, second_form, fx.rng)
        lams.append(lam_s)
        ev.record(search_max_second_form=best)
    for lam in lams:
        lam = lam / _rem1_values(X, lam)[0]  # now the dual constraint holds with equality
        _, plus, minus = _rem1_values(X, lam)
        if max(plus, minus) > worst:
            worst, cert = max(plus, minus), lam
    ev.le("V(lambda) = 1 => second form <= 1 (max over multipliers)", worst, 1.0, rtol=1e-9)
    if worst > 1 + 1e-9:
        ev.certify(counterexample_lambda=cert, second_form_value=worst)
    return ev


@claim("wang2022.rem1.form2.amended", kind="remark", title="Remark 1 second form (amended: sufficient condition)",
       amends="wang2022.rem1.form2",
       statement=r"For spike-free $X$ and $Y\lambda \ge 0$: if $\max_{Xu\ge0,\|u\|\le1}\lambda^\top Y_+Xu\le1$ and "
                 r"$\min_{Xu\ge0,\|u\|\le1}\lambda^\top Y_-Xu\ge-1$ then $\lambda$ is dual feasible.",
       uses=["wang2022.rem1.form1"], hypotheses=[spike_free, full_rank],
       fixtures=[random(SLIDE), random(sf_mmatrix, N=4, d=4), adversarial(F2),
                 negative(sf_mmatrix, N=4, d=4, mutation="scale so that V(lambda) = 1.5 * second form")],
       judged_by="exact NNLS: multipliers scaled so that the second form equals 1; V(lambda) <= 1")
def rem1_form2_amended(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    D = complete_patterns(X)
    worst = 0.0
    for k in range(20):
        lam = y.copy() if k == 0 else y * fx.rng.exponential(size=len(y))
        _, plus, minus = _rem1_values(X, lam)
        lam = lam / max(plus, minus)
        V = dual_certificate(lam, X, D).value
        worst = max(worst, 1.5 * V if fx.mutated() else V)
    ev.le("max V(lambda) given second form <= 1", worst, 1.0, rtol=1e-9)
    return ev


@claim("wang2022.lem5", kind="lemma", title="Lemma 5 (certificate for (52))",
       statement=r"If $u_0 = X^\top D_0\lambda$, $\|u_0\|\le1$, then for every $D_j\in\mathcal{P}$ agreeing with $D_0$ on "
                 r"$\{\lambda>0\}$: $\max_{(2D_j-I)Xu\ge0,\|u\|\le1}\lambda^\top D_jXu \le 1$, certified by "
                 r"$(z_j)_n = -\lambda_n$ where $D_j, D_0$ differ.",
       fixtures=[random(gen_gauss, N=8, d=3), random(os_cones), adversarial(SLIDE),
                 negative(gen_gauss, N=8, d=3, mutation="D_j may differ on {lambda > 0}")],
       judged_by="exact algebra: z_j >= 0 and X^T D_j lambda + X^T(2D_j - I) z_j = u_0 (1e-12); NNLS value <= 1 + 1e-10")
def lem5(fx):
    ev = Evidence()
    X = fx["X"]
    D = complete_patterns(X)
    N = X.shape[0]
    zmin, resid, vmax = np.inf, 0.0, 0.0
    for _ in range(30):
        lam = fx.rng.normal(size=N)
        j = fx.rng.integers(D.shape[0])
        Dj = D[j]
        flip = fx.rng.uniform(size=N) < 0.5
        allowed = lam <= 0 if not fx.mutated() else np.ones(N, dtype=bool)
        D0 = np.where(flip & allowed, 1 - Dj, Dj)
        u0 = X.T @ (D0 * lam)
        if np.linalg.norm(u0) < 1e-8:
            continue
        lam = lam / np.linalg.norm(u0)
        u0 = X.T @ (D0 * lam)
        z = np.where(D0 != Dj, -lam, 0.0)
        zmin = min(zmin, float(z.min()))
        resid = max(resid, float(np.linalg.norm(X.T @ (Dj * lam) + X.T @ ((2 * Dj - 1) * z) - u0)))
        vmax = max(vmax, _max_positive(X, lam, Dj[None, :]))
    if fx.mutated():
        ev.le("max_j v_j^+(lambda) (should be <= 1)", vmax, 1.0, rtol=1e-10)
        ev.ge("certificate z_j >= 0", zmin, 0.0, atol=1e-12)
    else:
        ev.ge("certificate z_j >= 0", zmin, 0.0, atol=1e-12)
        ev.le("||X^T D_j lambda + X^T (2D_j - I) z_j - u_0||", resid, 0.0, atol=1e-12)
        ev.le("max v_j^+(lambda) over the 30 draws", vmax, 1.0, rtol=1e-10)
    return ev


@claim("wang2022.lem6", kind="lemma", title="Lemma 6 (monotonicity for orthogonally separable data)",
       statement=r"OS data, $Y\lambda\ge0$, $u_0 = X^\top D_0\lambda$, $\|u_0\|\le 1$: for any mask $D_j \le D_0$, "
                 r"$\|X^\top D_j\lambda\| \le \|u_0\| \le 1$.",
       hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=5, Np=4, Nn=7), adversarial(os_boundary, d=3),
                 negative(OBTUSE_SAME), negative(gen_gauss, N=8, d=3)],
       judged_by="exact algebra on 200 random (lambda, D_0 >= D_j); also (lambda lambda^T) o G >= 0 entrywise")
def lem6(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    N = len(y)
    G = X @ X.T
    worst, entry = -np.inf, np.inf
    for _ in range(200):
        lam = y * fx.rng.exponential(size=N)
        D0 = (fx.rng.uniform(size=N) < 0.7).astype(float)
        Dj = D0 * (fx.rng.uniform(size=N) < 0.6)
        worst = max(worst, np.linalg.norm(X.T @ (Dj * lam)) - np.linalg.norm(X.T @ (D0 * lam)))
        entry = min(entry, float(np.min(np.outer(lam, lam) * G)))
    ev.le("max ||X^T D_j lambda|| - ||X^T D_0 lambda||", worst, 0.0, atol=1e-12)
    ev.ge("min entry of (lambda lambda^T) o G", entry, 0.0, atol=1e-12)
    return ev


not_checkable(
    "wang2022.rem1", kind="remark", title="Remark 1 (dual constraint for spike-free data)",
    statement=r"For spike-free data the dual constraint is equivalent to $\max_{Xu\ge0,\|u\|\le1}|\lambda^\top Xu|\le1$, "
              r"or equivalently $\max_{Xu\ge0,\|u\|\le1}\lambda^\top Y_+Xu\le1$ and $\min_{Xu\ge0}\lambda^\top Y_-Xu\ge-1$.",
    reason="checked through its sub-claims wang2022.rem1.form1 (first form) and wang2022.rem1.form2 ('or equivalently')",
    uses=["wang2022.rem1.form1", "wang2022.rem1.form2"])
