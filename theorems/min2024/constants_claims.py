"""Explicit constants of Min, Mallada & Vidal (2024) checked as printed: the path combinatorics of App. C.2,
the choice of eps (Sec. 3.3, (28)-(29)), zeta := max{zeta1, zeta2} (C.2), the order t1 = O(log n/sqrt(mu)) of
the alignment time (measured; the proof's explicit t1 is O(log n/mu^{5/2}): its erratum); the non-existence /
non-uniqueness examples of App. E.3-E.4, Filippov solutions (App. F), the leaky-ReLU probe of Remark 5, and
the commentary remarks. Printed statements that fail carry their erratum (and amended claim).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import sympy as sp

from fixtures.min2024 import a2_violator, clusters, example_e34, paths, two_point, wellsep
from verify import (
    Evidence,
    adversarial,
    claim,
    erratum,
    hypothesis,
    judge_slope,
    negative,
    not_checkable,
    random,
)

from .common import (
    A1,
    A2,
    DEAD,
    INIT,
    MINUS,
    PLUS,
    class_sums,
    fixture_constants,
    lemma9_witness,
    limit_alignment,
    limit_series,
    margin_loss,
    neg_loss_derivative,
    one_minus_cos,
    phases,
    rebuild,
    signed_units,
    zeta1_star,
    zeta2_star,
)
from .geometry import _in_splus
from .theorem1 import BASE as BASE_T
from .theorem1 import FIT_FIXTURES, NEG_A1, NEG_A1_PROBE, slope_error

BASE = dict(n_pos=3, n_neg=3, D=4, mu=0.6, h=8)

# ---------------------------------------------------------------------------------------------
# Paths (App. C.2)


def harmonic(k: int) -> float:
    return float(sum(1.0 / i for i in range(1, k + 1)))


def longest_path(n_pos: int, n_neg: int) -> float:
    """Max over admissible paths of ``sum_l 1/(k+(l) + k-(l))`` (tail weights), ending at ``(n+, 0)``:
    ``k+`` non-decreasing, ``k-`` non-increasing, consecutive entries distinct, never ``(0, 0)``."""
    best: dict[tuple[int, int], float] = {(n_pos, 0): 0.0}
    nodes = [(a, b) for a in range(n_pos + 1) for b in range(n_neg + 1) if (a, b) != (0, 0)]
    for a, b in sorted(nodes, key=lambda ab: (-ab[0], ab[1])):
        if (a, b) == (n_pos, 0):
            continue
        succ = [best[(a2, b2)] for a2 in range(a, n_pos + 1) for b2 in range(0, b + 1)
                if (a2, b2) != (a, b) and (a2, b2) != (0, 0) and (a2, b2) in best]
        best[(a, b)] = 1.0 / (a + b) + max(succ) if succ else -np.inf
    return max(best.values())


N_GE_2 = hypothesis("n >= 2 (t1 = 16 log n/(...) > 0)", lambda fx: (fx["n_min"] >= 2, fx["n_min"] - 2))
HALF_LOG = "4 log n -> 2 log n (constant off by 2)"


def _log_constant(fx) -> float:
    return 2.0 if fx.mutated(HALF_LOG) else 4.0


@claim("min2024.claim.path", kind="claim",
       fidelity="faithful",
       title="Travel-time bound over activation paths (App. C.2)",
       statement=r"(a) every admissible path has $T(P)\le T(P_{\max})=\frac{4}{m\sqrt\mu X_{\min}}(H_{n_-}+\frac12+"
       r"H_{n_+-1})$; (b) $T(P_{\max})\le\frac{16\log n}{m\sqrt\mu X_{\min}}=t_1$; (c) dead paths take at most "
       r"$\frac{4H_n}{m\sqrt\mu X_{\min}}\le t_1$.", hypotheses=[N_GE_2],
       fixtures=[random(paths), adversarial(paths, label="min.paths.n15", n_max=15),
                 negative(paths, label="min.paths.n1", n_min=1), negative(paths, mutation=HALF_LOG)],
       judged_by="exact longest-path DP on the (k+, k-) grid for every split n+ + n- = n, n_min <= n <= n_max; "
       "(b), (c) as ratios to 4 log n (their room is the factor the constant 4 could shrink by); extremes: "
       "n = 2 (the tightest ratio) up to 15")
def path(fx):
    ev = Evidence()
    worst_a, ratio_b, ratio_c = 0.0, 0.0, 0.0
    const = _log_constant(fx)
    for n in range(max(fx["n_min"], 2), fx["n_max"] + 1):
        for n_pos in range(1, n):
            n_neg = n - n_pos
            lp = longest_path(n_pos, n_neg)
            pmax = harmonic(n_neg) + 0.5 + harmonic(n_pos - 1)
            worst_a = max(worst_a, abs(lp - pmax))
            ratio_b = max(ratio_b, pmax / (const * np.log(n)))
        ratio_c = max(ratio_c, harmonic(n) / (const * np.log(n)))
    ev.close("max |DP longest path - (H_{n-} + 1/2 + H_{n+-1})| (an identity)", worst_a, 0.0, atol=1e-12)
    ev.le(f"max (H_{{n-}} + 1/2 + H_{{n+-1}}) / ({const:g} log n)", ratio_b, 1.0, rtol=0.0)
    ev.le(f"max H_n / ({const:g} log n)", ratio_c, 1.0, rtol=0.0)
    if fx["n_min"] < 2:
        # n = 1 (off the hypothesis): one point, so every path is dead and (c) reads H_1 = 1 <= 4 log 1 = 0 (t1 = 0);
        # judged as a difference, log 1 = 0 leaves no ratio
        ev.le(f"(c) at n = 1: H_1 - {const:g} log 1", harmonic(1), 0.0, rtol=0.0)
    return ev


@functools.lru_cache(maxsize=1)
def _exact_n2_excess() -> tuple[str, bool]:
    """Exact arithmetic (sympy): 2 H_2 + 1/2 - 4 log 2 = 7/2 - 4 log 2, and whether it is positive."""
    e = 2 * sp.harmonic(2) + sp.Rational(1, 2) - 4 * sp.log(2)
    return str(sp.nsimplify(e)), bool(e.is_positive)


@claim("min2024.claim.path.intermediate", kind="claim",
       fidelity="faithful",
       cannot_fail="(amended) the step quantifies over n+, n- >= 1, which forces n >= 2: the hypothesis cannot be "
       "broken without emptying the quantifier (the n = 1 control holds vacuously); the constant 2 log n is refuted",
       title="Intermediate step 2H_n + 1/2 <= 4 log n (App. C.2)",
       statement=r"$2H_n+\frac12\le4\log n$ for $n\ge2$ (the step bounding $T(P_{\max})$ by $t_1$).",
       hypotheses=[N_GE_2], uses=["min2024.claim.path"],
       erratum=erratum(
           kind="proof-step error", location="App. C.2, proof of Theorem 1 part 1, the display bounding T(P_max) "
           "(after Fig. 15)",
           printed=r"$\leq \frac{4}{\min\{\zeta,\xi\}\sqrt{\mu}X_{\min}} \left(2\sum_{k=1}^{n} \frac{1}{k} + "
           r"\frac{1}{2}\right) \leq \frac{16\log n}{\min\{\zeta,\xi\}\sqrt{\mu}X_{\min}} = t_1$",
           reading="the second inequality, 2 H_n + 1/2 <= 4 log n, for every n >= 2 (the theorem needs n >= 2 for "
           "t1 > 0); the first one (H_{n-} + 1/2 + H_{n+-1} <= 2 H_n + 1/2) holds",
           second_method="exact arithmetic (sympy): 2 H_2 + 1/2 - 4 log 2 = 7/2 - 4 log 2 > 0, computed in the check",
           independence="exact arithmetic",
           summary="2 H_n + 1/2 <= 4 log n fails at n = 2 (3.5 > 2.77); the bound T(P_max) <= t1 itself holds "
           "(H_{n-} + 1/2 + H_{n+-1} <= 4 log n for every split)",
           amended=r"$H_{n_-}+\frac12+H_{n_+-1}\le4\log n$ for all $n_\pm\ge1$, $n=n_++n_-\ge2$, so "
           r"$T(P_{\max})\le t_1$ (the intermediate $2H_n+\frac12$ is skipped).",
           difference="bound the exact T(P_max) directly instead of through 2 H_n + 1/2",
           amended_title="Intermediate step (amended): H_{n-} + 1/2 + H_{n+-1} <= 4 log n"),
       fixtures=[random(paths), adversarial(paths, label="min.paths.n2", n_min=2, n_max=2),
                 adversarial(paths, label="min.paths.n200", n_max=200),
                 negative(paths, label="min.paths.n1", n_min=1), negative(paths, mutation=HALF_LOG)],
       judged_by="exact evaluation for every n (every split n+ + n- = n for the amended step) in [n_min, n_max], "
       "as a ratio to 4 log n (adversarial: the edge n = 2 alone, and n up to 200)")
def path_intermediate(fx):
    ev = Evidence()
    const = _log_constant(fx)
    ns = np.arange(max(fx["n_min"], 2), fx["n_max"] + 1)
    if fx.amended:
        ratios = np.array([max(harmonic(n - k) + 0.5 + harmonic(k - 1) for k in range(1, n)) / (const * np.log(n))
                           for n in ns])
        ev.le(f"max_n max_split (H_{{n-}} + 1/2 + H_{{n+-1}}) / ({const:g} log n)", float(ratios.max()), 1.0,
              rtol=0.0)
    else:
        ratios = np.array([(2 * harmonic(int(n)) + 0.5) / (const * np.log(n)) for n in ns])
        ev.le(f"max_n (2 H_n + 1/2) / ({const:g} log n)", float(ratios.max()), 1.0, rtol=0.0)
        exact, positive = _exact_n2_excess()
        ev.record(exact_excess_at_n2=exact, exact_excess_positive=positive)
        ev.certify(counterexample_n=int(ns[np.argmax(ratios)]), ratio=float(ratios.max()))
    if fx["n_min"] < 2:
        ev.note("n = 1: t1 = 16 log 1/(...) = 0 (the hypothesis n >= 2 fails)")
    return ev


# ---------------------------------------------------------------------------------------------
# eps, zeta, (28)-(29)


@claim("min2024.claim.eps", kind="claim",
       fidelity="partial",
       fidelity_note="only eps2 <= eps1 from (28) is judged, at n = 6 and 20; the printed orders eps1 = "
       "O(sqrt(mu)/sqrt(hn)), eps2 = O(h^-1/2 e^{-(n/sqrt mu) log n}) are recorded (E15: (28) has sqrt(h) n and a "
       "factor min{mu, zeta, xi})",
       no_room="a sign of log eps2 - log eps1 (the recorded logs give the margin, dozens of e-folds)",
       cannot_fail="with Gaussian W0 (W_max ~ 1) eps2 = h^-1/2 e^{-64 n X_max log n/(m sqrt(mu) X_min)} lies dozens "
       "of e-folds below eps1 at every n >= 2 and m <= 1: no fixture of the family reverses the order, and off "
       "Assumption 2 both vanish (m = 0); the opposite order is refuted",
       title="Choice of eps (Sec. 3.3): eps2 beats eps1 for large n",
       statement=r"$\epsilon_1=O(\sqrt\mu/\sqrt{hn})$, $\epsilon_2=O(\frac1{\sqrt h}e^{-\frac n{\sqrt\mu}\log n})$ and "
       r"$\epsilon_2\le\epsilon_1$ when $n$ is large (formally (28)).", hypotheses=[A1, A2],
       uses=["min2024.claim.eq29.amended"],
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.n20", n_pos=10, n_neg=10, D=6,
                                                        mu=0.6, h=10),
                 negative(wellsep, mutation="eps1 <= eps2 (the opposite order)", **BASE)],
       judged_by="the explicit (28) constants in the log domain (a sign statement: no constant to be off)")
def eps_choice(fx):
    ev = Evidence()
    c = fixture_constants(fx)
    if fx.mutated():
        ev.le("log eps1 - log eps2", c.log_eps1 - c.log_eps2, 0.0, rtol=0.0)
    else:
        ev.le("log eps2 - log eps1", c.log_eps2 - c.log_eps1, 0.0, rtol=0.0)
    main_text = np.log(np.sqrt(c.mu) / np.sqrt(c.h * c.n))
    ev.record(log_eps1=c.log_eps1, log_eps2=c.log_eps2, log_eps1_main_text_form=main_text,
              note_E15="(28) has sqrt(h) n and a factor min{mu,zeta,xi} <= mu^2, not sqrt(hn)")
    return ev


def _cap_points(X, y, centre, zeta, sign, rng, k=2000):
    """Points of the cap S^zeta around ``centre``: the worst boundary points (tilted toward each hyperplane
    normal) and ``k`` uniformly spread ones (independent of how zeta was chosen)."""
    U = signed_units(X, y)
    a = centre / np.linalg.norm(centre)
    c = np.sqrt(max(1 - zeta, 0.0))
    W = -sign * U - np.outer(-sign * U @ a, a)
    nW = np.linalg.norm(W, axis=1)
    # a normal parallel to the centre (a class of one point) has no tilt direction: every boundary point of the cap
    # is equally far from its hyperplane, so it adds no worst point (it gave 0/0 = NaN, read as outside S+-)
    W = W[nW > 1e-12] / nW[nW > 1e-12, None]
    Q = rng.normal(size=(k, len(a)))
    Q -= np.outer(Q @ a, a)
    Q /= np.linalg.norm(Q, axis=1, keepdims=True)
    cc = rng.uniform(c, 1.0, size=(k, 1))
    return np.vstack([c * a + np.sqrt(1 - c * c) * W, cc * a + np.sqrt(1 - cc ** 2) * Q])


ZETA_ABOVE = "zeta 1% above the cap's best constant zeta1*"
N_ZETA_DRAWS = 20


def _zeta_check(fx) -> Evidence:
    """Printed: zeta = max{zeta1, zeta2} with the constants the proof is handed (the best admissible ones,
    (1 - 1e-6) zeta*). Amended: zeta = min{zeta1, zeta2} for *every* admissible pair: the best pair and
    ``N_ZETA_DRAWS`` pairs drawn uniformly in (0, zeta1*] x (0, zeta2*] by the check's own generator."""
    ev = Evidence()
    X, y, W0, s = fx["X"], fx["y"], fx["W0"], fx["s"]
    z1s, z2s = zeta1_star(X, y), zeta2_star(X, y, W0, s)
    pairs = [(z1s * (1 - 1e-6), z2s * (1 - 1e-6))]
    if fx.amended:
        pairs += [tuple(u) for u in fx.rng.uniform(0.0, 1.0, size=(N_ZETA_DRAWS, 2)) * (z1s, z2s)]
    zetas = [1.01 * z1s if fx.mutated(ZETA_ABOVE) else (min(a, b) if fx.amended else max(a, b))
             for a, b in pairs]
    xp, xm = class_sums(X, y)
    cap_ok = [bool(_in_splus(X, y, _cap_points(X, y, xp, z, 1, fx.rng), 1).all()
                   and _in_splus(X, y, _cap_points(X, y, xm, z, -1, fx.rng), -1).all()) for z in zetas]
    ref = np.where(s[:, None] > 0, xm[None, :], xp[None, :])
    cosines = np.sum(W0 * ref, 1) / (np.linalg.norm(W0, axis=1) * np.linalg.norm(ref, axis=1))
    j = int(np.argmax(cosines))
    c = float(cosines[j])
    # 1 - c^2 without cancellation: an initial neuron nearly parallel to the other class's sum (c = 1 - 1e-10) leaves
    # c - sqrt(1 - zeta) at the rounding level of numbers near 1 (a hunted min.wellsep fixture gave -1.1e-16)
    one_minus_c2 = float(one_minus_cos(W0[j], ref[j])[0]) * (1.0 + c) if c > 0 else 1.0 - c * c
    ev.forall("cap S^zeta_{x+} inside S+ and S^zeta_{x-} inside S- (worst boundary and 2000 spread points)",
              cap_ok, relation="true")
    # (26) defines zeta2 by the init, so this part is an identity for zeta <= zeta2*: no room is claimed. For c > 0
    # judged relative to 1 - c^2: sqrt(1 - zeta) - c = (1 - c^2 - zeta) / (sqrt(1 - zeta) + c) > 0 iff
    # zeta < 1 - c^2; for c <= 0 it holds for every zeta < 1 (zeta2* = 1 then) and is judged as printed; so is
    # c = 1 exactly (Assumption 2 broken: 1 - c^2 = 0, no relative form), where it fails for every zeta > 0
    init_excess = [(z - one_minus_c2) / one_minus_c2 if 0 < c and one_minus_c2 > 0 else c - np.sqrt(1 - z)
                   for z in zetas]
    if fx.amended:
        # with zeta = min{zeta1, zeta2} <= zeta2 <= zeta2* the init exclusion is (26), the definition of zeta2: it
        # holds by construction, so it is recorded, not judged (the amended claim's content is the cap inclusion)
        ev.record(init_exclusion_by_definition_max_excess=max(init_excess))
    else:
        ev.forall("max_{V+-} cos(w_j(0), x_-+) < sqrt(1 - zeta) (identity (26) for zeta <= zeta2*)", init_excess,
                  0.0, relation="<=", atol=-1e-12, room=None)
    ev.record(zeta1_star=z1s, zeta2_star=z2s, zetas=zetas,
              closed_form_printed_fails=bool(max(pairs[0]) >= min(z1s, z2s)))
    if not fx.amended:
        ev.certify(counterexample="cap too wide" if z2s > z1s else "init inside the cap", zeta=zetas[0])
    return ev


