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
    os_boundary,
    os_cones,
    sf_illcond,
    sf_mmatrix,
    sf_orthogonal,
)
from verify import Evidence, adversarial, claim, erratum, negative, random
from verify.claims import declare_amended
from verify.numerics.convex import dual_certificate

from ._hyp import full_rank, orthogonally_separable, spike_free
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
    D_- >= diag(1(y=-1)), scaled so that max(||X^T D_+ lambda||, ||X^T D_- lambda||) = 1 (tight case).
    Returns lambda and the two norms (b_+, b_-) after scaling."""
    X, y = fx["X"], fx["y"]
    N = len(y)
    lam = y * rng.exponential(size=N) * (rng.uniform(size=N) > 0.2)
    dp = np.where(y > 0, 1.0, (rng.uniform(size=N) < 0.5).astype(float))
    dm = np.where(y < 0, 1.0, (rng.uniform(size=N) < 0.5).astype(float))
    bp, bm = np.linalg.norm(X.T @ (dp * lam)), np.linalg.norm(X.T @ (dm * lam))
    s = max(bp, bm)
    return (lam / s, bp / s, bm / s) if s > 0 else (lam, bp, bm)


MIN_NORM = "bound min(||X^T D_+ lambda||, ||X^T D_- lambda||) in place of their max"


def _core(fx, ev: Evidence) -> None:
    """The implication of Propositions 4-5 (spec §3): Y lambda >= 0 and covering D_+-, with ||X^T D_+- lambda||
    <= 1, give V(lambda) <= 1 (exact per-pattern NNLS over all patterns); the mutated control bounds V(lambda) by the
    smaller of the two covering norms instead."""
    X = fx["X"]
    D = complete_patterns(X)
    Vs, bounds, r2_err, lams = [], [], 0.0, []
    for _ in range(N_LAMBDA):
        lam, bp, bm = _covering_lambda(fx, fx.rng)
        V = dual_certificate(lam, X, D).value
        Vs.append(V)
        bounds.append(min(bp, bm) if fx.mutated(MIN_NORM) else 1.0)
        lams.append(lam)
        r2 = max(np.linalg.norm(X.T @ np.maximum(lam, 0)), np.linalg.norm(X.T @ np.minimum(lam, 0)))
        r2_err = max(r2_err, abs(V - r2) / max(r2, 1e-300))
    ev.forall(f"V(lambda) <= {'min covering norm' if fx.mutated(MIN_NORM) else '1'}, every covering multiplier "
              f"({N_LAMBDA} drawn, scaled so that the larger covering norm is 1)", Vs, bounds, relation="<=", rtol=1e-9)
    ev.record(max_V=max(Vs), R2_closed_form_rel_error=r2_err, patterns=D.shape[0])
    i = int(np.argmax(np.array(Vs) - np.array(bounds)))
    if Vs[i] > bounds[i] * (1 + 1e-9):
        ev.certify(lambda_counterexample=lams[i])


@claim("wang2022.prop4", kind="proposition", title="Proposition 4 (orthogonal separability => dual feasible)",
       fidelity="faithful",
       statement=r"If $(X,y)$ is orthogonally separable and the KKT point has neurons $i_\pm$ with "
                 r"$\hat D_{i_+} \ge \mathrm{diag}(1(y=1))$, $\hat D_{i_-} \ge \mathrm{diag}(1(y=-1))$, then $\lambda$ is "
                 r"dual feasible (16).",
       uses=["wang2022.lem5", "wang2022.lem6", "wang2022.prop3"],
       hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=4, Np=5, Nn=4), adversarial(os_boundary, d=3),
                 adversarial(F1), adversarial(os_cones, theta_deg=44.5), adversarial(shared_os_near_boundary),
                 adversarial(shared_os_boundary), negative(OBTUSE_SAME), negative(gen_gauss, N=8, d=3),
                 negative(os_cones, mutation=MIN_NORM)],
       judged_by="core implication (spec §3): Y lambda >= 0, ||X^T D_+- lambda|| <= 1 with covering D_+- => "
                 "V(lambda) <= 1 by exact per-pattern NNLS over all patterns; 40 multipliers per fixture, scaled to the "
                 "tight case (the larger covering norm = 1). Class: cross-label products exactly 0 (os_boundary, "
                 "os.boundary) and near 0 (os.near_boundary), same-label angles up to 89 deg (theta = 44.5 deg)")
def prop4(fx):
    ev = Evidence()
    _core(fx, ev)
    return ev


@claim("wang2022.prop5", kind="proposition", title="Proposition 5 (spike-free => dual feasible)",
       fidelity="faithful",
       statement=r"Proposition 4 with '$X$ is spike-free' in place of orthogonal separability.",
       uses=["wang2022.def2", "wang2022.prop3"], hypotheses=[spike_free, full_rank],
       fixtures=[random(sf_mmatrix), random(sf_mmatrix, N=4, d=4), adversarial(F2), adversarial(SLIDE),
                 adversarial(sf_illcond), adversarial(sf_orthogonal),
                 negative(F1), negative(OBTUSE_SAME), negative(sf_mmatrix, N=4, d=4, mutation=MIN_NORM)],
       judged_by="core implication as prop4 on spike-free X (exact NNLS over all patterns). Class: spike-free at its "
                 "boundary (orthogonal rows: offdiag((XX^T)^-1) = 0 exactly), nearly rank-deficient (cond ~ 1e3)")
def prop5(fx):
    ev = Evidence()
    _core(fx, ev)
    return ev


REVERSED_64 = "reversed inequality (lhs >= rhs)"


@claim("wang2022.prop5.eq64", kind="claim", title="Proof of Proposition 5, step (64)",
       fidelity="faithful",
       no_room="an equality of two maxima per multiplier (printed) and a pointwise inequality (amended), at "
               "rounding level",
       statement=r"$\max_{\|u\|\le1}\lambda^\top(Xu)_+ = \max_{\|u\|\le1}\lambda^\top Y_+(Xu)_+$ for spike-free $X$, "
                 r"$Y\lambda\ge0$.",
       uses=["wang2022.def2"], hypotheses=[spike_free, full_rank],
       erratum=erratum(
           independence="closed form",
           kind="proof-step error",
           location="App. C.2, proof of Proposition 5, eqs. (64) and (66) (p. 16)",
           printed="max_{||u||_2 <= 1} lambda^T (Xu)_+ = max_{||u||_2 <= 1} lambda^T Y_+ (Xu)_+, using "
                   "lambda^T Y_+ X z = lambda^T X z for the z with (Xu)_+ = X z given by spike-freeness",
           reading="Y_+ = diag(1(y = 1)) (App. C.2); lambda with Y lambda >= 0 (dual feasible sign), both maxima over "
                   "the unit ball, as in (64); the step is an equality in the proof",
           second_method="closed form: on SLIDE (spike-free: x_1^T x_2 >= 0) with lambda = (1, -1) the left side is "
                         "max_u (u_1)_+ - (x_2^T u)_+ = 0.5 (at u = (0.5, -0.866)) and the right side max_u (u_1)_+ = 1; "
                         "a 200001-point circle grid gives the same 0.5 and 1 (tests)",
           summary="(64) uses lambda^T Y_+ X z = lambda^T X z, false in general (SLIDE, lambda = (1, -1): 0.5 vs 1); "
                   "Proposition 5 survives, it needs only the one-sided inequality",
           amended=r"$\max_{\|u\|\le1}\lambda^\top(Xu)_+ \le \max_{\|u\|\le1}\lambda^\top Y_+(Xu)_+$ whenever "
                   r"$Y\lambda \ge 0$ (it holds for any $X$: $\lambda^\top(Xu)_+ \le \lambda^\top Y_+(Xu)_+$ pointwise); "
                   r"this is all the proof of Proposition 5 needs.",
           difference="equality -> inequality <= (pointwise, since lambda_n <= 0 off Y_+)"),
       fixtures=[random(SLIDE), random(sf_mmatrix), adversarial(sf_illcond), adversarial(sf_orthogonal),
                 negative(F1), negative(SLIDE, mutation=REVERSED_64)],
       judged_by="exact per-pattern NNLS for both sides, 11 multipliers (one is y); adversarial fixtures add a "
                 "Nelder-Mead search, maximising |lhs - rhs| / max(lhs, rhs) (printed) or lhs - rhs at rhs = 1 "
                 "(amended). Class: spike-free at its boundary (orthogonal rows) and nearly rank-deficient")
def prop5_eq64(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    D = complete_patterns(X)
    lams = [y.copy()] + [y * fx.rng.exponential(size=len(y)) for _ in range(10)]
    amended = fx.amended or fx.mutated()       # the mutated control reverses the (amended) inequality
    if fx.kind == "adversarial":
        if amended:
            def score(lam):
                rhs = _max_positive(X, lam * (y > 0), D)
                return (_max_positive(X, lam, D) - rhs) / max(rhs, 1e-300)
        else:
            def score(lam):
                lhs, rhs = _max_positive(X, lam, D), _max_positive(X, lam * (y > 0), D)
                return abs(lhs - rhs) / max(lhs, rhs, 1e-300)
        best, lam_s = search_lambda(y, score, fx.rng)
        lams.append(lam_s / max(_max_positive(X, lam_s * (y > 0), D), 1e-300))
        ev.record(search_best_score=best)
    lhs = np.array([_max_positive(X, lam, D) for lam in lams])
    rhs = np.array([_max_positive(X, lam * (y > 0), D) for lam in lams])
    if fx.mutated(REVERSED_64):
        ev.forall("lhs - rhs >= 0, every multiplier [reversed]", lhs - rhs, 0.0, relation=">=", atol=1e-9)
    elif fx.amended:
        ev.forall("lhs - rhs <= 0, every multiplier", lhs - rhs, 0.0, relation="<=", atol=1e-9)
    else:
        ev.forall("|lhs - rhs| / rhs, every multiplier (equality (64))", np.abs(lhs - rhs) / np.maximum(rhs, 1e-300),
                  1e-9, relation="<=", rtol=0.0, room=None)
        k = int(np.argmax(np.abs(lhs - rhs)))
        if abs(lhs[k] - rhs[k]) > 1e-9:
            ev.certify(counterexample={"X": X, "y": y, "lambda": lams[k], "lhs": lhs[k], "rhs": rhs[k]})
    return ev


declare_amended(
    "wang2022.prop5.eq64.amended", fidelity="definitional",
    no_room="a pointwise inequality (lambda_n <= 0 off Y_+) judged with atol 1e-9",
    fidelity_note="holds pointwise for any X once Y lambda >= 0 (lambda^T (Xu)_+ <= lambda^T Y_+ (Xu)_+ term by term): "
                  "what it adds is only that this one-sided step is all the proof of Proposition 5 needs")


def _rem1_values(X, lam):
    """(max_{Xu>=0,||u||<=1} |lambda^T X u|, max lambda_+^T X u, max -lambda_-^T X u) on the single cone Xu >= 0
    (the all-ones pattern), by ``convex.dual_certificate``."""
    ones = np.ones((1, X.shape[0]))
    form1 = dual_certificate(lam, X, ones).value
    plus = float(dual_certificate(np.maximum(lam, 0.0), X, ones)["pattern_values"][0, 0])
    minus = float(dual_certificate(np.minimum(lam, 0.0), X, ones)["pattern_values"][0, 1])
    return form1, plus, minus


NO_CONE = "cone constraint dropped: max over all ||u|| <= 1 of |lambda^T X u|"


def _rem1_form1(ev: Evidence, fx) -> None:
    """Remark 1's first form: V(lambda) (all patterns) = max over the single cone Xu >= 0 of |lambda^T X u|."""
    X = fx["X"]
    D = complete_patterns(X)
    err = []
    for _ in range(20):
        lam = fx.rng.normal(size=X.shape[0])
        right = float(np.linalg.norm(X.T @ lam)) if fx.mutated(NO_CONE) else _rem1_values(X, lam)[0]
        err.append(abs(dual_certificate(lam, X, D).value - right))
    ev.forall("|V(lambda) - max_{Xu>=0,||u||<=1} |lambda^T X u||, 20 random lambda (first form)"
              + (f" [{NO_CONE}]" if fx.mutated(NO_CONE) else ""), err, 1e-9, relation="<=", rtol=0.0, room=None)


