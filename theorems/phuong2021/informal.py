"""Informal claims of Sections 2, 3 and 5 (I1-I7 of the spec)."""

from __future__ import annotations

import numpy as np

from fixtures import orthogonal as osd
from fixtures import phuong2021 as ph
from verify import Evidence, adversarial, claim, hypothesis, judge_trend, negative, not_checkable, random
from verify.numerics.patterns import is_orthogonally_separable
from verify.numerics.sectors import sphere_samples

from . import limit
from ._dynamics import groups, limit_distance, log_time_gd, net
from ._geometry import class_geometry, extremal_sectors
from .hypotheses import balanced_init, loss_conditions, near_zero_init, orthogonally_separable


def _separators(fx, strict):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    M = (y[:, None] * X) @ (y[:, None] * X).T          # M[k, j] = y_k y_j x_k^T x_j
    same = np.equal.outer(y, y)
    if strict:
        ev.ge("min_{k,j} y_j (y_k x_k)^T x_j (every example a strict separator)", float(M.min()), 0.0, atol=0.0,
              detail="> 0 required")
        ev.true("strictly positive everywhere", bool(np.all(M > 0)))
    else:
        ev.ge("min over cross-class pairs of y_j (y_k x_k)^T x_j (weak separation)", float(M[~same].min()), 0.0,
              atol=0.0)
        ev.true("same-class pairs strictly separated", bool(np.all(M[same] > 0)))
    return ev


@claim("phuong2021.i1", kind="remark", title="I1: OS means every example is a linear separator (Section 2)",
       statement=r"'(X, y) is orthogonally separable iff it is linearly separable and any training example $x_i$ can "
                 r"serve as a linear separator' (read: $y_j(y_kx_k)^\top x_j>0$ for all $j,k$).",
       hypotheses=[orthogonally_separable], expected="refuted",
       expected_reason="erratum E19: OS allows x_i^T x_j = 0 across classes, so y_k x_k separates the other class only "
                       "weakly (exact zeros on os.boundary)",
       fixtures=[random(osd.cones, d=3), random(osd.boundary), adversarial(osd.near_boundary),
                 negative(ph.acute_cross)],
       judged_by="exact sign of every y_j y_k x_k^T x_j")
def i1(fx):
    return _separators(fx, strict=True)


@claim("phuong2021.i1.amended", kind="remark", amends="phuong2021.i1", title="I1 (amended: weak separators)",
       statement=r"For OS data every $y_kx_k$ is a weak separator: $y_j(y_kx_k)^\top x_j\ge0$ for all $j$, strictly for "
                 r"same-class $j$.",
       hypotheses=[orthogonally_separable],
       fixtures=[random(osd.cones, d=3), random(osd.boundary), adversarial(osd.near_boundary),
                 negative(ph.acute_cross), negative(osd.boundary, mutation="strict separation demanded")],
       judged_by="exact sign of every y_j y_k x_k^T x_j")
def i1_amended(fx):
    return _separators(fx, strict=fx.mutated())


@claim("phuong2021.i2", kind="remark", title="I2: opposite orthants (Section 2)",
       statement=r"'Positive and negative examples lie in opposite orthants' (checked as a sufficient condition: data in "
                 r"opposite open orthants of any orthonormal basis are orthogonally separable).",
       fixtures=[random(osd.orthant, d=5), random(osd.orthant, d=2, n_pos=3, n_neg=3),
                 adversarial(osd.orthant, d=40, n_pos=200, n_neg=200),
                 negative(osd.orthant, d=5, mutation="negatives reflected into the positive orthant")],
       judged_by="exact evaluation of eq. (1) (the converse is not graded: informal)")
def i2(fx):
    ev = Evidence()
    X, y = fx["X"].copy(), fx["y"]
    if fx.mutated():
        X[y < 0] *= -1
    ev.true("eq. (1) holds", is_orthogonally_separable(X, y)[0])
    return ev


@claim("phuong2021.i3", kind="remark", title="I3: other losses (Section 2)",
       statement=r"The results hold for any differentiable loss with $\ell'$ bounded and Lipschitz and "
                 r"$-y_i\ell_i'(u)>0$ (checked: Theorem 1's limit under $\ell(m)=\frac12\log(1+e^{-2m})$).",
       hypotheses=[orthogonally_separable, balanced_init, near_zero_init, loss_conditions],
       uses=["phuong2021.thm1"],
       fixtures=[random(ph.span_net, loss="ce2"), adversarial(ph.span_net, loss="ce2", p=30, lam=1e-6),
                 negative(ph.span_net, loss="exp", label="exponential loss "
                                                                                        "(l' unbounded)"),
                 negative(ph.span_net, loss="ce2", mutation="every neuron converges to w_+")],
       judged_by="as phuong2021.thm1: D8 and D9 trends in log-time")
def i3(fx):
    return limit.thm1_check(fx, derived=False)


@claim("phuong2021.i5", kind="remark", title="I5: the support-span assumption could be lifted (Section 3.1)",
       statement=r"'The assumption that support vectors span $\mathbb R^d$ ... could be lifted': Theorem 1's limit on OS "
                 r"data whose support examples do not span $\mathbb R^d$.",
       hypotheses=[orthogonally_separable, balanced_init, near_zero_init, loss_conditions],
       uses=["phuong2021.thm1"],
       fixtures=[random(ph.cones_net, d=3), random(ph.orthant_net, profiles=("standard", "thorough")),
                 adversarial(ph.cones_net, d=5, n_pos=12, n_neg=12, half_angle=0.6, gap=0.05),
                 negative(ph.cones_net, d=3, mutation="every neuron converges to w_+")],
       judged_by="as phuong2021.thm1 (D8, D9 trends in log-time), on data violating the span assumption")