@claim("min2024.claim.zeta", kind="claim",
       fidelity="faithful", no_room="cap inclusion (yes/no) and the identity (26): no ratio room",
       title="zeta := max{zeta1, zeta2} (App. C.2, l.592)",
       statement=r"With $\zeta=\max\{\zeta_1,\zeta_2\}$ ($\zeta_1$ of Lemma 8, $\zeta_2$ of (26)): "
       r"$S^\zeta_{x_\pm}\subset S_\pm$ and no $V_\pm$ neuron starts in $S^\zeta_{x_\mp}$.", hypotheses=[A1, A2],
       uses=["min2024.lem8"],
       erratum=erratum(
           kind="wrong constant or typo", location="App. C.2, proof of Theorem 1 part 1, after (26)",
           printed=r"We define $\zeta := \max{\{\zeta_1, \zeta_2\}}$, where $\zeta_1$ is from Lemma 8.",
           reading="zeta1 and zeta2 are the constants handed to the proof by Lemma 8 and (26); the proof then uses "
           "both S^zeta_{x+-} inside S+- (needs zeta <= zeta1) and cos(w_j(0), x_-+) < sqrt(1 - zeta) (needs "
           "zeta <= zeta2). With the best constants (1 - 1e-6) zeta*, max{zeta1, zeta2} violates one of them "
           "unless zeta1 = zeta2",
           second_method="closed form: S^zeta_{x+-} inside S+- iff zeta < zeta1* = min_i min(cos^2(x+, u_i), "
           "cos^2(-x-, u_i)), and (26) iff zeta < zeta2* = 1 - c^2; the check records max{zeta1, zeta2} >= "
           "min{zeta1*, zeta2*} from these formulas beside the sampled cap points and exact init cosines",
           independence="closed form",
           summary="zeta := max{zeta1, zeta2} must be min: with max either the cap leaves S+- or an initial "
           "neuron lies inside the cap",
           amended=r"With $\zeta=\min\{\zeta_1,\zeta_2\}$, for every admissible $\zeta_1\le\zeta_1^*$, "
           r"$\zeta_2\le\zeta_2^*$: $S^\zeta_{x_\pm}\subset S_\pm$ (no $V_\pm$ neuron starts in $S^\zeta_{x_\mp}$ "
           r"then holds by the definition (26) of $\zeta_2$: recorded, not judged).",
           difference="min in place of max"),
       fixtures=[random(wellsep, **BASE),
                 adversarial(wellsep, label="min.wellsep.near_a2", **{**BASE, "crafted": "near_a2", "delta": 1e-8}),
                 adversarial(wellsep, label="min.wellsep.mu_small", **{**BASE, "mu": 0.05}),
                 negative(a2_violator, label="min.a2_violator"),
                 negative(clusters, label="min.clusters.mu_negative", noise=1.5),
                 negative(wellsep, mutation=ZETA_ABOVE, **BASE)],
       judged_by="best constants zeta1*, zeta2* (times 1 - 1e-6) for the printed max; the best pair and 20 random "
       "admissible pairs for the amended min (a 'for every admissible pair' quantifier); cap inclusion tested on "
       "the worst boundary points and 2000 uniformly spread cap points drawn independently of zeta; exact init "
       "cosines (an identity for zeta <= zeta2*, recorded without room); extremes: an init 1e-8 from violating "
       "Assumption 2 (zeta2* ~ 2e-8), mu = 0.05")