@claim("wang2022.rem1.form1", kind="remark", title="Remark 1 (first form)",
       fidelity="faithful",
       no_room="an equality of two maxima, judged at rounding level (1e-9)",
       statement=r"For spike-free $X$: $\max_{\|u\|\le1}|\lambda^\top(Xu)_+| = \max_{Xu\ge0,\|u\|\le1}|\lambda^\top Xu|$.",
       uses=["wang2022.def2"], hypotheses=[spike_free, full_rank],
       fixtures=[random(sf_mmatrix), random(sf_mmatrix, N=4, d=5), adversarial(F2), adversarial(SLIDE),
                 adversarial(sf_illcond), adversarial(sf_orthogonal), negative(F1),
                 negative(sf_mmatrix, mutation=NO_CONE)],
       judged_by="exact NNLS: all patterns (left) vs the single cone Xu >= 0 (right); 20 random lambda; 1e-9. Class: "
                 "spike-free at its boundary (orthogonal rows) and nearly rank-deficient")
def rem1_form1(fx):
    ev = Evidence()
    _rem1_form1(ev, fx)
    return ev


ONLY_PLUS = "second form reduced to its Y_+ condition (the Y_- condition dropped)"


@claim("wang2022.rem1", kind="remark", title="Remark 1 (dual constraint for spike-free data)",
       fidelity="faithful",
       statement=r"For spike-free data the dual constraint is equivalent to $\max_{Xu\ge0,\|u\|\le1}|\lambda^\top Xu|\le1$, "
                 r"or equivalently $\max_{Xu\ge0,\|u\|\le1}\lambda^\top Y_+Xu\le1$ and "
                 r"$\min_{Xu\ge0}\lambda^\top Y_-Xu\ge-1$.",
       uses=["wang2022.def2", "wang2022.rem1.form1"], hypotheses=[spike_free, full_rank],
       erratum=erratum(
           independence="closed form", root="wang2022.prop5.eq64",
           kind="false statement",
           location="Sec. 3.1, Remark 1 (p. 7)",
           printed="For spike-free data, the dual constraint max_{||u||_2 <= 1} |lambda^T (Xu)_+| <= 1 is equivalent to "
                   "max_{Xu >= 0, ||u||_2 <= 1} |lambda^T X u| <= 1, or equivalently, max_{Xu >= 0, ||u||_2 <= 1} "
                   "lambda^T Y_+ X u <= 1 and min_{Xu >= 0} lambda^T Y_- X u >= -1.",
           reading="lambda in the dual's sign orthant Y lambda >= 0 (the dual (15) imposes it); the missing ||u||_2 <= 1 "
                   "in the min is read as present (without it the min is -inf or 0 and the form makes no sense); Y_+, "
                   "Y_- = diag(1(y = +-1)) as in App. C.2",
           second_method="closed form: on SLIDE with lambda = c (1, -1), 1 < c <= 2, the dual constraint holds "
                         "(max |lambda^T (Xu)_+| = 0.5 c <= 1, and max_{Xu>=0} |lambda^T X u| = 0.5 c) but "
                         "max_{Xu>=0,||u||<=1} lambda^T Y_+ X u = c x_1^T e_1 = c > 1 (u = e_1 lies in the cone: "
                         "x_2^T e_1 = 0.866 >= 0); a 200001-point circle grid gives 0.5 and 1 at c = 1, and an "
                         "independent cvxpy SOCP on ill-conditioned spike-free data gives the same gap (tests)",
           summary="the first form holds (wang2022.rem1.form1) but the 'or equivalently' form is only a sufficient "
                   "condition: SLIDE, lambda = c (1, -1), c in (1, 2]: dual feasible, second form violated",
           amended=r"For spike-free $X$ and $Y\lambda\ge0$: the dual constraint equals the first form, and the second form "
                   r"($\max_{Xu\ge0,\|u\|\le1}\lambda^\top Y_+Xu\le1$ and $\min_{Xu\ge0,\|u\|\le1}\lambda^\top "
                   r"Y_-Xu\ge-1$) is sufficient for it, not necessary.",
           difference="'or equivalently' -> 'sufficient for'"),
       fixtures=[random(SLIDE), random(sf_mmatrix, N=4, d=4), adversarial(sf_illcond), adversarial(sf_orthogonal),
                 adversarial(F2), negative(F1), negative(sf_mmatrix, N=4, d=4, mutation=ONLY_PLUS)],
       judged_by="first form as wang2022.rem1.form1; second form: multipliers lambda = y o Exp(1) (one is y) scaled so "
                 "that V(lambda) = 1 (printed: the second form must then hold, <= 1) and scaled so that the second form "
                 "equals 1 (V(lambda) <= 1 must follow), exact NNLS; adversarial fixtures add a Nelder-Mead search "
                 "maximising the second form at V(lambda) = 1")
