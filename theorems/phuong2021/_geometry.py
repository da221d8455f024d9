"""Static geometry of Phuong & Lampert (2021) on top of verify.numerics: per-class max-margin vectors
(6)-(7) with the paper's support examples, the extremal sectors (13)-(14) and the early-phase weights
c_i = -l_i'(0). Orthogonal separability (1) is verify.numerics.patterns.is_orthogonally_separable.

Rows of X are examples (the paper stores them as columns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.numerics.margin import MarginResult, svm_class
from verify.numerics.nets import loss_weights

from ._dynamics import get_paper_loss

SUPPORT_TOL = 1e-7     # w^T x_i <= 1 + SUPPORT_TOL counts as equality in (6), (7)


@dataclass(frozen=True)
class ClassGeometry:
    """w_+, w_- (eqs. (6), (7)) from :func:`verify.numerics.margin.svm_class`, their multipliers alpha
    (eq. (78): w = sum alpha_i x_i), and the support examples of Section 2: those attaining equality in
    (6) / (7) (the active set, which can be larger than the set of positive multipliers)."""

    pos: MarginResult
    neg: MarginResult
    idx_pos: np.ndarray
    idx_neg: np.ndarray
    support_pos: np.ndarray
    support_neg: np.ndarray

    @property
    def w_pos(self) -> np.ndarray:
        return self.pos.w

    @property
    def w_neg(self) -> np.ndarray:
        return self.neg.w

    @property
    def feasible(self) -> bool:
        """Both (6) and (7) feasible (svm_class reports gamma = 0 and a Farkas certificate otherwise)."""
        return bool(self.pos.gamma > 0 and self.neg.gamma > 0)

    @property
    def certified(self) -> bool:
        """Both solves certified by their recomputed KKT residuals."""
        return bool(self.pos.success and self.neg.success)

    def alpha_full(self, n: int) -> np.ndarray:
        a = np.zeros(n)
        a[self.idx_pos] = self.pos.multipliers
        a[self.idx_neg] = self.neg.multipliers
        return a


def qp_validity(ev, cg: ClassGeometry) -> bool:
    """State the accuracy of the max-margin solves (6), (7) as validity of the check's computation: the
    conclusions that use w_+- are inconclusive, not refuted, when the solves are not certified."""
    return ev.valid("max-margin problems (6), (7) solved (KKT residuals recomputed)", cg.certified,
                    detail=f"positive: {cg.pos.residuals}; negative: {cg.neg.residuals}")


def _active_set(X: np.ndarray, idx: np.ndarray, mm: MarginResult) -> np.ndarray:
    if not mm.gamma > 0:
        return np.array([], dtype=int)
    return idx[X[idx] @ mm.w <= 1.0 + SUPPORT_TOL]


def class_geometry(X: np.ndarray, y: np.ndarray) -> ClassGeometry:
    """w_+ = argmin ||w||^2 s.t. w^T x_i >= 1 (y_i = 1) and w_- likewise on y_i = -1 (eqs. (6), (7))."""
    ip, ineg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    pos, neg = svm_class(X[ip]), svm_class(X[ineg])
    return ClassGeometry(pos, neg, ip, ineg, _active_set(X, ip, pos), _active_set(X, ineg, neg))


def support_rank(X: np.ndarray, idx: np.ndarray) -> int:
    """Numerical rank (relative 1e-8) of the rows ``idx`` of X (the support-span assumption of Section 2)."""
    if idx.size == 0:
        return 0
    s = np.linalg.svd(X[idx], compute_uv=False)
    return int(np.sum(s > 1e-8 * s.max()))


def extremal_sectors(X: np.ndarray, y: np.ndarray, tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """sigma^+ and sigma^- of eqs. (13), (14) (relative zero test ``tol``; 0 gives exact tests)."""
    n = np.linalg.norm(X, axis=1)
    K = X @ X.T
    thr = tol * np.outer(n, n)
    out = []
    for cls in (1.0, -1.0):
        own, other = y == cls, y != cls
        sig = np.zeros(len(y), dtype=int)
        sig[own] = 1
        strictly_neg = np.any((K[:, own] < -thr[:, own]), axis=1)
        sig[other & strictly_neg] = -1
        out.append(sig)
    return out[0], out[1]


def early_weights(y: np.ndarray, loss: str = "ce") -> np.ndarray:
    """c_i = -l_i'(0) = y_i (-l'(0)): y_i/2 for cross-entropy (eq. (3)) and ce2, y_i for exp."""
    y = np.asarray(y, dtype=float)
    return y * loss_weights(np.zeros_like(y), get_paper_loss(loss), reduction="sum")