def zeta_check(fx):
    return _zeta_check(fx)


EPS1_SIX = "eps1 with 6 in place of the denominator's 4 (8 amended)"


@functools.lru_cache(maxsize=1)
def _eq29_exact_ratio() -> str:
    """sympy: Lemma 3's output bound 2 eps sqrt(h) X_max W_max^2 at eps = eps1 of (28), divided by (29)'s right side."""
    m, mu, xmin, xmax, h, n, w = sp.symbols("m mu X_min X_max h n W_max", positive=True)
    eps1 = m * sp.sqrt(mu) * xmin / (4 * sp.sqrt(h) * n * xmax ** 2 * w ** 2)
    return str(sp.simplify(2 * eps1 * sp.sqrt(h) * xmax * w ** 2 / (m * sp.sqrt(mu) * xmin / (4 * n * xmax))))


@claim("min2024.claim.eq29", kind="claim",
       fidelity="definitional",
       fidelity_note="an identity in the constants: Lemma 3's bound at eps1 over (29) is a ratio of the printed "
       "constants (exactly 2 as printed, 1 amended), whatever the data; the flow's own max|f| is only recorded",
       cannot_fail="(amended) with 8 in place of 4, Lemma 3's bound at eps1 equals (29) exactly (sympy ratio 1): an "
       "identity in the constants, whatever the data; the constant 6 is refuted",
       title="(28) implies (29) via Lemma 3",
       statement=r"$\epsilon\le\epsilon_1=\frac{\min\{\mu,\zeta,\xi\}\sqrt\mu X_{\min}}{4\sqrt hnX_{\max}^2W_{\max}^2}$ "
       r"gives $\max_i|f(x_i)|\le\frac{\min\{\mu,\zeta,\xi\}\sqrt\mu X_{\min}}{4nX_{\max}}$ on $[0,T]$ (through Lemma 3).",
       hypotheses=[A1, A2, INIT], uses=["min2024.lem3"],
       erratum=erratum(
           kind="proof-step error", location="App. C.2, (28) and (29)",
           printed=r"$\epsilon \le \min\left\{\frac{\min\{\mu,\zeta,\xi\}\sqrt{\mu}X_{\min}}{4\sqrt{h}nX_{\max}^2"
           r"W_{\max}^2}, \ldots\right\}$ ... By Lemma 3, $\forall t \leq T$, we have $\max_{i} |f(x_i; W, v)| \le "
           r"\frac{\min\{\mu, \zeta, \xi\} \sqrt{\mu} X_{\min}}{4n X_{\max}}$ (29)",
           reading="(29) is derived from Lemma 3's bound max|f| <= 2 eps sqrt(h) X_max W_max^2 at eps = eps1, as the "
           "text says ('By Lemma 3'); no other route to (29) is given",
           second_method="symbolic (sympy): Lemma 3's bound at eps1 divided by (29)'s right side simplifies to "
           "exactly 2, computed in the check; the measured max|f| on [0, T] is recorded beside it",
           independence="exact arithmetic",
           summary="the step 'by Lemma 3' fails: (28) gives only max|f| <= min{mu,zeta,xi} sqrt(mu) X_min/(2 n "
           "X_max) through Lemma 3, twice (29); 8 in place of 4 in eps1 fixes the step. The printed (29), as a "
           "statement about the flow, holds: the measured max|f| on [0, T] at eps1 is ~2.4e-4 of (29) (quick, "
           "min.wellsep; recorded, not judged)",
           amended=r"$\epsilon\le\frac{\min\{\mu,\zeta,\xi\}\sqrt\mu X_{\min}}{8\sqrt hnX_{\max}^2W_{\max}^2}$ gives "
           r"(29) through Lemma 3.",
           difference="8 in place of 4 in the denominator of eps1",
           amended_title="(28) with 8 in place of 4 implies (29) (amended)"),
       fixtures=[random(wellsep, **BASE), adversarial(wellsep, label="min.wellsep.near_a2_imbalanced",
                                                        **{**BASE, "n_pos": 1, "n_neg": 5, "crafted": "near_a2",
                                                           "delta": 1e-8}),
                 adversarial(wellsep, label="min.wellsep.mu_small", **{**BASE, "mu": 0.2}),
                 negative(a2_violator, label="min.a2_violator"), negative(wellsep, mutation=EPS1_SIX, **BASE)],
       judged_by="Lemma-3 bound evaluated at eps1 against (29) (exact ratio 2 as printed, 1 amended: an equality, "
       "room 1); the direct flow at eps1 to T records the measured max|f| / (29)")