def rem1(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    D = complete_patterns(X)
    lams = [y.copy()] + [y * fx.rng.exponential(size=len(y)) for _ in range(19)]
    if fx.mutated(ONLY_PLUS):
        # sufficiency with only the Y_+ condition: scale so that it equals 1, then V(lambda) <= 1 must follow
        Vs = [dual_certificate(lam / _rem1_values(X, lam)[1], X, D).value for lam in lams
              if _rem1_values(X, lam)[1] > 0]
        ev.forall(f"V(lambda) <= 1 whenever the Y_+ condition holds with equality [{ONLY_PLUS}]", Vs, 1.0,
                  relation="<=", rtol=1e-9)
        return ev
    _rem1_form1(ev, fx)
    # sufficiency (both variants): second form = 1 => V(lambda) <= 1
    suff = []
    for lam in lams:
        _, plus, minus = _rem1_values(X, lam)
        suff.append(dual_certificate(lam / max(plus, minus), X, D).value)
    ev.forall("second form <= 1 => V(lambda) <= 1 (multipliers scaled so that the second form is 1)", suff, 1.0,
              relation="<=", rtol=1e-9)
    if fx.amended:
        return ev
    # necessity (printed 'equivalently'): V(lambda) = 1 => second form <= 1
    if fx.kind == "adversarial":
        def second_form(lam):
            form1, plus, minus = _rem1_values(X, lam)
            return max(plus, minus) / max(form1, 1e-300)
        best, lam_s = search_lambda(y, second_form, fx.rng)
        lams.append(lam_s)
        ev.record(search_max_second_form=best)
    nec = []
    for lam in lams:
        lam = lam / _rem1_values(X, lam)[0]  # the dual constraint now holds with equality
        _, plus, minus = _rem1_values(X, lam)
        nec.append(max(plus, minus))
    ev.forall("V(lambda) = 1 => second form <= 1 ('or equivalently')", nec, 1.0, relation="<=", rtol=1e-9)
    k = int(np.argmax(nec))
    if nec[k] > 1 + 1e-9:
        ev.certify(counterexample_lambda=lams[k], second_form_value=nec[k])
    return ev


@claim("wang2022.lem5", kind="lemma", title="Lemma 5 (certificate for (52))",
       cannot_fail="an exact algebraic certificate: the lemma's hypotheses (D_j agreeing with D_0 on {lambda > "
                   "0}, ||u_0|| <= 1) are drawn inside the check, so no fixture breaks them; the control letting"
                   " D_j differ on {lambda > 0} is refuted (v_j^+ > 1)",
       fidelity="faithful",
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


REVERSED_6 = "reversed monotonicity: masking more increases the norm"


@claim("wang2022.lem6", kind="lemma", title="Lemma 6 (monotonicity for orthogonally separable data)",
       fidelity="faithful",
       no_room="a monotonicity (norm after masking <= before) per draw, at rounding level",
       statement=r"OS data, $Y\lambda\ge0$, $u_0 = X^\top D_0\lambda$, $\|u_0\|\le 1$: for any mask $D_j \le D_0$, "
                 r"$\|X^\top D_j\lambda\| \le \|u_0\| \le 1$.",
       hypotheses=[orthogonally_separable],
       fixtures=[random(os_cones), random(os_cones, d=5, Np=4, Nn=7), adversarial(os_boundary, d=3),
                 negative(OBTUSE_SAME), negative(gen_gauss, N=8, d=3),
                 negative(os_cones, mutation=REVERSED_6)],
       judged_by="exact algebra on 200 random (lambda, D_0 >= D_j); also (lambda lambda^T) o G >= 0 entrywise. Class: "
                 "cross-label products exactly 0 (os_boundary)")
def lem6(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    N = len(y)
    G = X @ X.T
    worst, best, entry = -np.inf, np.inf, np.inf
    for _ in range(200):
        lam = y * fx.rng.exponential(size=N)
        D0 = (fx.rng.uniform(size=N) < 0.7).astype(float)
        Dj = D0 * (fx.rng.uniform(size=N) < 0.6)
        diff = np.linalg.norm(X.T @ (Dj * lam)) - np.linalg.norm(X.T @ (D0 * lam))
        worst, best = max(worst, diff), min(best, diff)
        entry = min(entry, float(np.min(np.outer(lam, lam) * G)))
    if fx.mutated(REVERSED_6):
        ev.ge("min ||X^T D_j lambda|| - ||X^T D_0 lambda|| [masking more increases the norm]", best, 0.0, atol=1e-12)
        return ev
    ev.le("max ||X^T D_j lambda|| - ||X^T D_0 lambda||", worst, 0.0, atol=1e-12)
    ev.ge("min entry of (lambda lambda^T) o G", entry, 0.0, atol=1e-12)
    return ev
