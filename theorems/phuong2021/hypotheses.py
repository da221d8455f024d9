"""The prose assumptions of Phuong & Lampert (2021), Section 2, as hypothesis predicates on fixtures.

Each returns (holds, slack, detail); slack > 0 means met with room.
"""

from __future__ import annotations

import itertools

import numpy as np

from verify import hypothesis
from verify.numerics.patterns import is_orthogonally_separable

from ._dynamics import get_paper_loss, loss_tail
from ._geometry import class_geometry, support_rank


def _os(fx):
    ok, slack = is_orthogonally_separable(fx["X"], fx["y"])
    slack += 0.0                                    # -0.0 (exact cross-class zeros) reads as 0
    return ok, slack, f"min(min same-class cos, -max cross-class cos) = {slack:.3e}"


orthogonally_separable = hypothesis(
    "orthogonally separable (eq. (1))", _os,
    description="x_i^T x_j > 0 if y_i = y_j (i = j included), x_i^T x_j <= 0 if y_i != y_j")


def _span(fx):
    X, y = fx["X"], fx["y"]
    if not is_orthogonally_separable(X, y)[0]:
        return False, -1.0, "w_+- undefined (data not orthogonally separable)"
    cg = class_geometry(X, y)
    if not cg.certified:
        return False, -1.0, "max-margin QP not certified"
    d = X.shape[1]
    rp, rn = support_rank(X, cg.support_pos), support_rank(X, cg.support_neg)
    return rp == d and rn == d, float(min(rp, rn) - d + 0.5), f"support ranks {rp}, {rn} (d = {d})"


support_span = hypothesis(
    "support examples span R^d (Section 2)", _span,
    description="span{x_i : i positive support example} = R^d and the same for the negatives")


def _balanced(fx):
    a, W = fx["a0"], fx["W0"]
    nw = np.linalg.norm(W, axis=1)
    gap = float(np.max(np.abs(np.abs(a) - nw) / np.maximum(nw, 1e-300)))
    ok = gap <= 1e-12 and bool(np.all(nw > 0))
    return ok, 1e-12 - gap, f"max | |a_j| - ||w_j|| | / ||w_j|| = {gap:.2e}"


balanced_init = hypothesis("balanced initialisation (Section 2)", _balanced,
                           description="|a_j(0)| = ||w_j(0)|| > 0 for every neuron")

NEAR_ZERO = 1e-3


def _near_zero(fx):
    nw = np.linalg.norm(fx["W0"], axis=1)
    lam = float(nw.max())
    return lam <= NEAR_ZERO, (NEAR_ZERO - lam) / NEAR_ZERO, f"max ||w_j(0)|| = {lam:.2e} (threshold {NEAR_ZERO:g})"


near_zero_init = hypothesis(
    "near-zero initialisation (Section 2)", _near_zero,
    description=f"max_j ||w_j(0)|| <= {NEAR_ZERO:g} (the paper's 'lambda small enough' is unquantified; "
                "this harness threshold is the operational reading)")

# Loss conditions of Section 2 / Lemma 1 / Lemma A.4, per named loss (analytic facts, confirmed on a grid):
# (differentiable, l' bounded, l' Lipschitz, -y l'(u) > 0 for all u)
LOSS_PROPERTIES = {"ce": (True, True, True, True), "ce2": (True, True, True, True), "ce:": (True, True, True, True),
                   "poly": (True, True, True, True), "exp": (True, False, False, True)}


def _declared(loss: str):
    return LOSS_PROPERTIES.get("ce:" if isinstance(loss, str) and loss.startswith("ce:") else loss)


def _loss_ok(fx):
    loss = fx.get("loss", "ce")
    props = _declared(loss)
    if props is None:
        return False, -1.0, f"unknown loss {loss!r}"
    # numerical confirmation of the table on a grid of margins m = y u: -l'(m) > 0 and |l'| <= 1
    m = np.linspace(-40, 40, 2001)
    dl = -get_paper_loss(loss).neg_derivative(m)
    positive = bool(np.all(-dl > 0))
    bounded = float(np.max(np.abs(dl))) <= 1.0 + 1e-12
    ok = all(props) and positive and bounded
    return ok, 1.0 if ok else -1.0, f"loss {loss}: differentiable, bounded, Lipschitz, -y l' > 0 = {props}"


loss_conditions = hypothesis(
    "loss conditions (Section 2 / I3)", _loss_ok,
    description="l differentiable, l' bounded and Lipschitz, -y_i l_i'(u) > 0 for all u (cross-entropy)")


def _exponential_tail(fx):
    loss = fx.get("loss", "ce")
    tail = loss_tail(loss)
    if fx.variant != "amended":
        return True, None, f"loss {loss}: {tail} tail (not a hypothesis of the printed remark)"
    # numerical confirmation: log(-l'(m)) is asymptotically linear in m (exponential tail), not in log m
    # (polynomial tail): its drop over [2000, 4000] is twice that over [1000, 2000], not equal to it
    L = get_paper_loss(loss)
    v = L.log_neg_derivative(np.array([1000.0, 2000.0, 4000.0]))
    ratio = float((v[2] - v[1]) / (v[1] - v[0]))
    ok = tail == "exponential" and ratio > 1.5
    return ok, ratio - 1.5, f"loss {loss}: {tail} tail; drop of log(-l') over [2000, 4000] / over [1000, 2000] = {ratio:.3g}"


exponential_tail = hypothesis(
    "exponentially tailed loss (the amendment of I3)", _exponential_tail,
    description="-l'(m) decays exponentially as m -> infinity (as the results Theorem 1 cites assume); "
                "added by the amended I3 only, so it holds trivially for the printed remark")

cross_entropy = hypothesis("cross-entropy loss (eq. (3))", lambda fx: (fx.get("loss", "ce") == "ce", None,
                                                                     f"loss = {fx.get('loss', 'ce')}"))


def general_position_slack(X: np.ndarray, max_subsets: int = 20000) -> float:
    """Smallest singular value ratio over subsets of min(n, d) rows (footnote 4 read as 2 <= k <= d + 1,
    i.e. any <= d of the x_i linearly independent); exhaustive up to ``max_subsets`` subsets."""
    n, d = X.shape
    k = min(n, d)
    combos = itertools.combinations(range(n), k)
    worst = np.inf
    for c, idx in enumerate(combos):
        if c >= max_subsets:
            break
        s = np.linalg.svd(X[list(idx)], compute_uv=False)
        worst = min(worst, s[-1] / s[0])
    return float(worst)


def _gp(fx):
    s = general_position_slack(fx["X"])
    return s > 1e-9, s, f"min over {min(fx['X'].shape)}-subsets of sigma_min/sigma_max = {s:.2e}"


general_position = hypothesis(
    "inputs with 0 in general position (footnote 4, amended to 2 <= k <= d+1)", _gp,
    description="no k of {x_i} u {0} on a (k-2)-dimensional affine subspace, 2 <= k <= d+1")