def eq29(fx):
    ev = Evidence()
    c = fixture_constants(fx)
    factor = 6.0 if fx.mutated(EPS1_SIX) else 8.0 if fx.amended else 4.0
    mn = min(c.mu, c.zeta, c.xi)
    eps1 = mn * np.sqrt(c.mu) * c.x_min / (factor * np.sqrt(c.h) * c.n * c.x_max ** 2 * c.w_max ** 2)
    lemma3 = 2 * eps1 * np.sqrt(c.h) * c.x_max * c.w_max ** 2
    rhs29 = mn * np.sqrt(c.mu) * c.x_min / (4 * c.n * c.x_max)
    ev.le("Lemma-3 output bound at eps = eps1 vs (29)", lemma3, rhs29, rtol=1e-12)
    ev.record(ratio_bound=lemma3 / rhs29 if rhs29 > 0 else None, sympy_ratio_as_printed=_eq29_exact_ratio())
    if not eps1 > 0:
        ev.note("eps1 = 0 (a constant vanishes): no simulation")
        return ev
    from verify.numerics.flow import integrate_flow
    from verify.numerics.nets import forward, unflatten_params

    T = c.T(np.log(eps1))
    W0 = eps1 * fx["W0"]
    v0 = fx["s"] * np.linalg.norm(W0, axis=1)
    t_end = max(T, 1e-9)
    res = integrate_flow(W0, v0, fx["X"], fx["y"], loss=margin_loss(fx["loss"]), reduction="sum", t_end=t_end,
                         t_eval=np.linspace(0, t_end, 101), rtol=1e-10, atol=1e-15 * eps1, error_estimate=False)
    W, v = unflatten_params(res.history["theta"], *W0.shape)
    fmax = float(np.abs(forward(W, v, fx["X"])).max())
    ev.record(measured_max_f_over_rhs29=fmax / rhs29, T=T)
    return ev


# ---------------------------------------------------------------------------------------------
# t1 = O(log n / sqrt(mu)): the measured alignment time, and the proof's explicit t1

T1_MUS = (0.8, 0.4, 0.2, 0.1, 0.05, 0.02, 0.01)
T1_N_FACTORS = (1, 2, 4, 8)
# The control: a faster growth than printed. "t_align shrinks as mu -> 0" (exponent >= +1/2) was the control until
# judge_slope read mu -> 0 from the small end: the family's local slope there rises toward 0 and beyond (+0.15 on
# quick task 5.0), so the reversed rate was no longer decidable at this horizon.
RATE_REVERSED = "t_align grows at least like 1/mu as mu -> 0 (mu-exponent <= -1: faster than printed)"
T1_FIXTURES = [random(wellsep, **BASE_T),
               adversarial(wellsep, label="min.wellsep.imbalanced_wide", **{**BASE_T, "n_pos": 1, "n_neg": 7,
                                                                            "xnorm": (0.05, 2.0)}),
               adversarial(wellsep, label="min.wellsep.pairs", **{**BASE_T, "n_pos": 1, "n_neg": 1, "D": 3}),
               adversarial(wellsep, label="min.wellsep.tilt", **{**BASE_T, "tilt": True}),
               negative(a2_violator, label="min.a2_violator")]


ALIGN_HORIZON = 40.0   # eps -> 0 alignment horizon on the broken-hypothesis control (limit_alignment's 10, x4)


def _xi_witness(d: dict) -> float:
    """Any admissible xi of (27) on the data ``d`` is at most 1 - cos^2 of Lemma 9's constructive pair."""
    x1, x2 = lemma9_witness(d["X"], d["y"])
    return float(1 - (x1 @ x2) ** 2)


def _a2_pair_series(fx) -> tuple[np.ndarray, np.ndarray]:
    """eps -> 0 alignment times on the paper's App. A.2 pair x1 = [1, 0], x2 = [sin a, cos a] (both y = +1,
    mu = sin a) along T1_MUS, from one init drawn from the check's generator (h = 8, every v_j(0) > 0: the
    paper's figures count the positive neurons; a V- neuron on single-class data only approaches S_dead):
    recorded, not judged (a single class leaves x_- = 0, outside Assumption 2 as encoded)."""
    W0 = fx.rng.normal(scale=1 / np.sqrt(2), size=(8, 2))
    sg = np.ones(8)
    ta = []
    for mu in T1_MUS:
        X = np.array([[1.0, 0.0], [mu, np.sqrt(1 - mu ** 2)]])
        ta.append(limit_alignment(X, np.ones(2), W0, sg).t_align)
    return np.array(T1_MUS), np.array(ta)


@claim("min2024.claim.t1order", kind="claim",
       fidelity="partial",
       fidelity_note="one synthetic family (min.wellsep rebuilt along mu and n) that does not stress mu: t_align "
       "flattens as mu -> 0 (local slopes -0.27 .. 0), so the printed order is checked where it is far from tight; "
       "the paper's App. A.2 pair (nearly orthogonal same-label points, where alignment slows as mu -> 0) is a single "
       "class, outside Assumption 2 as encoded: its t_align along mu is recorded beside and judged in the derived "
       "claim.t1order.a2_pair, down to mu = 0.001 (Fig. 8's sin 0.001), where t_align grows like log(1/mu): exponent "
       "against 1/mu 0.15-0.16 on the settled tail (thorough, 8 inits); a fit over mu = 0.8 .. 0.01 alone read "
       "-0.85 against mu on one init, a transient of the largest mu, not the mu -> 0 rate",
       no_room="rate conclusions (fitted exponents against -1/2 and 0) and a yes/no (the alignment ends)",
       title="t1 = O(log n / sqrt(mu)) (Thm 1, Sec. 3.1-3.2)",
       statement=r"The alignment phase ends by $t_1=O(\frac{\log n}{\sqrt\mu})$: the time $t_{align}$ from which "
       r"every $w_j\in S_{\mathrm{sign}(v_j)}\cup S_{dead}$ grows at most like $\frac{\log n}{\sqrt\mu}$ as "
       r"$\mu\to0$ and as $n$ grows ($\epsilon\to0$).", hypotheses=[A1, A2],
       uses=["min2024.thm1.a", "min2024.lem9"],
       expected="verified",
       erratum=erratum(
           kind="imprecision", location="Theorem 1 part 1 and Sec. 3.2-3.3 (t1 = O(log n/sqrt(mu)), the "
           "eps condition eps = O(exp(-(n/sqrt(mu)) log n))); App. C.2 (t1 := 16 log n/(min{zeta, xi} sqrt(mu) "
           "X_min)) with Lemma 9's xi",
           printed=r"there exists $t_1 = O(\frac{\log n}{\sqrt{n}})$ [sic: $\sqrt\mu$, Sec. 3.2] ... $\epsilon = "
           r"O(\frac{1}{\sqrt{h}}\exp(-\frac{n}{\sqrt{\mu}}\log n))$; App. C.2: $t_1 = \frac{16\log n}{\min\{\zeta,"
           r"\xi\}\sqrt{\mu}X_{\min}}$",
           reading="the advertised order treats min{zeta, xi} as a mu-free constant; the proof's t1 carries it, and "
           "no admissible xi of (27) exceeds ~mu^2 (Lemma 9's own best value), with zeta <= zeta1* also "
           "mu-dependent, so the proof's t1 is at least 16 log n/(mu^{5/2} X_min): of order log n/mu^{5/2} at best, "
           "not log n/sqrt(mu), and the eps condition (28) built on it is exp(-Omega(n log n/mu^{5/2})). No proof "
           "step is wrong (eq. (28) carries min{zeta, xi}); the advertised order states more than the proof gives, "
           "and it does hold for the measured alignment time (the check's conclusions)",
           second_method="a witness, not Lemma 9's formula: on every mu-series member the check builds Lemma 9's "
           "constructive pair (x1 along u_k in K, x2 = normalise(u_k - (mu + 1e-7) u_i) outside S+ u S-, from the "
           "data's least-correlated signed pair) and evaluates xi_w = 1 - cos^2(x1, x2), an upper bound on any "
           "admissible xi; then t1 >= 16 log n/(xi_w sqrt(mu) X_min), whose fitted mu-exponent (~ -2.5) is "
           "recorded beside the proof's t1 and t_align's (~ -0.1)",
           independence="another derivation",
           summary="t1 = O(log n/sqrt(mu)) holds for the measured alignment time, but the proof's t1 = 16 log n/"
           "(min{zeta, xi} sqrt(mu) X_min) with xi <= mu^2 is at least of order log n/mu^{5/2}: the advertised "
           "order (and the eps condition built on it) is not what the proof gives"),
       fixtures=T1_FIXTURES + [negative(wellsep, mutation=RATE_REVERSED, **BASE_T)],
       judged_by="eps -> 0 alignment runs (exact limit, saved every 0.01) on the fixture's data rebuilt from its "
       "seed at mu = 0.8 ... 0.01 and at class sizes x1, x2, x4, x8: fitted exponents of t_align against mu "
       "(>= -1/2) and of t_align / log n against n (<= 0), within 0.1 plus twice the fit's standard error; extremes: "
       "one positive point with norms 0.05-2, a single pair (n = 2), data with S_dead interior. The proof's explicit "
       "t1 on the same series (the erratum: its mu-exponent ~ -2.5, its normalised form 1/min{zeta, mu^2}) is "
       "recorded beside. Broken Assumption 2 (a V+ neuron exactly along x_-): the alignment phase must end at all, "
       "judged on the fixture's own data in the eps -> 0 limit up to t = 40")
