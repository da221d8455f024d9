"""Assumptions, definitions and the data geometry of Min, Mallada & Vidal (2024): Assumptions 1-2,
Definition 1, the cones S+/S-/S_dead and K, Lemmas 5-9 and 11, and the unnumbered claims on the cones
(C-CONE, C-DEADEMPTY) and on random initialisation (C-RAND).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

from fixtures.min2024 import a2_violator, clusters, random_init, states, wellsep
from verify import Evidence, adversarial, claim, judge_binomial, negative, not_checkable, random

from .common import (
    A1,
    A2,
    MINUS,
    PLUS,
    class_sums,
    cos,
    lemma9_witness,
    membership,
    mu_of,
    signed_units,
    zeta1_star,
    zeta2_star,
)

BASE = dict(n_pos=3, n_neg=3, D=4, mu=0.6, h=8)
NEG_DATA = negative(clusters, label="min.clusters.mu_negative", noise=1.5)
NEG_STATES = negative(states, label="min.states.mu_negative", negative_mu=True)

# ---------------------------------------------------------------------------------------------
# Assumptions and definitions


@claim("min2024.asm1", kind="assumption",
       fidelity="definitional", no_room="the definition of mu and its sign pattern: an identity and a yes/no",
       title="Assumption 1 (well-separated data)",
       statement=r"$\mu:=\min_{i,j}\frac{\langle x_iy_i,x_jy_j\rangle}{\|x_i\|\|x_j\|}>0$.",
       hypotheses=[A1],
       fixtures=[random(wellsep, **BASE), random(wellsep, label="min.wellsep.mu_small", **{**BASE, "mu": 0.05}),
                 adversarial(wellsep, label="min.wellsep.mu_tiny", **{**BASE, "mu": 1e-3}),
                 adversarial(wellsep, label="min.wellsep.tilt", **{**BASE, "tilt": True}),
                 NEG_DATA, negative(wellsep, mutation="mu from the maximum", **BASE)],
       judged_by="predicate implementation against the generator's exact mu and a pairwise loop")
def asm1(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    mu = mu_of(X, y)
    loop = min(float(y[i] * y[j] * X[i] @ X[j] / (np.linalg.norm(X[i]) * np.linalg.norm(X[j])))
               for i in range(len(y)) for j in range(len(y)) if i != j)
    if fx.mutated():
        U = signed_units(X, y)
        mu = float((U @ U.T)[~np.eye(len(y), dtype=bool)].max())
    ev.close("mu vs pairwise loop", mu, loop, rtol=1e-12, atol=1e-14)
    if "mu_target" in fx:
        ev.close("mu vs generator's exact mu", mu, fx["mu_target"], rtol=0.0, atol=1e-12)
    else:
        ev.note("the generator has no exact mu (noisy clusters): only the pairwise loop is compared")
    same = y[:, None] == y[None, :]
    G = X @ X.T
    off = ~np.eye(len(y), dtype=bool)
    ev.true("same-label pairs positively, opposite-label pairs negatively correlated",
            bool((G[same & off] > 0).all() and (G[~same] < 0).all()))
    ev.record(mu=mu, slack_ratio=mu)
    return ev


A2_WRONG_SIDE = "V+ neurons measured against x_+ (the classes swapped)"


@claim("min2024.asm2", kind="assumption",
       fidelity="definitional", no_room="the definition of zeta2* = 1 - c^2 against a loop: an identity",
       title="Assumption 2 (non-degenerate initialisation)",
       statement=r"$\max_{j\in V_+}\langle \frac{w_j(0)}{\|w_j(0)\|},\frac{x_-}{\|x_-\|}\rangle<1$ and "
       r"$\max_{j\in V_-}\langle \frac{w_j(0)}{\|w_j(0)\|},\frac{x_+}{\|x_+\|}\rangle<1$.",
       hypotheses=[A2],
       fixtures=[random(wellsep, **BASE),
                 adversarial(wellsep, label="min.wellsep.near_a2", **{**BASE, "crafted": "near_a2", "delta": 1e-10}),
                 negative(a2_violator, label="min.a2_violator"),
                 negative(wellsep, mutation=A2_WRONG_SIDE, **BASE)],
       judged_by="zeta2* = 1 - c^2 against a per-neuron loop; near-boundary init gives zeta2* ~ 2 delta")
def asm2(fx):
    ev = Evidence()
    X, y, W0, s = fx["X"], fx["y"], fx["W0"], fx["s"]
    xp, xm = class_sums(X, y)
    c = 0.0
    for j in range(len(s)):
        ref = (xp if s[j] > 0 else xm) if fx.mutated(A2_WRONG_SIDE) else (xm if s[j] > 0 else xp)
        c = max(c, float(W0[j] @ ref / (np.linalg.norm(W0[j]) * np.linalg.norm(ref))))
    z2 = zeta2_star(X, y, W0, s)
    ev.close("zeta2* vs loop", z2, 1 - c * c, rtol=1e-12, atol=1e-15)
    if fx.get("crafted") == "near_a2":
        d = fx.params["delta"]
        ev.close("near-boundary init: zeta2* = 1 - (1 - delta)^2", z2, 1 - (1 - d) ** 2, rtol=1e-4)
    ev.record(zeta2_star=z2, slack_ratio=1 - c)
    return ev


not_checkable("min2024.def1", kind="definition", title="Definition 1 (regular solution)",
              statement=r"A solution is regular if $w_j(t_0)\in S_{dead}$ implies $w_j(t)\in S_{dead}$ for all "
              r"$t\ge t_0$.",
              reason="definition: a solution-selection rule. The simulators use sigma'(0) = 0, so a neuron with no "
              "active data has zero velocity (regular by construction); 'once dead, stays dead' is checked on every "
              "trajectory by part (i) of min2024.lem12 (judged there on the simulated regular solutions; the amended "
              "Lemma 12 restates it as Definition 1 and judges (ii)-(iii)), and the Gaussian-init argument that no "
              "neuron entering S_dead can leave is min2024.rmk7.",
              uses=["min2024.lem12"])
not_checkable("min2024.def.sets", kind="definition", title="S+, S-, S_dead, K, x_a, n_a, P_w, caps (Sec. 2-3, App. C)",
              statement=r"$S_+=\{z:1[\langle x_i,z\rangle>0]=1[y_i>0]\,\forall i\}$, $S_-$ symmetric, "
              r"$S_{dead}=\{z:\langle x_i,z\rangle\le0\,\forall i\}$, $K=\mathrm{cone}\{y_ix_i\}$, "
              r"$x_a(w)=\sum_{i:\langle x_i,w\rangle>0}y_ix_i$, $S^\zeta_x=\{z:\cos(z,x)\ge\sqrt{1-\zeta}\}$.",
              reason="definitions: implemented as theorems.min2024.common.membership (the paper's displayed S_dead "
              "is a copy of S-; the prose definition is used, spec E5), cos, class_sums; exercised by "
              "min2024.claim.cone and every trajectory claim", uses=["min2024.claim.cone"])
not_checkable("min2024.def.paths", kind="definition", title="Paths and travel time (App. C.2)",
              statement=r"A path is a sequence $k(l)=(k_+(l),k_-(l))\ne(0,0)$ ending at $(n_+,0)$, "
              r"with travel time $T(P)=\sum_l 4/(m\sqrt\mu X_{\min}(k_+(l)+k_-(l)))$.",
              reason="definition (its condition 2 is printed reversed, spec E13; the corrected order is used); "
              "checked through min2024.claim.path", uses=["min2024.claim.path"])


# ---------------------------------------------------------------------------------------------
# Cones


def _in_splus(X, y, Z, sign=1):
    """Rows of Z in S+ (sign=1) or S- (sign=-1), exact (tau = 0)."""
    m = membership(X, y, Z, 0.0)
    return m == (PLUS if sign > 0 else MINUS)


def _cone_points(rng, U, k, sparse=True):
    """``k`` random conic combinations of the rows of ``U`` (sparse, exponential weights)."""
    a = rng.exponential(size=(k, U.shape[0]))
    if sparse:
        a *= rng.uniform(size=a.shape) < 0.5
        a[np.arange(k), rng.integers(0, U.shape[0], size=k)] += 1e-3
    return a @ U


CONE_SWAPPED = "positives in S-, negatives in S+ (the cones swapped)"


@claim("min2024.claim.cone", kind="claim",
       fidelity="faithful", no_room="memberships and convexity on sampled pairs: yes/no conclusions",
       title="S+/S- are nonempty convex cones containing the data (Sec. 2.2)",
       statement=r"Under Assumption 1, $x_i\in S_+$ for $i\in I_+$, $x_i\in S_-$ for $i\in I_-$; $S_{dead}$ is a "
       r"convex cone (possibly empty).", hypotheses=[A1], uses=["min2024.lem6", "min2024.lem7"],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.mu_small", **{**BASE, "mu": 0.02}),
                 adversarial(states, label="min.states.tilt", **{**BASE, "tilt": True}),
                 NEG_STATES, negative(states, mutation=CONE_SWAPPED, **BASE)],
       judged_by="exact membership of every data point; convexity of S_dead on sampled pairs (a secondary "
       "quantifier: S_dead may be empty; the tilted data have an S_dead with interior)")
def cone(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    m = membership(X, y, X, 0.0)
    want = np.where(y > 0, MINUS, PLUS) if fx.mutated(CONE_SWAPPED) else np.where(y > 0, PLUS, MINUS)
    ev.forall("every data point: positives in S+, negatives in S-", m == want, relation="true",
              detail=f"memberships {m.tolist()}")
    Z = fx.rng.normal(size=(4000, X.shape[1]))
    dead = Z[(Z @ X.T <= 0).all(1)]
    a = fx.rng.uniform(size=(max(len(dead) - 1, 0), 1))
    mix = a * dead[:-1] + (1 - a) * dead[1:]
    ev.forall("convex combinations of sampled S_dead points stay in S_dead", (mix @ X.T <= 1e-12).all(1),
              relation="true", required=False)
    ev.record(dead_samples=len(dead))
    return ev


@claim("min2024.lem5", kind="lemma",
       fidelity="faithful",
       title="Lemma 5 (cone coherence)",
       statement=r"$\cos(z_1,z_2)\ge\mu$ for all nonzero $z_1,z_2\in K$.", hypotheses=[A1],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.mu_small", **{**BASE, "mu": 0.01}),
                 NEG_STATES, negative(states, mutation="mu + 1e-3", **BASE)],
       judged_by="min cosine over 20000 sampled conic pairs plus generator pairs (where the minimum mu is attained)")
def lem5(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    U = signed_units(X, y)
    mu = mu_of(X, y) + (1e-3 if fx.mutated() else 0.0)
    Z1, Z2 = _cone_points(fx.rng, U, 20000), _cone_points(fx.rng, U, 20000)
    cs = np.einsum("kd,kd->k", Z1, Z2) / (np.linalg.norm(Z1, axis=1) * np.linalg.norm(Z2, axis=1))
    G = U @ U.T
    worst = min(float(cs.min()), float(G.min()))
    ev.ge("min cos over sampled conic pairs and generators", worst, mu, rtol=0.0, atol=1e-12)
    ev.record(min_cos=worst, mu=mu, slack_ratio=float(cs.min()) / max(mu, 1e-300))
    return ev


@claim("min2024.lem6", kind="lemma",
       fidelity="definitional", no_room="convexity on sampled combinations: a yes/no conclusion",
       title="Lemma 6 (S+ and S- are convex cones)",
       statement=r"$S_+$ and $S_-$ are convex cones (without the origin).", hypotheses=[A1],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.D2", **{**BASE, "D": 2}),
                 negative(states, mutation="S+ union S- convex", **BASE)],
       judged_by="positive combinations of 5000 sampled pairs, exact membership")
def lem6(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    U = signed_units(X, y)
    rng = fx.rng
    for sign in (1, -1):
        Z = sign * _cone_points(rng, U, 20000) + 0.5 * rng.normal(size=(20000, X.shape[1]))
        Z = Z[_in_splus(X, y, Z, sign)]
        if fx.mutated():
            Z2 = -sign * _cone_points(rng, U, len(Z)) + 0.5 * rng.normal(size=Z.shape)
            keep = _in_splus(X, y, Z2, -sign)
            A, B = Z[keep], Z2[keep]
            mix = 0.5 * A + 0.5 * B
            inside = _in_splus(X, y, mix, 1) | _in_splus(X, y, mix, -1)
        else:
            A, B = Z[: len(Z) // 2], Z[len(Z) // 2: 2 * (len(Z) // 2)]
            a, b = rng.exponential(size=(len(A), 1)), rng.exponential(size=(len(A), 1))
            inside = _in_splus(X, y, a * A + b * B, sign)
        ev.forall(f"positive combinations of sampled points stay in S{'+' if sign > 0 else '-'}", inside,
                  relation="true", detail=f"{int((~inside).sum())} of {len(inside)} combinations outside")
    return ev


@claim("min2024.lem7", kind="lemma",
       fidelity="faithful",
       title="Lemma 7 (K inside the interior of S+)",
       statement=r"$K\cap\mathbb S^{D-1}\subset\mathrm{Int}(S_+\cap\mathbb S^{D-1})$ and "
       r"$-K\cap\mathbb S^{D-1}\subset\mathrm{Int}(S_-\cap\mathbb S^{D-1})$; quantitatively "
       r"$y_i\langle x_c,x_i\rangle\ge\mu\|x_i\|$ for unit $x_c\in K$.", hypotheses=[A1], uses=["min2024.lem5"],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.mu_small", **{**BASE, "mu": 0.01}),
                 NEG_STATES, negative(states, mutation="bound 1.01 mu", **BASE)],
       judged_by="min over 20000 sampled unit K-points of y_i<x_c,x_i>/||x_i||, exact membership of +-x_c")
def lem7(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    U = signed_units(X, y)
    mu = mu_of(X, y) * (1.01 if fx.mutated() else 1.0)
    Z = _cone_points(fx.rng, U, 20000)
    Z = np.vstack([Z, U])
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    q = (Z @ U.T).min()
    ev.ge("min_i y_i <x_c, x_i>/||x_i|| over unit K-points", float(q), mu, rtol=0.0, atol=1e-12)
    ev.true("x_c in S+ and -x_c in S-", bool(_in_splus(X, y, Z, 1).all() and _in_splus(X, y, -Z, -1).all()))
    ev.record(slack_ratio=float(q) / max(mu, 1e-300))
    return ev


@claim("min2024.lem8", kind="lemma",
       fidelity="faithful",
       title="Lemma 8 (caps around x+ and x- inside S+ and S-)",
       statement=r"There is $\zeta_1>0$ with $S^{\zeta_1}_{x_+}\subset S_+$ and $S^{\zeta_1}_{x_-}\subset S_-$; "
       r"the best is $\zeta_1^*=\min_i\min(\cos^2(x_+,u_i),\cos^2(-x_-,u_i))\ge\mu^2$.", hypotheses=[A1],
       uses=["min2024.lem7"],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.mu_small", **{**BASE, "mu": 0.05}),
                 NEG_STATES, negative(states, mutation="zeta = 1.01 zeta1*", **BASE)],
       judged_by="10000 sampled cap points (and the worst boundary point) per cap, exact membership")
def lem8(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    z1 = zeta1_star(X, y)
    zeta = z1 * (1.01 if fx.mutated() else 0.999)
    xp, xm = class_sums(X, y)
    U = signed_units(X, y)
    for sign, centre in ((1, xp), (-1, xm)):
        a = centre / np.linalg.norm(centre)
        c = np.sqrt(1 - zeta)
        Q = fx.rng.normal(size=(10000, len(a)))
        Q -= np.outer(Q @ a, a)
        Q /= np.linalg.norm(Q, axis=1, keepdims=True)
        cc = fx.rng.uniform(c, 1.0, size=(10000, 1))
        # worst points: tilt towards each hyperplane normal
        W = -sign * U - np.outer(-sign * U @ a, a)
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        P = np.vstack([cc * a + np.sqrt(1 - cc ** 2) * Q, c * a + np.sqrt(1 - c * c) * W])
        ok = _in_splus(X, y, P, sign)
        ev.true(f"cap around x{'+' if sign > 0 else '-'} inside S{'+' if sign > 0 else '-'}", bool(ok.all()),
                detail=f"{int((~ok).sum())} cap points outside")
    ev.ge("zeta1* >= mu^2", z1, mu_of(X, y) ** 2, rtol=1e-12)
    ev.record(zeta1_star=z1, mu2=mu_of(X, y) ** 2)
    return ev


@claim("min2024.lem9", kind="lemma",
       fidelity="faithful",
       title="Lemma 9 (K is bounded away from the complement of S+ and S-)",
       statement=r"There is $\xi>0$ with $\sup\{|\cos(x_1,x_2)|:x_1\in K\cap\mathbb S^{D-1},"
       r"x_2\in\mathbb S^{D-1}\setminus(S_+\cup S_-)\}\le\sqrt{1-\xi}$; the best is $\xi=\mu^2$.", hypotheses=[A1],
       uses=["min2024.lem5"],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.mu_small", **{**BASE, "mu": 0.1}),
                 NEG_STATES, negative(states, mutation="xi = 2 mu^2", **BASE)],
       judged_by="random search (x1 in K, x2 outside S+ u S-) below sqrt(1-mu^2); the constructive point "
       "x2 = normalise(u_k - (mu+delta) u_i) attains it within O(delta)")
def lem9(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    U = signed_units(X, y)
    mu = mu_of(X, y)
    xi = 2 * mu * mu if fx.mutated() else mu * mu
    lim = np.sqrt(1 - xi)
    X1 = _cone_points(fx.rng, U, 20000)
    X1 /= np.linalg.norm(X1, axis=1, keepdims=True)
    X2 = fx.rng.normal(size=X1.shape)
    X2 /= np.linalg.norm(X2, axis=1, keepdims=True)
    m = membership(X, y, X2, 0.0)
    keep = (m != PLUS) & (m != MINUS)
    best = float(np.abs(np.einsum("kd,kd->k", X1[keep], X2[keep])).max()) if keep.any() else 0.0
    x1, x2 = lemma9_witness(X, y)
    mem = membership(X, y, x2[None, :], 0.0)[0]
    constructive = float(abs(x1 @ x2))
    ev.true("constructive x2 outside S+ and S-", mem not in (PLUS, MINUS))
    ev.le("sup |cos| over random search and the constructive pair", max(best, constructive), lim, rtol=1e-9)
    ev.record(random_search_max=best, constructive=constructive, sqrt_1_minus_mu2=np.sqrt(1 - mu * mu),
              slack_ratio=max(best, constructive) / lim)
    return ev


@claim("min2024.lem11", kind="lemma",
       fidelity="faithful",
       cannot_fail="off Assumption 1 the bound's sqrt(mu) is undefined (mu < 0: the probe on min.states.mu_negative "
       "is undefined) or 0 (mu = 0, where it holds trivially); the mutated constant X_min -> X_max is refuted",
       title="Lemma 11 (||x_a|| lower bound)",
       statement=r"$\|x_a(w)\|\ge\sqrt\mu\,n_a(w)X_{\min}$; also $\|x_\pm\|\ge\sqrt\mu\,n_\pm X_{\min}$.",
       hypotheses=[A1],
       fixtures=[random(states, **BASE), adversarial(states, label="min.states.n12", n_pos=6, n_neg=6, D=5, mu=0.3),
                 NEG_STATES, negative(states, mutation="X_min -> X_max", **BASE)],
       judged_by="exhaustively over all 2^n - 1 active sets (a superset of the realisable patterns)")
def lem11(fx):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    mu = mu_of(X, y)
    c = np.sqrt(max(mu, 0.0))
    xn = np.linalg.norm(X, axis=1)
    xmin = float(xn.max() if fx.mutated() else xn.min())
    Z = y[:, None] * X
    n = len(y)
    masks = np.array(list(itertools.product([0, 1], repeat=n))[1:], float)
    xa = np.linalg.norm(masks @ Z, axis=1)
    ratio = xa / (c * masks.sum(1) * xmin)
    ev.ge("min over active sets of ||x_a|| / (sqrt(mu) n_a X_min)", float(ratio.min()), 1.0, rtol=1e-12)
    ev.record(slack_ratio=float(1.0 / ratio.min()))
    return ev


def sdead_nonempty(X: np.ndarray) -> tuple[bool, bool]:
    """(S_dead \\ {0} nonempty, S_dead has interior), by feasibility LPs (``X z <= 0, +-z_k = 1``; ``X z <= -1``)."""
    n, D = X.shape
    interior = linprog(np.zeros(D), A_ub=X, b_ub=-np.ones(n), bounds=[(None, None)] * D, method="highs").status == 0
    if interior:
        return True, True
    for k in range(D):
        for sg in (1.0, -1.0):
            A_eq = np.zeros((1, D))
            A_eq[0, k] = sg
            res = linprog(np.zeros(D), A_ub=X, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0],
                          bounds=[(None, None)] * D, method="highs")
            if res.status == 0 and (X @ res.x <= 1e-9).all():
                return True, False
    return False, False


@claim("min2024.claim.rand", kind="claim",
       fidelity="faithful",
       cannot_fail="P(max_{I+} <w, x_i> > 0) >= 1/2 holds for any data by the symmetry w -> -w of the Gaussian (P(<w, "
       "x_1> > 0) = 1/2), hence 1 - 2^-m for m independent neurons, and Assumption 2 holds almost surely for any "
       "data: Assumption 1 is not needed, no input breaks the conclusion; the 0.99 control is refuted",
       title="Merits of random initialisation (Sec. 3.1)",
       statement=r"With $[W_0]_{ij}\sim N(0,1/D)$: Assumption 2 holds a.s.; "
       r"$P(\max_{i\in I_+}\langle w,x_i\rangle>0)\ge1/2$; with $m$ neurons in $V_+$, "
       r"$P(\exists j\in V_+ \text{ activating a positive})\ge 1-2^{-m}$.", hypotheses=[A1],
       fixtures=[random(random_init), adversarial(random_init, label="min.random_init.D2", D=2),
                 adversarial(random_init, label="min.random_init.D50_n1", n_pos=1, D=50),
                 negative(random_init, mutation="probability >= 0.99", n_pos=1, D=50)],
       judged_by="Clopper-Pearson intervals over 20000 Gaussian draws (m = 3 from disjoint triples)")
def rand(fx):
    ev = Evidence()
    X, y, W = fx["X"], fx["y"], fx["W"]
    act = (W @ X[y > 0].T > 0).any(1)
    p = 0.99 if fx.mutated() else 0.5
    judge_binomial("single neuron activates a positive", int(act.sum()), len(act), p, evidence=ev)
    m = 3
    trip = act[: len(act) // m * m].reshape(-1, m).any(1)
    judge_binomial("some of m = 3 neurons activates a positive", int(trip.sum()), len(trip),
                   0.99 if fx.mutated() else 1 - 2.0 ** -m, evidence=ev)
    xp, xm = class_sums(X, y)
    c = max(float(cos(W, xm).max()), float(cos(W, xp).max()))
    ev.le("Assumption 2 on every draw: max cos < 1", c, 1.0 - 1e-12, rtol=0.0)
    return ev
