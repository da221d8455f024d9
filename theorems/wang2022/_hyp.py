"""Hypothesis predicates of Wang & Pilanci (2022), checked by the runner on every fixture."""

from __future__ import annotations

import numpy as np

from verify import hypothesis

from ._numerics import orthogonal_separability_slack, spike_free_margin


def _os(fx):
    slack, s_same, s_cross = orthogonal_separability_slack(fx["X"], fx["y"])
    ok = s_same > 1e-12 and s_cross >= -1e-12
    return ok, min(s_same, s_cross), f"min same-label product {s_same:.3g}, max cross-label product {-s_cross:.3g}"


def _os_strict(fx):
    slack, s_same, s_cross = orthogonal_separability_slack(fx["X"], fx["y"])
    return s_same > 1e-12 and s_cross > 1e-12, min(s_same, s_cross), f"min -cross {s_cross:.3g}"


def _os_multiclass(fx):
    X, lab = fx["X"], fx["labels"]
    G = X @ X.T
    same = np.equal.outer(lab, lab)
    s_same = float(G[same].min())
    s_cross = float((-G[~same]).min())
    return s_same > 1e-12 and s_cross >= -1e-12, min(s_same, s_cross), f"same {s_same:.3g}, -cross {s_cross:.3g}"


def _one_vs_rest_os(fx):
    ok, worst = True, np.inf
    for k in range(fx["K"]):
        _, s_same, s_cross = orthogonal_separability_slack(fx["X"], fx["Y"][:, k])
        ok &= s_same > 1e-12 and s_cross >= -1e-12
        worst = min(worst, s_same, s_cross)
    return ok, worst, "min OS slack over the one-vs-rest problems"


def _spike_free(fx):
    m = spike_free_margin(fx["X"])
    return m >= -1e-12, m, "-max offdiag((X X^T)^{-1}) (full row rank test, spec R3)"


def _feasible(fx):
    X, y = fx["X"], fx["y"]
    norms = np.linalg.norm(X, axis=1)
    if norms.min() <= 1e-12:
        return False, 0.0, "zero row"
    U = X / norms[:, None]
    C = U @ U.T
    bad = (C > 1 - 1e-12) & ~np.equal.outer(y, y)
    worst = float(np.max(np.where(~np.equal.outer(y, y), C, -1.0)))
    return not bad.any(), 1 - worst, "1 - max cosine between differently labelled rows"


def _full_rank(fx):
    X = fx["X"]
    s = np.linalg.svd(X, compute_uv=False)
    return s[-1] > 1e-9, float(s[-1]), "smallest singular value (exact enumeration needs rank min(N, d))"


def _both_classes(fx):
    y = fx["y"]
    return bool((y > 0).any() and (y < 0).any()), None, "both labels present"


orthogonally_separable = hypothesis(
    "orthogonally separable (Sec. 3.1)", _os,
    description="x_n^T x_n' > 0 if y_n = y_n', x_n^T x_n' <= 0 otherwise")
strictly_orthogonally_separable = hypothesis(
    "strictly orthogonally separable", _os_strict, description="cross-label products < 0 (no boundary ties)")
orthogonally_separable_multiclass = hypothesis(
    "orthogonally separable among multiple classes (Sec. 2)", _os_multiclass,
    description="x_n^T x_n' > 0 if same class, <= 0 otherwise")
one_vs_rest_orthogonally_separable = hypothesis(
    "every one-vs-rest problem is binary orthogonally separable", _one_vs_rest_os,
    description="amended hypothesis of Theorem 2 (spec E2); automatic for K = 2")
spike_free = hypothesis(
    "X spike-free (Definition 2)", _spike_free,
    description="for ||u|| <= 1 there is ||z|| <= 1 with (Xu)_+ = Xz; exact test offdiag((XX^T)^{-1}) <= 0 for N <= d")
feasible = hypothesis(
    "max-margin problem (13) feasible (H_feas)", _feasible,
    description="no zero row and no positively collinear pair with different labels")
full_rank = hypothesis("rank X = min(N, d) (exact pattern enumeration)", _full_rank,
                       description="rows in general position enough for vertex enumeration of P")
both_classes = hypothesis("both labels present", _both_classes)