def t1order(fx):
    ev = Evidence()
    if fx.family != "min.wellsep":
        # no mu- or n-series on this data: the printed conclusion's core, that the alignment phase ends, is judged
        run = limit_alignment(fx["X"], fx["y"], fx["W0"], fx["s"], fx.get("loss", "exp"), t_end=ALIGN_HORIZON / 4)
        ev.valid("eps -> 0 run reached its horizon", run.ok, detail=run.message)
        ev.true(f"the alignment phase ends (every neuron in S_sign(v_j) or S_dead) by t = {run.t[-1]:.3g}",
                bool(np.isfinite(run.t_align)), detail=f"t_align = {run.t_align}")
        return ev
    reversed_ = fx.mutated(RATE_REVERSED)
    for key, values in (("mu", T1_MUS), ("n", T1_N_FACTORS)):
        xs, runs, consts = limit_series(fx, values, key)
        ta = np.array([r.t_align for r in runs])
        ev.record(**{f"t_align along {key}": ta, f"{key} values": xs})
        if key == "mu":
            t1 = np.array([c.t1 for c in consts])
            normalised = np.array([c.t1 * np.sqrt(c.mu) * c.x_min / (16 * np.log(c.n)) for c in consts])
            ms = np.array([c.m for c in consts])
            xi_w = np.array([_xi_witness(rebuild(fx, mu=float(v))) for v in values])
            t1_w = np.array([16 * np.log(c.n) / (w * np.sqrt(c.mu) * c.x_min) for c, w in zip(consts, xi_w)])
            ev.record(xi_witness=xi_w, proof_t1_lower_bound_from_witness=t1_w,
                      proof_t1_over_witness_bound_min=float((t1 / t1_w).min()),
                      witness_t1_exponent_in_mu=float(np.polyfit(np.log(xs), np.log(t1_w), 1)[0]))
            ev.record(proof_t1_along_mu=t1, proof_t1_exponent_in_mu=float(np.polyfit(np.log(xs), np.log(t1), 1)[0]),
                      proof_normalised_t1=normalised,
                      proof_normalised_t1_times_mu2_min=float((normalised * xs ** 2).min()),
                      proof_normalised_t1_vs_closed_form=float(np.abs(normalised * ms - 1).max()))
        if not all(r.ok for r in runs):
            ev.inconclusive(f"eps -> 0 run failed along {key}: " + "; ".join(r.message for r in runs))
            continue
        if not np.all(np.isfinite(ta)):
            ev.inconclusive(f"not aligned within the horizon along {key} (t_align {ta})")
            continue
        keep = ta > 0
        y = ta[keep] if key == "mu" else ta[keep] / np.log(xs[keep])
        if key == "mu":
            ev.record(t_align_exponent_in_mu=float(np.polyfit(np.log(xs[keep]), np.log(y), 1)[0]))
        atol = 0.1 + 2 * slope_error(xs[keep], y)
        if key == "mu":
            judge_slope("t_align against mu", xs[keep], y, predicted=-1.0 if reversed_ else -0.5,
                        relation="<=" if reversed_ else ">=", atol=atol, evidence=ev, xlabel="mu", ylabel="t_align",
                        toward="zero")
        else:
            judge_slope("t_align / log n against n", xs[keep], y, predicted=0.0, relation="<=", atol=atol,
                        evidence=ev, xlabel="n", ylabel="t_align / log n")
    if fx.kind == "random":
        mus, ta = _a2_pair_series(fx)
        ev.record(a2_pair_mu=mus, a2_pair_t_align=ta)
        if np.all(np.isfinite(ta)) and np.all(ta > 0):
            ev.record(a2_pair_t_align_exponent_in_mu=float(np.polyfit(np.log(mus), np.log(ta), 1)[0]),
                      a2_pair_local_slopes=np.diff(np.log(ta)) / np.diff(np.log(mus)))
    return ev



# The App. A.2 pair judged along mu -> 0 (down to the paper's Fig. 8, mu = sin 0.001 ~ 0.001)
A2_PAIR_MUS = (0.8, 0.4, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)
LOWER_BOUND_READING = "t_align grows at least like 1/sqrt(mu) (the printed upper bound read as a lower bound)"


@claim("min2024.claim.t1order.a2_pair", kind="claim",
       title="t1 = O(log n / sqrt(mu)) on the paper's App. A.2 pair (derived)",
       statement=r"On $x_1=[1,0]$, $x_2=[\mu,\sqrt{1-\mu^2}]$ (both $y=+1$, $n=2$), the $\epsilon\to0$ alignment "
       r"time $t_{align}$ (every positive neuron in $S_+$ or $S_{dead}$) grows at most like $1/\sqrt\mu$ as "
       r"$\mu\to0$.", hypotheses=[A1], uses=["min2024.claim.t1order"],
       derived="the paper illustrates Theorem 1's mu-dependence on this pair (App. A.2, cited in Sec. 2 for 'the "
       "dependence on the data separability'), so it is the theorem's scope in spirit; but it is a single class, "
       "x_- = 0, where Assumption 2's cos(w_j(0), x_-) is undefined, so it is outside claim.t1order's hypotheses "
       "as printed and judged here beside it; it is the one family whose alignment time the paper shows slowing as "
       "mu -> 0, where the advertised order is stressed",
       fidelity="partial",
       fidelity_note="one data family (the paper's two-point example), h = 8 positive neurons from a Gaussian init, "
       "in the exact eps -> 0 limit; the order is judged as a rate against 1/mu over mu = 0.8 .. 0.001. The printed "
       "order holds with slack: t_align grows like ln(1/mu) (about 1.0 per e-fold of 1/mu on the tail, recorded; the "
       "worst neuron's closed form is atanh(sqrt(1 - mu^2)) ~ ln(2/mu)), so the fitted exponent 0.15 is far below "
       "1/2 and pins nothing",
       no_room="a rate conclusion (a fitted exponent against 1/2)",
       fixtures=[random(two_point, label="min.two_point.a2_series", a=0.1,
                        seeds={"quick": 2, "standard": 4, "thorough": 8}),
                 negative(two_point, label="min.two_point.obtuse", a=-0.1),
                 negative(two_point, label="min.two_point.a2_series", mutation=LOWER_BOUND_READING, a=0.1)],
       judged_by="eps -> 0 alignment runs (exact limit, saved every 0.01; the fixture's data rebuilt at mu = 0.8 .. "
       "0.001, the init drawn once per fixture): the fitted exponent of t_align against 1/mu is <= 1/2 within 0.1 "
       "(window 'auto': the settled tail when the local slopes settle); a member "
       "whose integrator stopped (a Zeno point of the pattern events) is left out and noted, fewer than 6 left is "
       "inconclusive. Probe: a same-label obtuse pair (mu < 0, Assumption 1 broken): the same series with mu -> 0 "
       "from below, where a neuron aligned with x_1 never activates x_2 and the alignment phase does not end")