def i5(fx):
    return limit.thm1_check(fx, derived=False)


@claim("phuong2021.i6", kind="remark", title="I6: pruning to width two (Section 3)",
       statement=r"'The network could in principle be pruned down to a width of just two': replacing $J_+$ by one "
                 r"balanced neuron along $w_+$ and $J_-$ by one along $w_-$ changes $f/\|\theta\|^2$ by $o(1)$.",
       hypotheses=limit.THM1_HYPOTHESES, uses=["phuong2021.thm1"],
       fixtures=[random(ph.span_net), adversarial(ph.span_net, p=30, lam=1e-6, label="p = 30"),
                 negative(ph.span_net, mutation="pruned to width one (J_- dropped)")],
       judged_by="trend in log-time of max_x |f - f_pruned| / max_x |f| over 200 random unit x and the data "
                 "directions (tolerance 0.05 at s = 320)")
def i6(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    cg = class_geometry(X, y)
    sp, sn = extremal_sectors(X, y)
    tr = limit.limit_run(fx)
    if not tr.success:
        return ev.inconclusive(f"integrator: {tr.message}")
    Xt = np.vstack([sphere_samples(fx.rng, 200, X.shape[1]), X / np.linalg.norm(X, axis=1, keepdims=True)])
    errs = []
    for s in limit.HORIZONS:
        k = limit._at(tr, s)
        a, W = tr.a[k], tr.W[k]
        g = groups(a, W, X, sp, sn)
        ap, Wp = [], []
        for J, w, sgn in ((g["J+"], cg.w_pos, 1.0), (g["J-"], cg.w_neg, -1.0)):
            if J.size == 0 or (fx.mutated() and sgn < 0):
                continue
            c = np.sqrt(np.sum(W[J] ** 2))
            ap.append(sgn * c)
            Wp.append(c * w / np.linalg.norm(w))
        f = net(a, W, Xt)
        fp = net(np.array(ap), np.array(Wp), Xt) if ap else np.zeros_like(f)
        errs.append(float(np.max(np.abs(f - fp)) / np.max(np.abs(f))))
    judge_trend("max |f - f_pruned| / max |f|", limit.HORIZONS, errs, 0.05, evidence=ev, scale_label="log-time s")
    return ev


not_checkable(
    "phuong2021.i4", kind="remark", title="I4: near-zero init and OS are both crucial (Section 3.1)",
    uses=["phuong2021.i4.os"],
    statement=r"'Two assumptions ... near-zero initialisation and orthogonal separability; both are crucial for the "
              r"result to hold.'",
    reason="a statement about the failure of the conclusion outside the hypotheses; the OS part is checked by "
           "phuong2021.i4.os (obtuse same-class pair: no convergence); further evidence from the negative controls: non-OS data break Lemma 2's uniqueness (phuong.obtuse, phuong.xor), Lemma B.1 "
           "(phuong.acute_cross) and X10 (phuong.obtuse 130 deg); large init breaks Lemma 1's early-phase "
           "trichotomy (phuong2021.lem1, lambda = 1). Whether large init breaks Theorem 1's limit is open (E-R2)",
    proxy="phuong2021.lem2, phuong2021.lemB.1, phuong2021.lemC.1.global, phuong2021.lem1")

not_checkable(
    "phuong2021.i7", kind="remark", title="I7: empirical claims of Section 5 and Appendix D",
    statement=r"Rank two, correlation > 0.9 for most neurons (Fig. 1); deeper residual nets similar (Fig. 2); MNIST "
              r"7th-layer features orthogonally separable (App. D).",
    reason="reproduction targets, checked as experiments: Fig. 1 by phuong2021.exp.fig1, Fig. 2 by "
           "phuong2021.exp.fig2; App. D (MNIST) is registered as phuong2021.exp.mnist (not reproduced)",
    proxy="phuong2021.exp.fig1, phuong2021.exp.fig2")

not_orthogonally_separable = hypothesis(
    "data NOT orthogonally separable", lambda fx: (not orthogonally_separable.evaluate(fx).holds, None),
    description="the negation of eq. (1): the setting of I4's claim that OS is crucial")


@claim("phuong2021.i4.os", kind="remark", title="I4 (OS part): without orthogonal separability the limit fails",
       statement=r"'Orthogonal separability ... is crucial for the result to hold': on the obtuse same-class pair "
                 r"(positives at 0 and 130 degrees) the neurons do not converge to $uw_+^\top+zw_-^\top$.",
       hypotheses=[not_orthogonally_separable, balanced_init, near_zero_init], uses=["phuong2021.thm1"],
       fixtures=[random(ph.obtuse, theta2_deg=130.0), adversarial(ph.obtuse, theta2_deg=140.0),
                 negative(ph.span_net, d=2, n_pos=4, n_neg=4, p=20, lam=1e-5, label="OS data (span_net d=2)")],
       judged_by="log-time GD (dt = 0.002 (1+t)/max(1, log(1+t))) to s = 20: D8 (distance in (8)) must stay >= 0.3 and "
                 "must not shrink by more than 20% between s = 5 and s = 20")
def i4_os(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    cg = class_geometry(X, y)
    if not cg.feasible:
        return ev.inconclusive("w_+- undefined")
    S = [5.0, 10.0, 20.0]
    states = log_time_gd(X, y, fx["a0"], fx["W0"], S)
    D8 = [limit_distance(a, W, cg.w_pos, cg.w_neg)[0] for a, W in states]
    ev.ge("D8 at s = 20 (no convergence to the two max-margin neurons)", D8[-1], 0.3, rtol=0.0)
    ev.ge("D8(20)/D8(5) (no decay)", D8[-1] / D8[0], 0.8, rtol=0.0)
    ev.record(D8=D8, s=S)
    return ev
