"""The probability statement of Theorem 1: with probability 1 - 2^-p over the random initialisation
(erratum E2: 'at least'), some neuron ends in J_+ or J_- (proof of Theorem 1, P5, via Lemma B.1).

Judged over many initialisations simulated together (batched early-phase gradient descent on M networks),
with exact Clopper-Pearson intervals."""

from __future__ import annotations

import numpy as np

from fixtures import phuong2021 as ph
from verify import Evidence, adversarial, claim, judge_binomial, negative, random
from verify.judgements import clopper_pearson
from verify.numerics.flow import gd_steps

from ._geometry import extremal_sectors
from .hypotheses import balanced_init, cross_entropy, near_zero_init, orthogonally_separable, support_span

WIDTHS = (1, 2, 3)


def batched_early_phase(X, y, rng, M, p, lam=1e-6, eta=0.05, steps=400):
    """M independent width-p networks from the near-zero balanced init, trained by GD (t = eta steps).
    Returns (a0, W0, a, W) with shapes (M, p) and (M, p, d)."""
    d = X.shape[1]
    v = rng.standard_normal((M, p, d))
    lam_j = lam * rng.uniform(0.5, 1.0, (M, p))
    W = lam_j[..., None] * v / np.linalg.norm(v, axis=2, keepdims=True)
    a = rng.choice([-1.0, 1.0], (M, p)) * lam_j
    W_T, a_T = gd_steps(W, a, X, y, lr=eta, steps=steps, at_kink=0.0, reduction="sum")
    return a, W, a_T, W_T


def _classify(X, y, a, W):
    sp, sn = extremal_sectors(X, y)
    H = np.einsum("mpd,nd->mpn", W, X)
    S = np.sign(H).astype(int)
    jp = (a > 0) & np.all(S == sp, axis=2)
    jn = (a < 0) & np.all(S == sn, axis=2)
    dead = np.all(S <= 0, axis=2)
    return jp, jn, dead


def _probability_check(fx, p_claim, relation, M=1000):
    ev = Evidence()
    X, y = fx["X"], fx["y"]
    if not orthogonally_separable.evaluate(fx).holds:
        ev.true("data orthogonally separable", False)
        return ev
    lam = float(np.max(np.abs(fx["a0"])))
    for p in WIDTHS:
        a0, W0, a, W = batched_early_phase(X, y, fx.rng, M, p, lam=lam)
        jp, jn, dead = _classify(X, y, a, W)
        success = int(np.sum(np.any(jp | jn, axis=1)))
        unsettled = int(np.sum(~(jp | jn | dead)))
        pc = p_claim(p)
        if relation == "==":
            lo, hi = clopper_pearson(success, M)
            ev.ge(f"p = {p}: CI upper bound >= 1 - 2^-p (equality reading)", hi, pc, rtol=0.0)
            ev.le(f"p = {p}: CI lower bound <= 1 - 2^-p (equality reading)", lo, pc, rtol=0.0,
                  detail=f"{success}/{M}, 95% CI [{lo:.4f}, {hi:.4f}]")
        else:
            judge_binomial(f"p = {p}: P(J_+ u J_- nonempty)", success, M, pc, evidence=ev, relation=relation)
        # B.1 implication: own-class example active at init and sign a_j => j in J_+ (J_-) at T
        H0 = np.einsum("mpd,nd->mpn", W0, X)
        own_pos = (a0 > 0) & np.any((H0 > 0) & (y > 0), axis=2)
        own_neg = (a0 < 0) & np.any((H0 > 0) & (y < 0), axis=2)
        viol = int(np.sum(own_pos & ~jp) + np.sum(own_neg & ~jn))
        ev.le(f"p = {p}: neurons with an own-class example active at init that are not in J_+- at T", viol, 0,
              atol=0.0)
        ev.record(**{f"p={p}: unsettled neurons at T": unsettled, f"p={p}: success rate": success / M})
    return ev