def t1order_a2_pair(fx):
    ev = Evidence()
    sign = 1.0 if fx["a"] > 0 else -1.0
    g = np.random.default_rng([fx.seed, 7])
    W0 = g.normal(scale=1 / np.sqrt(2), size=(8, 2))
    mus, ta, dropped = [], [], []
    for mu in A2_PAIR_MUS:
        m = sign * mu
        X = np.array([[1.0, 0.0], [m, np.sqrt(1 - m ** 2)]])
        run = limit_alignment(X, np.ones(2), W0, np.ones(8))
        if not run.ok:
            dropped.append(f"mu = {m:g}: {run.message}")
            continue
        mus.append(mu)
        ta.append(run.t_align)
    mus, ta = np.array(mus), np.array(ta)
    ev.record(mu=sign * mus, t_align=ta, integrator_stopped=dropped)
    if dropped:
        ev.note("left out (integrator stopped, inconclusive there): " + "; ".join(dropped))
    if mus.size < 6:
        return ev.inconclusive(f"only {mus.size} of {len(A2_PAIR_MUS)} series members integrated")
    ev.forall("the alignment phase ends at every member of the series (t_align finite, horizon 40)",
              np.isfinite(ta), relation="true", detail=f"t_align {np.round(ta, 3).tolist()}")
    keep = np.isfinite(ta) & (ta > 0)
    if keep.sum() >= 3:
        x, y = 1 / mus[keep], ta[keep]
        ev.record(local_slopes_in_inverse_mu=np.diff(np.log(y)) / np.diff(np.log(x)))
        # a fixed tolerance: the whole series' fit error (its transient at large mu) must not widen the judgement
        # of the settled tail, whose own error is ~0.006
        judge_slope("t_align against 1/mu", x, y, predicted=0.5, relation=">=" if fx.mutated(LOWER_BOUND_READING)
                    else "<=", atol=0.1, evidence=ev, xlabel="1/mu", ylabel="t_align", window="auto")
        ev.record(t_align_per_unit_log_inverse_mu=float(np.polyfit(np.log(x[-4:]), y[-4:], 1)[0]))
    return ev


# ---------------------------------------------------------------------------------------------
# App. E.3, E.4, F


def _field_e34(w, v, x, y, slope0):
    pre = float(w @ x)
    f = v * max(pre, 0.0)
    g = y * np.exp(-y * f)
    d = 1.0 if pre > 0 else (slope0 if pre == 0 else 0.0)
    return g * v * d * x, g * max(pre, 0.0)


FIELD_FLIPPED = "F(theta0) = (+a, 0, 0) (the field pointing out of S_dead)"
POSITIVE_SLOPE = hypothesis("sigma'(0) = a > 0 (a fixed non-zero subgradient)",
                            lambda fx: (fx["slope0"] > 0, fx["slope0"], f"a = {fx['slope0']:g}"))
Y_POSITIVE = hypothesis("y = +1 (the flow outside S_dead points away from its boundary)",
                        lambda fx: (fx["y"] > 0, fx["y"], f"y = {fx['y']:g}"))


@claim("min2024.claim.nonexist", kind="example", title="Non-existence with sigma'(0) > 0 (App. E.3)",
       statement=r"$x=[1,0]$, $y=-1$, $w(0)=[0,1]$, $v(0)=1$: with $\sigma'(0)=a>0$, $F(\theta_0)=([-a,0],0)\ne0$ while "
       r"$F\equiv0$ on $\mathrm{Int}(S_{dead})$, so no Caratheodory solution exists.", hypotheses=[POSITIVE_SLOPE],
       fidelity="faithful", no_room="an exact field value and a yes/no",
       fixtures=[random(example_e34, label="min.example_e3", slope0=0.5, y_label=-1.0),
                 adversarial(example_e34, label="min.example_e3.a1", slope0=1.0, y_label=-1.0),
                 negative(example_e34, label="min.example_e3.a0", slope0=0.0, y_label=-1.0),
                 negative(example_e34, label="min.example_e3", mutation=FIELD_FLIPPED, slope0=0.5, y_label=-1.0)],
       judged_by="exact field at theta0 and at 1000 points of Int(S_dead) near theta0; extremes a = 1/2 and 1")
def nonexist(fx):
    ev = Evidence()
    x, y, w0, v0, a = fx["x"], fx["y"], fx["w0"], fx["v0"], fx["slope0"]
    Fw, Fv = _field_e34(w0, v0, x, y, a)
    expected = [a, 0.0, 0.0] if fx.mutated(FIELD_FLIPPED) else [-a, 0.0, 0.0]
    ev.close("F(theta0)", np.concatenate([Fw, [Fv]]), expected, atol=1e-15)
    ev.true("F(theta0) != 0", bool(np.abs(Fw).max() > 0))
    pts = w0 + fx.rng.uniform(-1e-3, 0, size=(1000, 2)) * np.array([1.0, 0.0]) - np.array([1e-12, 0.0])
    worst = 0.0
    for p in pts:
        fw, fv = _field_e34(p, v0, x, y, a)
        worst = max(worst, float(np.abs(fw).max()), abs(float(fv)))
    ev.le("max |F| on Int(S_dead) near theta0", worst, 0.0, rtol=0.0)
    return ev


UNIQUE = "the solution is unique: the glued trajectory stays in S_dead after t0"


@claim("min2024.claim.nonunique", kind="example", title="Non-uniqueness with sigma'(0) = 0 (App. E.4)",
       statement=r"$x=[1,0]$, $y=+1$, $w(0)=[0,1]$, $v(0)=1$: $\theta(t)\equiv\theta_0$ and, for every $t_0\ge0$, the "
       r"trajectory constant until $t_0$ and then solving (47) are both Caratheodory solutions.", hypotheses=[Y_POSITIVE],
       fidelity="faithful", no_room="integral-equation residuals at a discretisation tolerance and signs",
       fixtures=[random(example_e34, label="min.example_e4"),
                 adversarial(example_e34, label="min.example_e4.tiny", scale=1e-3),
                 negative(example_e34, label="min.example_e4.y_negative", y_label=-1.0),
                 negative(example_e34, label="min.example_e4", mutation=UNIQUE)],
       judged_by="integral-equation (45) residual of the glued trajectories (t0 = 0, 0.5, 2) below 1e-6 (RK4 + "
       "trapezoid, step 1e-3: a discretisation tolerance, no room), and <x, w(t)> > 0 after t0")
def nonunique(fx):
    from .trajectories import _caratheodory_residual, _glued_solution

    ev = Evidence()
    for t0 in (0.0, 0.5, 2.0):
        t, W, V = _glued_solution(fx, t0)
        ev.le(f"integral-equation residual, t0 = {t0}", _caratheodory_residual(fx, t, W, V), 1e-6, rtol=0.0,
              room=None)
        after = W[t > t0 + 1e-9] @ fx["x"]
        if fx.mutated(UNIQUE):
            ev.true(f"<x, w(t)> <= 0 for t > t0 = {t0}", bool((after <= 0).all()))
        else:
            ev.true(f"<x, w(t)> > 0 for t > t0 = {t0}", bool((after > 0).all()))
    k = 3001
    t = np.linspace(0, 3, k)
    ev.le("residual of the constant solution", _caratheodory_residual(fx, t, np.tile(fx["w0"], (k, 1)),
                                                                     np.full(k, fx["v0"])), 0.0, atol=1e-15)
    return ev


SLIDING = "opposite crossing direction (y_i s_j <x_i, F> < 0 on the planes)"


