"""Definitions, in-text definitions and remarks of Wang & Pilanci (2022) (App. A.1, Secs. 2-4)."""

from __future__ import annotations

import math

import numpy as np

from fixtures.wang2022 import F1, F2, OBTUSE_SAME, SLIDE, gen_gauss, low_rank, os_cones, sf_mmatrix
from verify import Evidence, adversarial, claim, erratum, hypothesis, negative, not_checkable, random
from verify.numerics.patterns import cover_count, enumerate_patterns, is_spike_free

from ._numerics import spike_free_sampled

not_checkable(
    "wang2022.def1", kind="definition", title="Definition 1 (B- and Clarke subdifferential)",
    statement=r"$\partial_B F(x) = \{\lim_k F'(x_k) : x_k \in D_F, x_k \to x\}$, $\partial^\circ F(x) = \mathrm{co}\,\partial_B F(x)$.",
    reason="definition: used as the boundary-pattern choice of the KKT predicate (D^ entries in {0,1} for the "
           "B-version, [0,1] for the Clarke version) in prop3, thm3, thm3.clarke")

for cid, title, stmt in [
    ("wang2022.def.os", "orthogonal separability (binary, Sec. 3.1)",
     r"$x_n^\top x_{n'} > 0$ if $y_n = y_{n'}$ and $x_n^\top x_{n'} \le 0$ otherwise."),
    ("wang2022.def.os_mc", "orthogonal separability among multiple classes (Sec. 2)",
     r"$x_n^\top x_{n'} > 0$ if $n, n'$ share a class and $\le 0$ otherwise."),
    ("wang2022.def.rectified_ellipsoid", "rectified ellipsoid Q and its absolute polar Q* (eq. 10)",
     r"$\mathcal{Q} = \{(Xu)_+ : \|u\|_2 \le 1\}$, $\mathcal{Q}^* = \{\lambda : \max_{z\in\mathcal{Q}} |\lambda^\top z| \le 1\}$."),
    ("wang2022.def.lambda_tilde", "dual variable of the flow (eq. 19)",
     r"$\tilde\lambda_n = -y_n \ell'(q_n)$, $q_n = y_n f(\theta; x_n)$."),
    ("wang2022.def.g", "g(sigma, lambda) (eqs. 20-21)",
     r"$g(\sigma,\lambda) = \sum_{n:\sigma_n>0} \lambda_n x_n$, $g(u,\lambda) = X^\top D(u)\lambda$."),
    ("wang2022.def.gmin", "g_min, g_max (eqs. 24, 79)",
     r"$g_{\min} = \min_{\sigma\in Q, g(\sigma,y/4)\ne 0} \|g(\sigma, y/4)\|$, $g_{\max} = \max_\sigma \|g(\sigma,y/4)\|$."),
    ("wang2022.def.time_bounds", "T* and T_shift (eqs. 26-27)",
     r"hitting times of $z' = g_0(a^2 - z^2)$, $a = \sqrt{1-\delta/8}$, of the levels $1-\delta$ and $c$."),
    ("wang2022.def.scaled", "scaled (balanced) initialisation",
     r"$\|w_{1,i}(0)\|_2 = |w_{2,i}(0)|$ for all $i$."),
]:
    not_checkable(cid, kind="definition", title=title, statement=stmt,
                  reason="in-text definition: implemented as a hypothesis predicate or a function in "
                         "theorems/wang2022 (_hyp.py, _numerics.py) and exercised by the claims that use it")

not_checkable(
    "wang2022.rem2", kind="remark", title="Remark 2 (Maennel et al. 2018)",
    statement="Proposition 6 resembles Lemma 4 of Maennel et al. (2018), whose proof ignores changes of sign(Xw) "
              "along the flow; App. D.4 corrects this.",
    reason="commentary on another paper's proof; the related observable (pattern switches during the early "
           "phase) is recorded by wang2022.lem3")


@claim("wang2022.def2", kind="definition", title="Definition 2 (spike-free matrices)",
       fidelity="definitional",
       fidelity_note="a definition: the check tests the harness's exact spike-free predicate against the "
                     "definition sampled on 20000 unit vectors",
       statement=r"$X$ is spike-free iff for all $\|u\|_2 \le 1$ there is $\|z\|_2 \le 1$ with $(Xu)_+ = Xz$.",
       fixtures=[random(sf_mmatrix), random(F2), random(gen_gauss, N=4, d=3), adversarial(SLIDE),
                 adversarial(F1), adversarial(OBTUSE_SAME),
                 negative(F1, mutation="predicate says every invertible X is spike-free")],
       judged_by="patterns.is_spike_free (exact: offdiag((XX^T)^{-1}) <= 0 at full row rank, else the range "
                 "condition over all cells) against the definition sampled "
                 "on 20000 unit vectors: sampling may only certify 'not spike-free'")