@claim("phuong2021.thm1.p5", kind="claim", title="Proof of Theorem 1: P(J_+ u J_- nonempty) >= 1 - 2^-p",
       statement=r"If $a_j(0)>0$ and $w_j(0)^\top x_{i+}>0$ then $j\in J_+$ (Lemma B.1); each neuron does so (or the "
                 r"negative analogue) with probability 1/2, independently, hence "
                 r"$\mathbb P(J_+\cup J_-\ne\emptyset)\ge1-2^{-p}$.",
       hypotheses=[orthogonally_separable, balanced_init, near_zero_init], uses=["phuong2021.lemB.1",
                                                                                "phuong2021.lem1"],
       fixtures=[random(ph.near_orthogonal), random(ph.span_net, lam=1e-6, profiles=("standard", "thorough")),
                 adversarial(ph.near_orthogonal, delta=0.0, label="classes exactly orthogonal in 2 coordinates"),
                 negative(ph.near_orthogonal, mutation="claimed probability 1 - 4^-p")],
       judged_by="Clopper-Pearson (95%) over 1000 initialisations per width p in {1, 2, 3}, batched early-phase GD "
                 "(eta = 0.05, t = 20, lambda = 1e-6): refuted only if the whole interval lies below 1 - 2^-p; the "
                 "B.1 implication must have zero violations")
def thm1_p5(fx):
    return _probability_check(fx, (lambda p: 1 - 4.0**-p) if fx.mutated() else (lambda p: 1 - 2.0**-p), ">=")


@claim("phuong2021.thm1.prob", kind="claim", title="Theorem 1: 'with probability 1 - 1/2^p' (as printed)",
       statement=r"The conclusion of Theorem 1 holds with probability $1-1/2^p$ over the random initialisation.",
       hypotheses=[orthogonally_separable, support_span, balanced_init, near_zero_init, cross_entropy],
       uses=["phuong2021.thm1.p5"], expected="refuted",
       expected_reason="erratum E2: the proof gives only a lower bound; the probability that some neuron survives "
                       "is far above 1 - 2^-p on typical data (1.0 on span-certified data), so an equality reading fails",
       fixtures=[random(ph.span_net, lam=1e-6), adversarial(ph.span_net, lam=1e-6, d=6, n_pos=8, n_neg=8),
                 negative(ph.span_net, lam=1e-6, mutation="claimed probability 0.1")],
       judged_by="two-sided Clopper-Pearson (95%): the interval must contain 1 - 2^-p for p = 1, 2, 3")
def thm1_prob(fx):
    return _probability_check(fx, (lambda p: 0.1) if fx.mutated() else (lambda p: 1 - 2.0**-p), "==", M=500)


@claim("phuong2021.thm1.prob.amended", kind="claim", amends="phuong2021.thm1.prob",
       title="Theorem 1: 'with probability at least 1 - 2^-p' (amended)",
       statement=r"Some neuron ends in $J_+\cup J_-$ (so the conclusion of Theorem 1 is non-degenerate) with probability "
                 r"at least $1-2^{-p}$.",
       hypotheses=[orthogonally_separable, support_span, balanced_init, near_zero_init, cross_entropy],
       uses=["phuong2021.thm1.p5"],
       fixtures=[random(ph.span_net, lam=1e-6), adversarial(ph.span_net, lam=1e-6, d=6, n_pos=8, n_neg=8),
                 negative(ph.span_net, lam=1e-6, mutation="P(J_+ u J_- nonempty) <= 2^-p")],
       judged_by="one-sided Clopper-Pearson (95%) over 500 initialisations per p in {1, 2, 3}")
def thm1_prob_amended(fx):
    if fx.mutated():
        return _probability_check(fx, lambda p: 2.0**-p, "<=", M=500)
    return _probability_check(fx, lambda p: 1 - 2.0**-p, ">=", M=500)