def _normal_components(r, ks: np.ndarray) -> np.ndarray:
    """(46) on the hyperplanes: for saved states ``ks``, every neuron j and point i, project u_j onto the plane
    <x_i, w> = 0 and return y_i s_j <x_i, F_c> / (mu ||x_i|| sum_{k active} |g_k| ||x_k||) at c = 0 (the
    Filippov selection with sigma'(0) = 0 on that plane; any c in [0, 1] adds c |g_i| ||x_i||^2 >= 0), over the
    projections that activate some other point (the others are on the boundary of S_dead, where a regular
    solution stays). The field's positive factor |v_j| is dropped."""
    X, y = r.X, r.y
    n = len(y)
    Yx = y[:, None] * X
    G = Yx @ Yx.T
    xn = np.linalg.norm(X, axis=1)
    mu = float((G / np.outer(xn, xn))[~np.eye(n, dtype=bool)].min()) if n > 1 else 1.0
    out = []
    for k in ks:
        U = r.U[k]
        g = np.abs(neg_loss_derivative(r.loss, y, r.outputs(k)))
        for i in range(n):
            Wp = U - np.outer(U @ X[i], X[i]) / (xn[i] ** 2)
            act = (Wp @ X.T) > r.tau
            act[:, i] = False
            alive = act.any(1)
            if not alive.any():
                continue
            normal = (act[alive] * g[None, :]) @ G[i]
            scale = mu * xn[i] * ((act[alive] * g[None, :]) @ xn)
            out.append(normal / scale)
    return np.concatenate(out) if out else np.zeros(0)


@claim("min2024.claim.filippov", kind="claim",
       fidelity="partial",
       fidelity_note="the no-sliding argument is checked ((46) on the planes along simulated trajectories, no slide "
       "event); Theorem 1's conclusions for Filippov solutions are those of thm1.* on the same (Caratheodory) "
       "solutions, not re-judged here",
       title="Filippov solutions (App. F): no sliding under Assumption 1",
       statement=r"Theorem 1 remains true for regular Filippov solutions with set-valued $x_a(w)$ (57): under "
       r"Assumption 1 every Filippov selection crosses the planes $\langle x_i,w_j\rangle=0$ transversally "
       r"($y_i\,\mathrm{sign}(v_j)\langle x_i,F\rangle\ge\mu\|x_i\||v_j|\sum_{k\ \mathrm{active}}|g_k|\|x_k\|>0$, "
       r"(46)), so there is no sliding and the Filippov solutions are the Caratheodory ones checked in thm1.*.",
       hypotheses=[A1, INIT], uses=["min2024.claim.eq46", "min2024.thm1"],
       fixtures=[random(wellsep, **BASE_T), *FIT_FIXTURES[1:4], NEG_A1, NEG_A1_PROBE,
                 negative(wellsep, mutation=SLIDING, **BASE_T)],
       judged_by="on the theorem-scale trajectory (alignment, fit and 12 late decades): the event-driven "
       "integrator's own classification of every pattern event (no 'slide' event), and independently (46) on the "
       "planes: at 200 saved states, every neuron projected onto every data plane, the normal component of the "
       "Filippov selection sigma'(0) = 0 over mu ||x_i|| sum |g_k| ||x_k|| is >= 1 (any other selection adds a "
       "non-negative term)")
def filippov(fx):
    ev = Evidence()
    p = phases(fx)
    r = p.run
    ev.valid("integrator reached the horizon", r.ok, detail=r.message)
    kinds = [e[1] for e in r.events]
    ev.forall("integrator events are crossings, not sliding", [k != "slide" for k in kinds], relation="true",
              required=False, detail=f"{len(kinds)} events: {sorted(set(kinds))}")
    ks = np.unique(np.linspace(0, len(r.t) - 1, 200).astype(int))
    ratio = _normal_components(r, ks)
    if fx.mutated(SLIDING):
        ev.forall("y_i s_j <x_i, F> < 0 on the planes", ratio < 0, relation="true")
    else:
        ev.forall("normal component / (mu ||x_i|| sum_k |g_k| ||x_k||) on the planes (46)", ratio, 1.0,
                  relation=">=", rtol=1e-9)
    ev.record(events=len(kinds), slides=kinds.count("slide"), plane_projections=int(ratio.size))
    return ev


# ---------------------------------------------------------------------------------------------
# Remark 5: the leaky-ReLU probe

LEAK = 0.2
DEAD_TRAPS = "S_dead traps as for ReLU (Lemma 12(i) carried over to leaky ReLU)"


@claim("min2024.rmk5.leaky_probe", kind="remark",
       fidelity="proxy",
       fidelity_note="Remark 5's informal 'similar notion of early alignment' for leaky ReLU judged as: in the eps -> "
       "0 leaky flow (alpha = 0.2) every neuron reaches S_sign(v_j) within t = 40 and none stays dead",
       no_room="memberships: yes/no conclusions",
       title="Remark 5 probe: early alignment with leaky ReLU",
       statement=r"With $\sigma(z)=\max\{z,\alpha z\}$, $\alpha\in(0,1)$ (here $\alpha=0.2$), from small init "
       r"($\epsilon\to0$): every $V_+$ neuron reaches $S_+$ and every $V_-$ neuron $S_-$ in finite time, and none "
       r"ends in $S_{dead}$ (the leaky $x_a(w)=\sum_{\mathrm{active}}y_ix_i+\alpha\sum_{\mathrm{inactive}}y_ix_i$ "
       r"lies in $K$, so every signed margin $s_jy_i\langle x_i,w_j\rangle$ increases through 0).",
       hypotheses=[A1, A2, INIT], uses=["min2024.lem1", "min2024.claim.eq46"],
       derived="Remark 5 prints that 'there is a similar notion of neuron alignment at the early stage' for "
       "leaky ReLU but that Theorem 1 'will not directly apply'; this precise form is derived from the leaky "
       "x_a(w) of Lemma 1 and (46): with alpha > 0, x_a(w) is in K for every w",
       fixtures=[random(wellsep, **BASE_T),
                 adversarial(wellsep, label="min.wellsep.tilt_dead", **{**BASE_T, "tilt": True, "crafted": "dead"}),
                 adversarial(wellsep, label="min.wellsep.small_mu", **{**BASE_T, "mu": 0.1}),
                 NEG_A1, NEG_A1_PROBE,
                 negative(wellsep, mutation=DEAD_TRAPS, label="min.wellsep.tilt_dead",
                          **{**BASE_T, "tilt": True, "crafted": "dead"})],
       judged_by="eps -> 0 leaky flow (alpha = 0.2, exact limit, saved every 0.01 up to 10, extended to 40 once): "
       "every neuron in S_sign(v_j) at the end; neurons starting in S_dead (the crafted Int(S_dead) inits on "
       "tilted data) leave it")
def leaky_probe(fx):
    ev = Evidence()
    X, y, W0, s = fx["X"], fx["y"], fx["W0"], fx["s"]
    run = limit_alignment(X, y, W0, s, fx["loss"], leak=LEAK)
    ev.valid("eps -> 0 leaky run reached its horizon", run.ok, detail=run.message)
    target = np.where(s > 0, PLUS, MINUS)
    ev.forall("every neuron in S_sign(v_j) at the end (none dead)", run.mem[-1] == target, relation="true")
    dead0 = run.mem[0] == DEAD
    if fx.mutated(DEAD_TRAPS):
        ev.forall("neurons starting in S_dead stay in S_dead", (run.mem[:, dead0] == DEAD).all(0), relation="true")
    last_out = [np.flatnonzero(run.mem[:, j] != target[j]) for j in range(len(s))]
    # inf: still outside S_sign(v_j) at the last saved time (e.g. off Assumption 1)
    reach = np.array([0.0 if k.size == 0 else float(run.t[k[-1] + 1]) if k[-1] + 1 < len(run.t) else np.inf
                      for k in last_out])
    ev.record(time_to_reach_S_sign=reach, started_dead=int(dead0.sum()), t_end=float(run.t[-1]))
    return ev


# ---------------------------------------------------------------------------------------------
# Remark 7: irregular solutions are avoided by random initialisation

LEAVES = "some region next to the neuron's point pushes it out of S_dead (the opposite sign)"