def def2(fx):
    ev = Evidence()
    X = fx["X"]
    exact = is_spike_free(X)[0]
    if fx.mutated():
        exact = np.linalg.matrix_rank(X) == min(X.shape)
    zmax, resid = spike_free_sampled(X, fx.rng)
    sampled_violation = zmax > 1 + 1e-9 or resid > 1e-9
    ev.record(exact_spike_free=bool(exact), sampled_max_norm=zmax, sampled_range_residual=resid)
    if exact:
        ev.le("max ||X^+ (Xu)_+|| over samples (spike-free => <= 1)", zmax, 1.0, rtol=1e-9)
        ev.le("range residual ||(I - XX^+)(Xu)_+|| (spike-free => 0)", resid, 0.0, atol=1e-9)
    else:
        ev.true("a sampled u certifies 'not spike-free'", sampled_violation,
                detail=f"max norm {zmax:.6f}, range residual {resid:.3e}")
    return ev


def _two_points_if_amended(fx):
    n = fx["X"].shape[0]
    if not fx.amended:
        return True, None, "printed statement: any N"
    return n >= 2, float(n - 2), "(amended) N >= 2"


at_least_two_points = hypothesis("(amended) N >= 2", _two_points_if_amended,
                                 description="the amended Cover bound; the printed one is stated for every N")

NO_2R = "factor 2r dropped: p <= (e(N-1)/r)^r"


@claim("wang2022.def.patterns", kind="definition", title="activation patterns P (eq. 6) and Cover's bound on p",
       fidelity="faithful",
       statement=r"$\mathcal{P} = \{\mathrm{diag}(1(Xw \ge 0)) : w \in \mathbb{R}^d\} = \{D_1,\dots,D_p\}$ and "
                 r"$p \le 2r\,(e(N-1)/r)^r$ with $r = \mathrm{rank}(X)$ (Cover, 1965).",
       hypotheses=[at_least_two_points],
       erratum=erratum(
           independence="exact arithmetic",
           kind="imprecision",
           location="Sec. 2, after eq. (6) (p. 3)",
           printed="From (Cover, 1965), we have an upper bound p <= 2r (e(N-1)/r)^r where r = rank(X).",
           reading="the OCR reads 'P <= 2r (e(NT))'; the bound is the one of Pilanci & Ergen (2020), which the paper "
                   "follows for (7), p <= 2r (e(N-1)/r)^r; p = |P| with P defined by eq. (6) ('>=', so w = 0 gives "
                   "D = I); the statement puts no condition on N",
           second_method="exact arithmetic: for N = 1 (x_1 != 0, r = 1), P = {diag(1), diag(0)} (w with x_1^T w >= 0 "
                         "or < 0), so p = 2, while 2r (e(N-1)/r)^r = 2 (e 0)^1 = 0 exactly (sympy, in the tests); for "
                         "every N >= 2 the enumerated p stays below the bound (tightest at N = r = 2: 4 <= 7.39)",
           summary="the printed bound is 0 at N = 1 while p = 2: Cover's estimate needs N >= 2 (any rank); harmless",
           amended=r"$p \le 2r\,(e(N-1)/r)^r$ for $N \ge 2$ (the exact count for rows in general position is "
                   r"$2\sum_{k<r}\binom{N-1}{k}$).",
           difference="adds N >= 2"),
       fixtures=[random(gen_gauss), random(gen_gauss, N=12, d=2), random(low_rank), random(sf_mmatrix),
                 random(low_rank, N=1, d=3, r=1, expect={"vacuous"}), adversarial(sf_mmatrix, N=2, d=2),
                 adversarial(low_rank, N=2, d=3, r=1), adversarial(os_cones, Np=20, Nn=20, d=4),
                 negative(sf_mmatrix, N=2, d=2, mutation=NO_2R)],
       judged_by="exact enumeration of the open cells (patterns.enumerate_patterns, certified complete) plus D = I "
                 "(w = 0): all of P for rows in general position in their span; Cover's exact count "
                 "2 sum_{k<r} C(N-1, k) recorded beside. Class: full row rank N = r (the bound's tightest case, N = r = "
                 "2), rank-deficient r < d, r = 1, N up to 40, and the edge N = 1 (outside the amended statement)")
def def_patterns(fx):
    ev = Evidence()
    X = fx["X"]
    N = X.shape[0]
    ps = enumerate_patterns(X)
    ev.valid("pattern enumeration certified complete", bool(ps.complete))
    P = {tuple(row) for row in ps.D.astype(int)} | {(1,) * N}    # eq. (6) with '>=': w = 0 gives D = I
    r = int(np.linalg.matrix_rank(X))
    bound = 2 * r * (math.e * (N - 1) / r) ** r
    if fx.mutated(NO_2R):
        bound /= 2 * r
    ev.le("p = |P| <= 2r (e(N-1)/r)^r" + (f" [{NO_2R}]" if fx.mutated() else ""), float(len(P)), bound, rtol=0.0)
    ev.record(p=len(P), open_cells=int(ps.D.shape[0]), rank=r, N=N, cover_exact_count=cover_count(N, r),
              bound=bound)
    return ev