def _off_planes(fx):
    if "W0" not in fx:   # App. E.4's one-neuron example: w(0) = [0, 1] on the plane of x = [1, 0]
        c = abs(float(fx["w0"] @ fx["x"])) / (np.linalg.norm(fx["w0"]) * np.linalg.norm(fx["x"]))
    else:
        W0, X = fx["W0"], fx["X"]
        c = float((np.abs(W0 @ X.T) / np.outer(np.linalg.norm(W0, axis=1), np.linalg.norm(X, axis=1))).min())
    return c > 1e-12, c, f"min_{{j,i}} |cos(w_j(0), x_i)| = {c:.3g} (0 with probability 0 under W0 ~ N(0, 1/D))"


GAUSS_INIT = hypothesis("random init: no initial neuron on a data hyperplane (probability 1 for W0 ~ N(0, 1/D))",
                        _off_planes, description="min_{j,i} |cos(w_j(0), x_i)| > 0, the event Remark 7's random "
                        "initialisation gives almost surely")


def _exit_velocity(X: np.ndarray, y: np.ndarray, u: np.ndarray, s: float, g: np.ndarray, tau: float
                   ) -> tuple[float, int]:
    """For a neuron ``u`` in S_dead (every <x_i, u> <= tau): the largest normalised normal velocity s <x_i, z_A> /
    (sum_{k in A} |g_k| ||x_k|| ||x_i||), over every region next to ``u`` outside S_dead (a nonempty set A of the
    points whose plane holds ``u``, the field there s |v| z_A with z_A = sum_{k in A} g_k x_k) and i in A. Negative:
    every such region pushes its active points back (no Caratheodory solution leaves S_dead from ``u``); positive: a
    solution can leave (App. E.4). Also returns how many planes hold ``u`` (0: interior, nothing to leave by)."""
    on = np.flatnonzero(X @ u > -tau)
    xn = np.linalg.norm(X, axis=1)
    worst = -np.inf
    for r in range(1, len(on) + 1):
        for A in itertools.combinations(on, r):
            A = list(A)
            z = g[A] @ X[A]
            scale = float((np.abs(g[A]) * xn[A]).sum())
            worst = max(worst, float(np.max(s * (X[A] @ z) / (scale * xn[A]))))
    return worst, len(on)


@claim("min2024.rmk7", kind="remark", title="Remark 7: irregular solutions are avoided by random initialisation",
       statement=r"Irregular solutions (App. E.4: a neuron leaving $S_{dead}$) arise only under very specific "
       r"initialisations and are avoided by random initialisation: with $W_0\sim N(0,1/D)$ no neuron starts on a "
       r"data hyperplane (probability 1), and then every neuron that lies in $S_{dead}$ at some time $t_0$ sits where "
       r"no solution can leave it: on every region next to $w_j(t_0)$ outside $S_{dead}$ the field deactivates its "
       r"active points, $\mathrm{sign}(v_j)\langle x_i,\dot w_j\rangle<0$ (by (46): the planes through $w_j(t_0)$ "
       r"belong to points of the other sign, the ones whose deactivation brought it there).",
       hypotheses=[A1, GAUSS_INIT], uses=["min2024.claim.eq46", "min2024.claim.act"],
       derived="Remark 7 is informal ('rare cases under very specific initialization ... avoided by randomly "
       "initializing'); this precise form uses the paper's Gaussian init of the random-init remark (Sec. 3.1) as the "
       "probability model and the sign identity (46): a neuron entering S_dead does so through the plane of a point of "
       "the other sign (a same-sign point once active stays active, (7)-(8)), and there (46) makes every neighbouring "
       "field point back into S_dead",
       fidelity="proxy", fidelity_note="the informal 'rare, avoided by random init' judged on trajectories from "
       "Gaussian inits (finitely many data sets and draws): every neuron in S_dead at some saved time sits where no "
       "solution can leave; the probability-1 part is the hypothesis predicate itself",
       no_room="a sign conclusion (the normal velocity is negative), no printed constant",
       fixtures=[random(wellsep, expect=("pass", "vacuous"), **{**BASE_T, "tilt": True, "h": 16}),
                 adversarial(wellsep, label="min.wellsep.tilt", expect=("pass", "vacuous"),
                             **{**BASE_T, "tilt": True}),
                 adversarial(wellsep, label="min.wellsep.imbalanced", **{**BASE_T, "n_pos": 1, "n_neg": 5}),
                 negative(example_e34, label="min.example_e4"),
                 NEG_A1,
                 negative(wellsep, mutation=LEAVES, **{**BASE_T, "tilt": True})],
       judged_by="on the theorem-scale regular solution (polar flow, alignment phase): every neuron in S_dead at some "
       "saved time, at its first such time, every nonempty set of the points whose plane holds it (|<x_i, u_j>| <= "
       "1e-9 X_max) and every point of the set: the normalised normal velocity is < 0 (a quantifier over the neurons "
       "on the boundary of S_dead: vacuous when none is, e.g. thorough seed 3 of 10, whose dead neurons all start in "
       "the interior); broken hypothesis: App. E.4's init on the plane of a point "
       "of the same sign (a probability-0 init), where the field pushes it out")
def rmk7(fx):
    ev = Evidence()
    if "W0" not in fx:
        x, y0, w0, v0 = fx["x"], float(fx["y"]), fx["w0"], float(fx["v0"])
        X, y = x[None, :], np.array([y0])
        g = neg_loss_derivative("exp", y, np.array([v0 * max(float(w0 @ x), 0.0)]))
        worst, planes = _exit_velocity(X, y, w0 / np.linalg.norm(w0), float(np.sign(v0)), g, 1e-9 * np.linalg.norm(x))
        vel, on_boundary = [worst], [planes > 0]
    else:
        p = phases(fx, "align")
        r = p.run
        dead = p.mem == DEAD
        vel, on_boundary = [], []
        for j in np.flatnonzero(dead.any(0)):
            k = int(np.argmax(dead[:, j]))
            g = neg_loss_derivative(r.loss, r.y, r.outputs(k))
            worst, planes = _exit_velocity(r.X, r.y, r.U[k, j], float(r.s[j]), g, r.tau)
            if planes:
                vel.append(worst)
            on_boundary.append(planes > 0)
        ev.record(neurons_in_sdead=int(dead.any(0).sum()), entered_during_run=int((dead.any(0) & ~dead[0]).sum()),
                  in_the_interior=int(len(on_boundary) - sum(on_boundary)))
        if not r.ok:
            ev.inconclusive("integrator failed: " + r.message)
        vel = vel if any(on_boundary) else []
    if fx.mutated(LEAVES):
        ev.forall("some region next to each neuron on the boundary of S_dead pushes it out", vel, 0.0, relation=">=",
                  rtol=0.0, room=None)
    else:
        ev.forall("every neuron on the boundary of S_dead: max normalised normal velocity into the regions next to it "
                  "< 0 (no solution leaves)", vel, 0.0, relation="<=", atol=-1e-12, room=None)
    ev.record(max_normal_velocity=max(vel) if vel else None)
    return ev


_REMARKS = {
    "rmk1": ("Balancedness is a technical assumption.", "commentary; balancedness itself is checked by "
             "min2024.claim.bal and the experiments use unbalanced init"),
    "rmk2": ("Every column of W0 is nonzero.", "a standing assumption, checked as the hypothesis predicate 'init (3)' "
             "on every fixture"),
    "rmk3": ("The results depend on W_max and W_min.", "commentary on the constants; they enter (28) and (39), both "
             "computed per fixture"),
    "rmk5": ("The leaky extension changes x_a; Theorem 1 does not directly extend to leaky ReLU, though there is a "
             "similar notion of early alignment.", "commentary: Lemmas 1, 3, 4 are checked with leak > 0, and the "
             "'similar notion of alignment' is probed by min2024.rmk5.leaky_probe"),
    "rmk6": ("Filippov solutions have the same non-uniqueness.", "commentary on App. E/F"),
    "rmk8": ("The hyperplane-intersection case in E.5.", "proof commentary"),
}
for _rid, (_st, _why) in _REMARKS.items():
    not_checkable(f"min2024.{_rid}", kind="remark", title=f"Remark {_rid[3:]}", statement=_st, reason=_why,
                  uses=["min2024.rmk5.leaky_probe"] if _rid == "rmk5" else ())
